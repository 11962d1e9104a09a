/// Why a model could not be written as a compiled model, or as Xcode's `contents` XML:
/// the element at fault (an entity, a property, a fetch request template) and the reason.
package struct CompiledModelEncodingError: Error, CustomStringConvertible {
    /// The element of the model that could not be written, when known.
    package let element: String?
    /// What is wrong with it.
    package let reason: String

    package var description: String {
        element.map { "\($0): \(reason)" } ?? reason
    }
}
