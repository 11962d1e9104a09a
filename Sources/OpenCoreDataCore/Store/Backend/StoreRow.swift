/// One object's saved state as a store hands it to contexts: Core Data's snapshot.
///
/// A row is the ``SlotBuffer`` of its values, with its identity in the buffer's header:
/// one allocation per row read. `values` is indexed by property slot: attributes hold
/// their native stored value, to-ones the destination's ID (or `nil`), to-manys `nil`
/// (they load on demand). Immutable once made, so the contexts of one coordinator share
/// it through the row cache; objects loaded from it read its values until they write.
/// The cache references a row without owning it, while the objects using it do.
package typealias StoreRow = SlotBuffer

extension SlotBuffer {
    /// A row of `values` (the buffer itself when nothing else holds it, else a copy) for
    /// the object `objectID` names.
    package static func make(
        objectID: NSManagedObjectID, version: Int64, values: consuming SlotValues, timestamp: TimeInterval
    ) -> StoreRow {
        make(
            entity: objectID.entity, store: objectID.persistentStore, key: objectID.key, version: version,
            values: values, timestamp: timestamp)
    }

    /// A row of `values` for the object with primary key `primaryKey` in `store`: what a
    /// store's row decoder calls, making no object ID.
    package static func make(
        entity: NSEntityDescription, store: NSPersistentStore, primaryKey: Int64, version: Int64,
        values: consuming SlotValues, timestamp: TimeInterval
    ) -> StoreRow {
        make(
            entity: entity, store: store, key: NSManagedObjectID.key(of: entity, in: store, primaryKey: primaryKey),
            version: version, values: values, timestamp: timestamp)
    }

    private static func make(
        entity: NSEntityDescription, store: NSPersistentStore?, key: ObjectKey, version: Int64,
        values: consuming SlotValues, timestamp: TimeInterval
    ) -> StoreRow {
        values.makeUnique()
        let row = values.buffer
        let header = row.headerFields
        header.pointee.entity = entity
        header.pointee.store = store
        header.pointee.key = key
        header.pointee.version = version
        header.pointee.timestamp = timestamp
        return row
    }

    /// The row's object ID, made on each call (rows are shared between threads and keep
    /// only its parts): a fetch's path for every row uses ``key`` and ``entity`` instead.
    package var objectID: NSManagedObjectID {
        NSManagedObjectID(entity: entity, key: key, store: headerFields.pointee.store)
    }
    /// The row's entity (asked only of rows: other buffers have none).
    package var entity: NSEntityDescription {
        assert(headerFields.pointee.entity != nil, "entity asked of values that are no row")
        return headerFields.pointee.entity.unsafelyUnwrapped
    }
    /// The row's identity in the registry and the row cache.
    var key: ObjectKey { headerFields.pointee.key }
    /// The row's store, `nil` for a temporary ID's row.
    package var persistentStore: NSPersistentStore? { headerFields.pointee.store }
    /// The row version, Core Data's `Z_OPT`.
    package var version: Int64 { headerFields.pointee.version }
    package var values: SlotValues { SlotValues(buffer: self) }
    /// When the store read (or wrote) these values, on ``now()``'s clock; staleness is measured from here.
    package var timestamp: TimeInterval { headerFields.pointee.timestamp }
    /// The coordinator's cache generation when the row was cached: while it is current,
    /// no save or batch request has touched the cache since, so the row is the freshest.
    /// (Written once, under the coordinator's lock, before the row reaches any context.)
    package var generation: Int {
        get { headerFields.pointee.generation }
        set { headerFields.pointee.generation = newValue }
    }
    /// The row cache holding the row (without keeping it alive); the row leaves it when it deallocates.
    var cache: RowCache? {
        get { headerFields.pointee.cache }
        set { headerFields.pointee.cache = newValue }
    }

    /// The clock snapshots are stamped with (monotonic seconds); read once per fetch, not per row.
    package static func now() -> TimeInterval { ProcessInfo.processInfo.systemUptime }
}
