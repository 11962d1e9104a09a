/// One object's saved state as a store hands it to contexts: Core Data's snapshot.
///
/// `values` is indexed by property slot: attributes hold their native stored value,
/// to-ones the destination's ID (or `nil`), to-manys `nil` (they load on demand).
/// Immutable, so the contexts of one coordinator share it through the row cache; a
/// class, so the cache can reference it without owning it while the objects using it do.
final class StoreRow: @unchecked Sendable {
    let objectID: NSManagedObjectID
    /// The row version, Core Data's `Z_OPT`.
    let version: Int64
    let values: [Any?]
    /// When the store read (or wrote) these values, on ``StoreRow/now()``'s clock; staleness is measured from here.
    let timestamp: TimeInterval
    /// The coordinator's cache generation when the row was cached: while it is current,
    /// no save or batch request has touched the cache since, so the row is the freshest.
    var generation = 0
    /// The row cache holding the row (without keeping it alive); the row leaves it when it deallocates.
    var cache: RowCache?

    init(objectID: NSManagedObjectID, version: Int64, values: [Any?], timestamp: TimeInterval) {
        self.objectID = objectID
        self.version = version
        self.values = values
        self.timestamp = timestamp
    }

    deinit { cache?.rowWillDeallocate(ObjectIdentifier(self), key: objectID.key) }

    /// The clock snapshots are stamped with (monotonic seconds); read once per fetch, not per row.
    static func now() -> TimeInterval { ProcessInfo.processInfo.systemUptime }
}

/// Everything one save writes to one store, in the store's terms (entities and keys).
struct StoreSaveRequest {
    /// A row to write: all stored values for an insert, the changed ones for an update.
    struct RowWrite {
        let entity: NSEntityDescription
        let primaryKey: Int64
        /// Values by slot: the object's storage (shared, not copied) with to-ones as
        /// `RowReference` (or `nil`). Only the slots in `slots` are written.
        var values: [Any?]
        /// The slots to write, increasing: every row column of the entity for an
        /// insert (`Compiled.rowColumnSlots`), the changed ones for an update.
        var slots: [Int]
        /// The version the row had when read (`Z_OPT`), checked for updates (optimistic locking).
        var expectedVersion: Int64
    }

    /// A row named by entity and key.
    struct RowReference: Hashable {
        let entity: NSEntityDescription
        let primaryKey: Int64
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.entity === rhs.entity && lhs.primaryKey == rhs.primaryKey }
        func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(entity))
            hasher.combine(primaryKey)
        }
    }

    /// A change of membership in a to-many relationship stored outside the source row.
    struct MembershipChange {
        let relationship: NSRelationshipDescription
        let source: RowReference
        let added: [RowReference]
        let removed: [RowReference]
        /// All members in order, for ordered relationships (their order is stored too).
        let orderedMembers: [RowReference]?
    }

    var inserts: [RowWrite] = []
    var updates: [RowWrite] = []
    /// Rows to delete, with the version each had when read (checked like updates).
    var deletes: [(row: RowReference, expectedVersion: Int64)] = []
    var memberships: [MembershipChange] = []
    /// Who makes the save, for the store's persistent history.
    var origin = StoreHistoryOrigin()
}

/// Hands out primary keys during a save, from the store's `Z_PRIMARYKEY` counters.
protocol PrimaryKeyAllocator {
    mutating func nextKey(for entity: NSEntityDescription) throws -> Int64
}
