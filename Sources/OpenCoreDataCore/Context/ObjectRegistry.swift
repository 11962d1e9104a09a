internal import Synchronization

/// The objects a context knows, one per object ID.
///
/// As in Core Data (`retainsRegisteredObjects` false by default), the registry does
/// not keep objects alive: the app's references and the context's change sets do.
/// Entries are ``UnretainedReference``s, and an object leaves its registry in its
/// `deinit` (``objectWillDeallocate(_:id:)``). That can happen on any thread (the
/// app's last reference may go anywhere), so the tables are behind a lock; every
/// other call comes from the context's queue.
///
/// Nothing is released while the lock is held: a release may end an object's life,
/// and its `deinit` takes the lock again.
final class ObjectRegistry: @unchecked Sendable {
    private struct Tables {
        var permanent = ObjectKeyTable<UnretainedReference<NSManagedObject>>()
        /// Objects with temporary IDs, apart: a save gives them all permanent IDs at
        /// once, and dropping this table whole costs less than removing each entry.
        var temporary = ObjectKeyTable<UnretainedReference<NSManagedObject>>()

        subscript(id: NSManagedObjectID) -> UnretainedReference<NSManagedObject>? {
            get { id.isTemporaryID ? temporary[id.key] : permanent[id.key] }
            set {
                if id.isTemporaryID { temporary[id.key] = newValue } else { permanent[id.key] = newValue }
            }
        }

        mutating func remove(_ id: NSManagedObjectID, ifIdenticalTo object: ObjectIdentifier) {
            if id.isTemporaryID {
                temporary.removeValue(forKey: id.key) { $0.refers(to: object) }
            } else {
                permanent.removeValue(forKey: id.key) { $0.refers(to: object) }
            }
        }

        var objects: [NSManagedObject] {
            permanent.values.compactMap { $0.load() } + temporary.values.compactMap { $0.load() }
        }
    }

    private let tables = Mutex(Tables())
    /// The recorder of the context's undo manager, if it has one. It lives here because
    /// every registered object holds its registry strongly: a property write reaches the
    /// recorder without the weak load of the object's context (context's queue only).
    /// Read on every property write, so without a dynamic exclusivity check.
    @exclusivity(unchecked) var undoRecorder: ContextUndoRecorder?
    /// Strong references while the context retains its registered objects (context's queue only).
    @exclusivity(unchecked) private var retained: [ObjectIdentifier: NSManagedObject]?

    /// Whether the registry keeps its objects alive.
    var retainsObjects: Bool {
        get { retained != nil }
        set {
            guard newValue != retainsObjects else { return }
            // Built from `objects` (taken under the lock), dropped outside it.
            retained =
                newValue
                ? Dictionary(objects.map { (ObjectIdentifier($0), $0) }, uniquingKeysWith: { first, _ in first }) : nil
        }
    }

    /// The registered object with `objectID`, unless it is being deallocated.
    subscript(objectID: NSManagedObjectID) -> NSManagedObject? {
        tables.withLock { $0[objectID]?.load() }
    }

    /// Registers `object` under its current ID and tells the object, which remembers
    /// the ID: its `deinit` and ``remove(_:)`` take the entry out under that ID even if
    /// the object's ID changed since.
    func insert(_ object: NSManagedObject) {
        let id = object.objectID
        var alreadyHere = false
        // Out of its old place first (here or another registry), so no entry outlives
        // the object: its `deinit` only knows the newest one.
        if let previous = object.registry {
            if previous === self {
                alreadyHere = object.registeredID == id
                removeEntry(of: object)
            } else {
                previous.remove(object)
            }
        }
        let reference = UnretainedReference(object)
        tables.withLock { $0[id] = reference }
        object.registry = self
        object.registeredID = id
        retained?[ObjectIdentifier(object)] = object
        if !alreadyHere, id.isInIncrementalStore { Self.tellIncrementalStores(about: [id], registered: true) }
    }

    /// Makes room for `additional` more saved objects at once (a fetch's rows).
    func reserveCapacity(forAdditional additional: Int) {
        // Not count + additional: a fetch often returns rows already registered, and the
        // table never shrinks back from an oversized reservation.
        tables.withLock { $0.permanent.reserveCapacity(max($0.permanent.count, additional)) }
    }

    /// Unregisters `object` (under the ID it was registered with) and forgets it.
    func remove(_ object: NSManagedObject) {
        guard object.registry === self else { return }
        if let id = object.registeredID, id.isInIncrementalStore {
            Self.tellIncrementalStores(about: [id], registered: false)
        }
        removeEntry(of: object)
        object.registry = nil
        object.registeredID = nil
        retained?[ObjectIdentifier(object)] = nil
    }

    /// Takes out the entry `object` was filed under, if it is still the object's.
    private func removeEntry(of object: NSManagedObject) {
        guard let id = object.registeredID else { return }
        let identity = ObjectIdentifier(object)
        tables.withLock { $0.remove(id, ifIdenticalTo: identity) }
    }

    /// Re-registers objects a save just gave permanent IDs (`oldIDs`: their temporary ones).
    ///
    /// Every object a save promotes was registered here when it was inserted, so when
    /// the counts match, the table holds exactly those objects and is dropped whole.
    func promote(_ objects: [NSManagedObject], from oldIDs: [NSManagedObjectID]) {
        let references = objects.map { (id: $0.objectID, reference: UnretainedReference($0)) }
        let identities = objects.map(ObjectIdentifier.init)
        tables.withLock { tables in
            if tables.temporary.count == oldIDs.count {
                tables.temporary = ObjectKeyTable()
            } else {
                for (identity, id) in zip(identities, oldIDs) { tables.remove(id, ifIdenticalTo: identity) }
            }
            for (id, reference) in references { tables[id] = reference }
        }
        for object in objects { object.registeredID = object.objectID }
    }

    /// Forgets every object (they stay alive as long as others reference them) and
    /// returns them, so the caller can finish with them after they left the tables.
    @discardableResult
    func removeAll() -> [NSManagedObject] {
        let objects = tables.withLock { tables in
            defer { tables = Tables() }
            return tables.objects
        }
        Self.tellIncrementalStores(about: objects.compactMap(\.registeredID), registered: false)
        for object in objects {
            object.registry = nil
            object.registeredID = nil
        }
        if retained != nil { retained = [:] }
        return objects
    }

    /// The live objects.
    var objects: [NSManagedObject] { tables.withLock { $0.objects } }

    /// The live objects registered under temporary IDs.
    var temporaryObjects: [NSManagedObject] { tables.withLock { $0.temporary.values.compactMap { $0.load() } } }

    /// How many objects are registered (an object whose deallocation has begun may still count).
    var count: Int { tables.withLock { $0.permanent.count + $0.temporary.count } }

    /// Called by an object's `deinit`, on whatever thread released it last.
    func objectWillDeallocate(_ object: ObjectIdentifier, id: NSManagedObjectID) {
        tables.withLock { $0.remove(id, ifIdenticalTo: object) }
        if id.isInIncrementalStore { Self.tellIncrementalStores(about: [id], registered: false) }
    }

    /// Tells the incremental stores among `ids`' stores that a context started (or
    /// stopped) using those objects; other stores are not told. Called outside the lock;
    /// single objects are checked by the caller first (``NSManagedObjectID/isInIncrementalStore``),
    /// which keeps every other store's path to one stored-field read.
    private static func tellIncrementalStores(about ids: [NSManagedObjectID], registered: Bool) {
        guard ids.contains(where: \.isInIncrementalStore) else { return }
        let byStore = Dictionary(
            grouping: ids.filter(\.isInIncrementalStore),
            by: { ObjectIdentifier($0.persistentStore!) })
        for group in byStore.values {
            (group[0].persistentStore as? NSIncrementalStore)?.contextDid(register: registered, group)
        }
    }
}
