/// What the framework needs of an optional property's type, whatever it wraps.
protocol OptionalValue {
    /// The wrapped type.
    static var wrappedType: Any.Type { get }
    /// The wrapped value, or `nil`.
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    static var wrappedType: Any.Type { Wrapped.self }
    var wrappedValue: Any? { self.map { $0 as Any } }
}

/// Unwraps `value` if it is an optional: `nil` for `.none`, the wrapped value otherwise.
func unwrapOptional(_ value: Any) -> Any? {
    if let optional = value as? any OptionalValue { return optional.wrappedValue.flatMap(unwrapOptional) }
    return value
}

/// A to-many relationship's Swift type: an array of models.
protocol ModelCollection {
    /// The model type of the elements.
    static var modelType: any PersistentModel.Type { get }
    /// The elements.
    var models: [any PersistentModel] { get }
    /// An array of the given models (which are of ``modelType``).
    static func make(_ models: [any PersistentModel]) -> Any
}

extension Array: ModelCollection where Element: PersistentModel {
    static var modelType: any PersistentModel.Type { Element.self }
    var models: [any PersistentModel] { map { $0 } }
    static func make(_ models: [any PersistentModel]) -> Any { models.map { $0 as! Element } }
}
