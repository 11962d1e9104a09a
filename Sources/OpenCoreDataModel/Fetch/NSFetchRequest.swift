/// The types a fetch can return: managed objects, object IDs, dictionaries, counts.
public protocol NSFetchRequestResult {}
extension NSDictionary: NSFetchRequestResult {}
extension NSNumber: NSFetchRequestResult {}

/// What a fetch returns.
public struct NSFetchRequestResultType: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: UInt
    /// Result types from their bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Managed objects (the default).
    public static let managedObjectResultType = NSFetchRequestResultType([])
    /// Object IDs only.
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1)
    /// Dictionaries of property values.
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 2)
    /// The number of matching objects.
    public static let countResultType = NSFetchRequestResultType(rawValue: 4)
}

/// Describes which objects to fetch and how: entity, predicate, order, paging.
///
/// `NSFetchRequest<Person>(entityName: "Person")` or `Person.fetchRequest()`; run it
/// with `context.fetch(_:)`. The predicate and sort run in the store as SQL.
///
/// `ResultType` is unconstrained, where Apple's must conform to ``NSFetchRequestResult``:
/// without the Objective-C runtime a protocol type does not conform to itself, and
/// `NSFetchRequest<NSFetchRequestResult>` (a request whose results are managed objects,
/// dictionaries, IDs or counts, cast by the caller) must be spellable. A fetch whose
/// results are not of `ResultType` throws.
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest, @unchecked Sendable {
    /// The name of the entity to fetch.
    open var entityName: String?
    /// The entity to fetch; takes precedence over `entityName`.
    open var entity: NSEntityDescription? {
        get { explicitEntity }
        set { explicitEntity = newValue; if let name = newValue?.name { entityName = name } }
    }
    package final private(set) var explicitEntity: NSEntityDescription?
    /// The class whose entity to fetch when no name is given (`Person.fetchRequest()`): the
    /// class the request was made for (a copy keeps its original's result type's class,
    /// which may be a managed object class of the core above, or `NSDictionary`), or `nil`.
    package final var resultClass: AnyClass?
    /// Which objects match; `nil` matches all.
    open var predicate: NSPredicate?
    /// The order of results, most significant first.
    open var sortDescriptors: [NSSortDescriptor]?
    /// The most results to return; 0 means no limit.
    open var fetchLimit: Int = 0
    /// How many matching results to skip.
    open var fetchOffset: Int = 0
    /// How many objects to load at a time (0: all at once).
    open var fetchBatchSize: Int = 0
    /// Whether objects of subentities match too.
    open var includesSubentities = true
    /// Whether unsaved inserts, changes and deletes of the context count.
    open var includesPendingChanges = true
    /// Whether returned objects may be faults.
    open var returnsObjectsAsFaults = true
    /// Whether to load property values (objects stay faults when false).
    open var includesPropertyValues = true
    /// Whether refetched objects refresh their values from the store.
    open var shouldRefreshRefetchedObjects = false
    /// The kind of result.
    open var resultType: NSFetchRequestResultType = .managedObjectResultType
    /// Properties for dictionary results.
    open var propertiesToFetch: [Any]?
    /// Whether dictionary results drop duplicates.
    open var returnsDistinctResults = false
    /// Relationship key paths to load together with the results.
    open var relationshipKeyPathsForPrefetching: [String]?
    /// Properties to group dictionary results by.
    open var propertiesToGroupBy: [Any]?
    /// A predicate on grouped dictionary results.
    open var havingPredicate: NSPredicate?

    /// Creates a request for the named entity.
    ///
    /// - Parameter entityName: The name of the entity to fetch, as the model spells it.
    public init(entityName: String) {
        self.entityName = entityName
        super.init()
    }

    /// Creates a request with no entity yet (set `entity` or `entityName` before fetching).
    public override init() { super.init() }

    /// The request's entity, predicate, sort descriptors, limit and offset on one line, in
    /// the shape Core Data prints requests.
    open override var description: String {
        "<NSFetchRequest: entity: \(entityName ?? "nil"), predicate: (\(predicate?.predicateFormat ?? "(null)")), sortDescriptors: \(sortDescriptors?.map(\.description) ?? []), limit: \(fetchLimit), offset: \(fetchOffset)>"
    }
}
