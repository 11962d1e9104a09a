/// An attribute made of named sub-attributes (a postal address of street, city, zip),
/// whose value is a dictionary keyed by the elements' names.
///
/// An object's value is a `[String: Any]` (element name → value), read and written
/// with `value(forKey:)` and `setValue(_:forKey:)` or a `@Managed var address:
/// [String: Any]?` property; elements that are `nil` are absent from it, and numbers
/// come back as `NSNumber`. Key paths reach single elements: `value(forKeyPath:
/// "address.city")`, `setValue(_:forKeyPath:)`, and predicates and sort descriptors
/// such as `address.zip > 10000`, which a SQLite store evaluates in SQL.
///
/// Elements are ordinary attribute descriptions of any type but Undefined and Object
/// ID (binary data only without external storage), and may be composites themselves.
/// A default value is a dictionary (possibly empty); the elements' own defaults fill in
/// what it leaves out. On save, a composite that has a value must hold every
/// non-optional element (the error names the key path, `address.city`).
///
/// A SQLite store keeps one column per leaf element in the entity's table
/// (`ZADDRESS_CITY`); an optional composite whose columns are all NULL reads as `nil`.
/// See docs/DEVIATIONS.md for what differs from Core Data.
open class NSCompositeAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// How deep composites may nest (validation, version hashes, the compiled-model reader
    /// and writer all stop there).
    package static let maximumDepth = 8

    /// The sub-attributes, in order; each needs a name and a type.
    open var elements: [NSAttributeDescription] = [] { willSet { assertMutable() } }

    /// Creates a composite attribute with no elements yet.
    public override init() {
        super.init()
        attributeType = .compositeAttributeType
    }
}
