/// A named, possibly compound, index of an entity's table, declared in the model so
/// the store creates it.
///
/// Core Data turns each into a SQLite index over the elements' columns (in order);
/// OpenCoreData does the same for binary elements. See docs/DEVIATIONS.md for R-tree
/// elements and partial indexes.
open class NSFetchIndexDescription: NSObject, @unchecked Sendable {
    /// The index's name, unique in its entity.
    open var name: String { willSet { assertMutable() } }
    /// The indexed properties, most significant first.
    open var elements: [NSFetchIndexElementDescription] {
        willSet { assertMutable() }
        didSet { for element in elements { element.indexDescription = self } }
    }
    /// Restricts the index to the rows matching the predicate (a partial index).
    open var partialIndexPredicate: NSPredicate? { willSet { assertMutable() } }
    /// The entity the index belongs to; set when it is added to `NSEntityDescription.indexes`.
    ///
    /// Unretained, and cleared by the entity when it lets the index go or deallocates (see
    /// ``NSEntityDescription/superentity`` for why not `weak`).
    open package(set) unowned(unsafe) var entity: NSEntityDescription?

    /// Creates an index named `name` over `elements`.
    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
        super.init()
        for element in self.elements { element.indexDescription = self }
    }

    open override var description: String {
        "(\(type(of: self))) name \(name), elements \(elements.map { $0.propertyName ?? "?" })"
    }

    /// Changing an index of a model in use is a programmer error, as for entities.
    package final func assertMutable() { entity?.assertMutable() }
}
