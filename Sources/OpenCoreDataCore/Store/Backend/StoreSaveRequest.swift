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
        /// insert (`EntityFacts.rowColumnSlots`), the changed ones for an update.
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
