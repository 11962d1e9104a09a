/// How a fetch index orders one of its columns.
public enum NSFetchIndexElementType: UInt, Sendable {
    /// An ordinary ordered (B-tree) index on the value.
    case binary = 0
    /// A spatial index for range queries over two-dimensional values.
    case rTree = 1
}

/// One column of a fetch index: the property indexed, how and in which direction.
///
/// Indexes over several properties speed up fetches that filter or sort by the same
/// properties together; each element names one of them.
open class NSFetchIndexElementDescription: NSObject, @unchecked Sendable {
    /// The indexed property (an attribute or to-one relationship of the entity).
    open var property: NSPropertyDescription? { willSet { assertMutable() } }
    /// The indexed property's name; set from ``property`` when one is given.
    open var propertyName: String? { willSet { assertMutable() } }
    /// The kind of index structure.
    open var collationType: NSFetchIndexElementType = .binary { willSet { assertMutable() } }
    /// Whether the index orders values ascending (descending otherwise).
    open var isAscending: Bool = true { willSet { assertMutable() } }
    /// The index this element belongs to.
    open package(set) weak var indexDescription: NSFetchIndexDescription?

    /// Creates an element for `property` with the given structure.
    public init(property: NSPropertyDescription, collationType: NSFetchIndexElementType) {
        self.property = property
        self.propertyName = property.name
        self.collationType = collationType
        super.init()
    }

    open override var description: String {
        "(\(type(of: self))) property \(propertyName ?? "nil"), collationType \(collationType), ascending \(isAscending)"
    }

    /// Changing an index of a model in use is a programmer error, as for entities.
    private func assertMutable() { indexDescription?.assertMutable() }
}
