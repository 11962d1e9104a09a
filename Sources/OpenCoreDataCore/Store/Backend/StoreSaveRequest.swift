/// Everything one save writes to one store, in the store's terms (entities and keys), with
/// the checks the store runs before writing it. New rows come with their keys (reserved
/// beforehand with ``PersistentStoreBackend/reservePrimaryKeys(for:)``), so the request is
/// complete: the engine runs it in one transaction and answers a ``StoreSaveOutcome``.
package struct StoreSaveRequest {
    /// A row to write: all stored values for an insert, the changed ones for an update.
    package struct RowWrite {
        package let entity: NSEntityDescription
        package let primaryKey: Int64
        /// Values by slot: the object's storage (shared, not copied) with to-ones as
        /// `RowReference` (or `nil`). Only the slots in `slots` are written.
        package var values: SlotValues
        /// The slots to write, increasing: every row column of the entity for an
        /// insert (`EntityFacts.rowColumnSlots`), the changed ones for an update.
        package var slots: [Int]
        /// The version the row had when read (`Z_OPT`), checked for updates (optimistic locking).
        package var expectedVersion: Int64
    }

    /// A row named by entity and key.
    package struct RowReference: Hashable {
        package let entity: NSEntityDescription
        package let primaryKey: Int64
        package init(entity: NSEntityDescription, primaryKey: Int64) {
            self.entity = entity
            self.primaryKey = primaryKey
        }
        package static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.entity === rhs.entity && lhs.primaryKey == rhs.primaryKey
        }
        package func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(entity))
            hasher.combine(primaryKey)
        }
    }

    /// A change of membership in a to-many relationship stored outside the source row.
    package struct MembershipChange {
        package let relationship: NSRelationshipDescription
        package let source: RowReference
        package let added: [RowReference]
        package let removed: [RowReference]
        /// All members in order, for ordered relationships (their order is stored too).
        package let orderedMembers: [RowReference]?
    }

    package var inserts: [RowWrite] = []
    package var updates: [RowWrite] = []
    /// Rows to delete, with the version each had when read (checked like updates).
    package var deletes: [(row: RowReference, expectedVersion: Int64)] = []
    package var memberships: [MembershipChange] = []
    /// Who makes the save, for the store's persistent history.
    package var origin = StoreHistoryOrigin()
    /// The conflicts to look for before writing (versions, uniqueness constraints).
    package var checks = StoreSaveChecks()
    /// The context whose objects are saved: an ``NSAtomicStore`` hands them to its
    /// subclass's node callbacks, as Core Data does. Stores that write rows ignore it.
    package var context: NSManagedObjectContext?
}

extension Sequence where Element == StoreSaveRequest.RowReference {
    /// The references by entity tree (the rows of one table), each group with the tree's
    /// root and the keys, for engines that read one table at a time.
    package var byTree: [(root: NSEntityDescription, keys: [Int64])] {
        Dictionary(grouping: self, by: { ObjectIdentifier($0.entity.facts.root) }).values.map {
            ($0[0].entity.facts.root, $0.map(\.primaryKey))
        }
    }
}
