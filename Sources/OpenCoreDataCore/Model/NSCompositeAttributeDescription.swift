/// An attribute made of named sub-attributes (a postal address of street, city, zip),
/// whose value is a dictionary keyed by the elements' names.
///
/// OpenCoreData keeps composite attributes in the model (so model files load and
/// tools can show them) but cannot store them yet: a coordinator refuses a model
/// with one, naming the attribute. See docs/DEVIATIONS.md.
open class NSCompositeAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// The sub-attributes, in order; each needs a name and a type.
    open var elements: [NSAttributeDescription] = [] { willSet { assertMutable() } }

    /// Creates a composite attribute with no elements yet.
    public override init() {
        super.init()
        attributeType = .compositeAttributeType
    }
}
