internal import Synchronization
/// A managed object's identity: which store, which entity, which row.
///
/// An ID is immutable and safe to pass between contexts and threads; an object saved
/// for the first time gets a new, permanent ID replacing its temporary one. Two IDs
/// are equal when they name the same row of the same store.
open class NSManagedObjectID: NSObject, NSCopying, @unchecked Sendable {
    /// The entity of the object this ID names.
    public let entity: NSEntityDescription
    /// The store that holds the object, `nil` while the ID is temporary.
    open var persistentStore: NSPersistentStore? { store }
    /// Held strongly: a weak reference costs an atomic side-table update per ID, and
    /// IDs are made often (every object whose ID is asked for).
    private let store: NSPersistentStore?
    /// The ID's identity as a plain value, for the dictionaries of the context and the
    /// row cache: the row's key, or for a temporary ID its token. An ID holds nothing
    /// else; a row keeps the same parts, from which its object makes the ID when asked.
    let key: ObjectKey

    package init(entity: NSEntityDescription, store: NSPersistentStore, primaryKey: Int64) {
        self.entity = entity
        self.store = store
        self.key = Self.key(of: entity, in: store, primaryKey: primaryKey)
    }

    /// The ID whose parts a row keeps (``StoreRow/objectID``): equal to the ID the row was made for.
    init(entity: NSEntityDescription, key: ObjectKey, store: NSPersistentStore?) {
        self.entity = entity
        self.store = store
        self.key = key
    }

    /// The key of the row `primaryKey` of `entity`'s table in `store`.
    static func key(of entity: NSEntityDescription, in store: NSPersistentStore, primaryKey: Int64) -> ObjectKey {
        ObjectKey(owner: store.number, table: entity.facts.root.facts.entityNumber, primaryKey: primaryKey)
    }

    /// Temporary IDs are a process-wide UUID and a counter, as Core Data's are: a
    /// random UUID for every new object would cost more than creating the object.
    private static let temporaryPrefix = UUID().uuidString + "-"
    private static let temporaryCounter = Atomic<UInt64>(0)

    init(temporaryFor entity: NSEntityDescription) {
        self.entity = entity
        self.store = nil
        let token = Self.temporaryCounter.add(1, ordering: .relaxed).newValue
        // The token is unique in the process; table -1 is no store table's number.
        self.key = ObjectKey(owner: 0, table: -1, primaryKey: Int64(bitPattern: token))
        super.init()
    }

    /// Whether the object has not been saved yet (its ID will change on save).
    open var isTemporaryID: Bool { store == nil }

    /// Whether the object lives in an ``NSIncrementalStore``: the stored field read directly,
    /// as registries ask it for every object they file.
    final var isInIncrementalStore: Bool { store?.isIncremental ?? false }

    /// The row's primary key (`Z_PK`), for permanent IDs.
    package var primaryKey: Int64? { store == nil ? nil : key.primaryKey }

    /// A URL that names the object across launches: `x-coredata://<store UUID>/<Entity>/p<Z_PK>`
    /// (for an ``NSIncrementalStore``'s objects, `p` and the reference object).
    ///
    /// Temporary IDs give `x-coredata:///<Entity>/t<UUID>-<n>`, as Core Data does.
    open func uriRepresentation() -> URL {
        let entityName = entity.name ?? ""
        guard let store else {
            return URL(
                string: "x-coredata:///\(entityName)/t\(Self.temporaryPrefix)\(UInt64(bitPattern: key.primaryKey))")!
        }
        let object = store.uriObjectComponent(forKey: key.primaryKey, entity: entity)
        return URL(string: "x-coredata://\(store.identifier ?? "")/\(entityName)/\(object)")!
    }

    open override func isEqual(_ object: Any?) -> Bool {
        // Exactly an NSManagedObjectID (every ID the framework makes) without the general
        // cast: hashed collections of IDs call this for every occupied bucket they probe.
        guard let object, let other = storedCast(object, to: NSManagedObjectID.self) else { return false }
        guard let store, let otherStore = other.store else {
            return store == nil && other.store == nil && other.key == key
        }
        // Two coordinators' stores of one file name the same rows.
        return other.key.primaryKey == key.primaryKey && other.entity.facts.root === entity.facts.root
            && (otherStore === store || otherStore.identifier == store.identifier)
    }

    /// Rows hash by key and table only: hashing the store's UUID string for every
    /// lookup would dominate fetches, and IDs of one row in two stores are rare.
    open override var hash: Int {
        // Plain arithmetic, not `hashValue`: hashed collections mix `hash` through their own hasher.
        store == nil
            ? Int(truncatingIfNeeded: key.primaryKey)
            : Int(truncatingIfNeeded: key.primaryKey) &+ 31 &* entity.facts.root.facts.entityNumber
    }

    /// IDs are immutable, so a copy is the ID itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String { "<\(type(of: self)) \(uriRepresentation().absoluteString)>" }
}

/// Object IDs are the values of object ID attributes (the model's value rules know them by this).
extension NSManagedObjectID: StoredObjectID {}
