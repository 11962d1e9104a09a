/// Recognizes the collection values that predicates iterate over: arrays, sets and
/// ordered sets in their Swift and Foundation forms. Strings and dictionaries are
/// deliberately not collections here; operators that accept them handle them alone.
package enum CollectionValue {
    /// The elements of `value` when it is an array, set or ordered set; otherwise `nil`.
    ///
    /// `NSNull` elements become `nil` so that nil rules apply to them.
    package static func elements(of value: Any?) -> [Any?]? {
        guard let value else { return nil }
        if value is String || value is NSString { return nil }
        if let ordered = value as? NSOrderedSet { return ordered.array.map(unwrapNull) }
        if let set = value as? NSSet { return set.allObjects.map(unwrapNull) }
        if let array = value as? [Any?] { return array.map { unwrapNull($0) } }
        if let array = value as? NSArray { return array.map(unwrapNull) }
        if let set = value as? Set<AnyHashable> { return set.map { unwrapNull($0.base) } }
        return nil
    }

    /// The elements of `value` for membership tests (`IN`, `CONTAINS`): collections,
    /// plus the values of a dictionary.
    package static func members(of value: Any?) -> [Any?]? {
        if let elements = elements(of: value) { return elements }
        if let dictionary = value as? [AnyHashable: Any] { return dictionary.values.map(unwrapNull) }
        if let dictionary = value as? NSDictionary { return dictionary.allValues.map(unwrapNull) }
        return nil
    }

    /// Turns `NSNull` (and optionals holding nil) into `nil`.
    package static func unwrapNull(_ value: Any?) -> Any? {
        guard let value else { return nil }
        // The attribute types' own values come first: comparing metatypes is cheap,
        // the protocol cast below is not.
        let type = Swift.type(of: value)
        if type == String.self || type == Int64.self || type == Double.self || type == Date.self || type == Bool.self
            || type == Int.self || type == Int16.self || type == Int32.self || type == Float.self || type == Data.self
        {
            return value
        }
        // A class instance (a managed object, a collection) is never an `Optional`: its
        // metatype answers that, where the casts below cost thousands of instructions.
        if type is AnyObject.Type { return type is NSNull.Type ? nil : value }
        if value is NSNull { return nil }
        if let optional = value as? OptionalProtocol { return optional.wrappedAny }
        return value
    }
}

/// Lets `Any` values that secretly hold an `Optional` be flattened.
package protocol OptionalProtocol {
    /// The wrapped value, or `nil`.
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    package var wrappedAny: Any? {
        switch self {
        case .some(let wrapped): return CollectionValue.unwrapNull(wrapped)
        case .none: return nil
        }
    }
}
