/// The objects a context knows, one per object ID.
///
/// As in Core Data (`retainsRegisteredObjects` false by default), the registry does
/// not keep objects alive: the app's references and the context's change sets do.
/// Entries are ``UnretainedReference``s, filed by ``ObjectKey`` (an object without its ID
/// yet under its row's key), and an object notes its departure in its `deinit`
/// (``objectWillDeallocate(_:id:)`` or ``objectWillDeallocate(_:key:)``); the entry is taken out before the tables
/// are next used (``Departures``). That can happen on any thread (the app's last
/// reference may go anywhere), so the tables are behind a lock; every other call comes
/// from the context's queue.
///
/// Nothing is released while the lock is held: a release may end an object's life,
/// and its `deinit` takes the lock again.
final class ObjectRegistry: @unchecked Sendable {
    private struct Tables: SettlingDepartures {
        var permanent = ObjectKeyTable<UnretainedReference<NSManagedObject>>()
        /// Objects with temporary IDs, apart: a save gives them all permanent IDs at
        /// once, and dropping this table whole costs less than removing each entry.
        var temporary = ObjectKeyTable<UnretainedReference<NSManagedObject>>()
        /// Objects that deallocated since the tables were last used.
        var departures = Departures()

        // The table is chosen by the key (`ObjectKey.isTemporary`), as settling chooses it,
        // never by the overridable `isTemporaryID`.
        subscript(key: ObjectKey) -> UnretainedReference<NSManagedObject>? {
            key.isTemporary ? temporary[key] : permanent[key]
        }

        /// Files `reference` under `key`. An object whose entry this replaces (one that is
        /// deallocating while its ID is registered again) becomes a stray.
        mutating func file(_ reference: UnretainedReference<NSManagedObject>, under key: ObjectKey) {
            let replaced =
                key.isTemporary
                ? temporary.updateValue(reference, forKey: key) : permanent.updateValue(reference, forKey: key)
            if let replaced, replaced.objectIdentity != reference.objectIdentity {
                departures.markStray(replaced.objectIdentity)
            }
            departures.clearStray(reference.objectIdentity)
        }

        mutating func remove(_ key: ObjectKey, ifIdenticalTo object: ObjectIdentifier) {
            if key.isTemporary {
                temporary.removeValue(forKey: key) { $0.refers(to: object) }
            } else {
                permanent.removeValue(forKey: key) { $0.refers(to: object) }
            }
        }

        var entryCount: Int { permanent.count + temporary.count }

        mutating func removeEntry(_ record: Departures.Record) {
            remove(record.key, ifIdenticalTo: record.identity)
        }

        mutating func removeAllEntries() {
            permanent = ObjectKeyTable()
            temporary = ObjectKeyTable()
        }

        /// The live objects; those deallocating (their records not in yet) become strays
        /// when `abandoningTheRest`, as the tables are about to be dropped.
        mutating func objects(abandoningTheRest: Bool = false) -> [NSManagedObject] {
            var objects: [NSManagedObject] = []
            objects.reserveCapacity(permanent.count + temporary.count)
            for table in [permanent, temporary] {
                table.forEach { _, reference in
                    if let object = reference.load() {
                        objects.append(object)
                    } else if abandoningTheRest {
                        departures.markStray(reference.objectIdentity)
                    }
                }
            }
            return objects
        }
    }

    private let tables = LockedValue(Tables())

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
    subscript(objectID: NSManagedObjectID) -> NSManagedObject? { self[objectID.key] }

    /// The registered object with `key`, unless it is being deallocated.
    subscript(key: ObjectKey) -> NSManagedObject? {
        tables.withSettled { $0[key]?.load() }
    }

    /// Registers `object` under its current ID (or, before it has one, its row's key) and
    /// tells the object, which remembers the ID (`registeredID`, `nil` when filed under its
    /// row's key): its `deinit` and ``remove(_:)`` take the entry out under that key even
    /// if the object's ID changed since.
    func insert(_ object: NSManagedObject) {
        let (key, id) = object.registrationIdentity
        var alreadyHere = false
        // Out of its old place first (here or another registry), so no entry outlives
        // the object: its `deinit` only knows the newest one.
        if let previous = object.registry {
            if previous === self {
                alreadyHere = object.filedKey == key
                removeEntry(of: object)
            } else {
                previous.remove(object)
            }
        }
        let reference = UnretainedReference(object)
        tables.withSettled { $0.file(reference, under: key) }
        object.registry = self
        object.registeredID = id
        retained?[ObjectIdentifier(object)] = object
        if !alreadyHere, let id, id.isInIncrementalStore { Self.tellIncrementalStores(about: [id], registered: true) }
    }

    /// Makes room for `additional` more saved objects at once (a fetch's rows).
    func reserveCapacity(forAdditional additional: Int) {
        // Not count + additional: a fetch often returns rows already registered, and the
        // table never shrinks back from an oversized reservation.
        tables.withSettled { $0.permanent.reserveCapacity(max($0.permanent.count, additional)) }
    }

    /// Unregisters `object` (under the ID it was registered with) and forgets it.
    func remove(_ object: NSManagedObject) {
        guard object.registry === self else { return }
        if let id = object.registeredID, id.isInIncrementalStore {
            Self.tellIncrementalStores(about: [id], registered: false)
        }
        removeEntry(of: object, forgettingStray: true)
        object.registry = nil
        object.registeredID = nil
        retained?[ObjectIdentifier(object)] = nil
    }

    /// Takes out the entry `object` was filed under, if it is still the object's.
    /// When `forgettingStray`, the object will not note a departure here: if it was a stray
    /// (its entry replaced), it is one no longer.
    private func removeEntry(of object: NSManagedObject, forgettingStray: Bool = false) {
        guard let key = object.filedKey else { return }
        let identity = ObjectIdentifier(object)
        tables.withSettled { tables in
            tables.remove(key, ifIdenticalTo: identity)
            if forgettingStray { tables.departures.clearStray(identity) }
        }
    }

    /// Re-registers objects a save just gave permanent IDs (`oldIDs`: their temporary ones).
    ///
    /// Every object a save promotes was registered here when it was inserted, so when
    /// the counts match and each object is still filed under its old ID, the table holds
    /// exactly those objects and is dropped whole.
    func promote(_ objects: [NSManagedObject], from oldIDs: [NSManagedObjectID]) {
        let references = objects.map { (id: $0.objectID, reference: UnretainedReference($0)) }
        let identities = objects.map(ObjectIdentifier.init)
        let allFiledHere = zip(objects, oldIDs).allSatisfy { $0.registry === self && $0.registeredID === $1 }
        tables.withSettled { tables in
            if allFiledHere, tables.temporary.count == oldIDs.count {
                assert(
                    !Departures.verifiesWholeDrops || Self.holdsOnly(Set(identities), tables.temporary),
                    "dropped whole, the temporary table would lose an object the save did not promote")
                tables.temporary = ObjectKeyTable()
            } else {
                for (identity, id) in zip(identities, oldIDs) { tables.remove(id.key, ifIdenticalTo: identity) }
            }
            for (id, reference) in references { tables.file(reference, under: id.key) }
        }
        for object in objects { object.registeredID = object.objectID }
    }

    /// Whether every entry of `table` is one of `identities` (for a debug check).
    private static func holdsOnly(
        _ identities: Set<ObjectIdentifier>, _ table: ObjectKeyTable<UnretainedReference<NSManagedObject>>
    ) -> Bool {
        var holdsOthers = false
        table.forEach { _, reference in holdsOthers = holdsOthers || !identities.contains(reference.objectIdentity) }
        return !holdsOthers
    }

    /// Forgets every object (they stay alive as long as others reference them) and
    /// returns them, so the caller can finish with them after they left the tables.
    @discardableResult
    func removeAll() -> [NSManagedObject] {
        let objects = tables.withSettled { tables in
            let objects = tables.objects(abandoningTheRest: true)
            tables.permanent = ObjectKeyTable()
            tables.temporary = ObjectKeyTable()
            return objects
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
    var objects: [NSManagedObject] { tables.withSettled { $0.objects() } }

    /// The live objects registered under temporary IDs.
    var temporaryObjects: [NSManagedObject] { tables.withSettled { $0.temporary.values.compactMap { $0.load() } } }

    /// How many objects are registered (an object whose deallocation has begun may still count).
    var count: Int { tables.withSettled { $0.permanent.count + $0.temporary.count } }

    /// Called by an object's `deinit`, on whatever thread released it last: notes the
    /// departure, which the next use of the tables settles.
    func objectWillDeallocate(_ object: ObjectIdentifier, id: NSManagedObjectID) {
        objectWillDeallocate(object, key: id.key)
        if id.isInIncrementalStore { Self.tellIncrementalStores(about: [id], registered: false) }
    }

    /// The departure of an object filed under its row's key (no incremental store's: those are filed by ID).
    func objectWillDeallocate(_ object: ObjectIdentifier, key: ObjectKey) {
        tables.withLock { $0.noteDeparture(key: key, identity: object) }
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
