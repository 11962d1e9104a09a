/// What a save verifies inside its transaction before it writes anything: that the rows it
/// updates and deletes are still the versions its objects were read at (optimistic
/// locking), and that no stored row already holds values a uniqueness constraint reserves.
///
/// The context puts the checks into the ``StoreSaveRequest``; the engine runs them with
/// ``conflicts(of:reading:)`` on its own connection, in the transaction that would write,
/// so no other writer can commit in between. Any conflict makes the save write nothing and
/// answer ``StoreSaveOutcome/conflicts(_:)``; the context hands them to its merge policy
/// and sends a new request.
package struct StoreSaveChecks {
    /// Whether every updated and deleted row's version is compared with the one its write
    /// expects, all of them before any write, so every stale row is reported at once.
    /// When `false` the write's own conditional update or delete refuses the first stale
    /// row with `NSManagedObjectMergeError` (cheaper: no read before each write).
    package var versions = false
    /// The values of inserted and changed objects that uniqueness constraints reserve.
    package var uniqueness: [UniquenessCheck] = []

    package init() {}

    /// One set of values of one uniqueness constraint, held by objects of the save.
    package struct UniquenessCheck {
        /// The entity declaring the constraint: its rows and its subentities' count.
        package let entity: NSEntityDescription
        /// The constrained properties: attributes and to-one relationships.
        package let properties: [NSPropertyDescription]
        /// The values, by property: attributes as stored values, to-ones as the IDs of saved objects.
        package let values: [Any?]
        /// Whether a stored row can hold these values at all: not when one of them is an
        /// object not saved yet or external binary data. The engine then does not look.
        package let mayBeStored: Bool
        /// Whether several objects of the save hold these values: a conflict whatever the store holds.
        package let isDuplicatedInSave: Bool
        /// The save's objects holding these values: their own rows are no conflict.
        let holders: [NSManagedObjectID]
        /// Rows the save deletes or moves off this constraint's values.
        let released: ReleasedRows

        init(
            entity: NSEntityDescription, properties: [NSPropertyDescription], values: [Any?], mayBeStored: Bool,
            holders: [NSManagedObjectID], released: ReleasedRows
        ) {
            self.entity = entity
            self.properties = properties
            self.values = values
            self.mayBeStored = mayBeStored
            self.isDuplicatedInSave = holders.count > 1
            self.holders = holders
            self.released = released
        }

        /// Whether the stored row of `id` holding these values is no conflict, because the
        /// save writes it: one of the objects holding them, or a row the save deletes or
        /// changes to other values.
        package func ignores(_ id: NSManagedObjectID) -> Bool {
            holders.contains(id) || released.contains(id)
        }
    }

    /// The rows of a save that give up values of one constraint: deleted ones (shared by
    /// every constraint of the save) and updated ones that changed a constrained property.
    final class ReleasedRows {
        let deleted: Set<NSManagedObjectID>
        let changed: Set<NSManagedObjectID>

        init(deleted: Set<NSManagedObjectID>, changed: Set<NSManagedObjectID>) {
            self.deleted = deleted
            self.changed = changed
        }

        func contains(_ id: NSManagedObjectID) -> Bool { deleted.contains(id) || changed.contains(id) }
    }

    /// Whether there is nothing to check.
    package var isEmpty: Bool { !versions && uniqueness.isEmpty }

    /// Runs the checks of `request` against `reader`, which reads the store inside the
    /// save's transaction. `nil` when the save may write.
    package func conflicts(
        of request: StoreSaveRequest, reading reader: some StoreSaveCheckReader
    ) throws -> StoreSaveConflicts? {
        var found = StoreSaveConflicts()
        if versions { try findStaleRows(of: request, reader, into: &found) }
        for (index, check) in uniqueness.enumerated() {
            let stored = check.mayBeStored ? try storedRow(holding: check, reader) : nil
            if stored != nil || check.isDuplicatedInSave { found.duplicates.append((index, stored)) }
        }
        return found.isEmpty ? nil : found
    }

    private func findStaleRows(
        of request: StoreSaveRequest, _ reader: some StoreSaveCheckReader, into found: inout StoreSaveConflicts
    ) throws {
        let expected =
            request.updates.map {
                (StoreSaveRequest.RowReference(entity: $0.entity, primaryKey: $0.primaryKey), $0.expectedVersion)
            }
            + request.deletes.map { ($0.row, $0.expectedVersion) }
        var stale: [StoreSaveRequest.RowReference] = []
        // By entity, not table: an incremental store's subclass reads each object as what it is.
        // In entity-number order (and key order within, by the engine): engines that lock what
        // they check then lock in one order in every process, as their writers write.
        let groups = Dictionary(grouping: expected, by: { ObjectIdentifier($0.0.entity) }).values.sorted {
            $0[0].0.entity.facts.entityNumber < $1[0].0.entity.facts.entityNumber
        }
        for rows in groups {
            let current = try reader.versions(ofKeys: rows.map(\.0.primaryKey), in: rows[0].0.entity)
            for (row, version) in rows where current[row.primaryKey] != version { stale.append(row) }
        }
        guard !stale.isEmpty else { return }
        let current = Dictionary(
            try reader.rows(for: stale).map { (Self.reference(to: $0.objectID), $0) },
            uniquingKeysWith: { first, _ in first })
        for row in stale { found.stale.append((row, current[row])) }
    }

    /// The stored row already holding the check's values, unless the save writes that row.
    private func storedRow(holding check: UniquenessCheck, _ reader: some StoreSaveCheckReader) throws -> StoreRow? {
        for id in try reader.objectIDs(of: check.entity, where: check.properties, equal: check.values)
        where !check.ignores(id) {
            if let row = try reader.rows(for: [Self.reference(to: id)]).first { return row }
        }
        return nil
    }

    private static func reference(to id: NSManagedObjectID) -> StoreSaveRequest.RowReference {
        StoreSaveRequest.RowReference(entity: id.entity, primaryKey: id.primaryKey ?? 0)
    }
}

/// What a store engine reads for ``StoreSaveChecks`` inside a save's transaction, on the
/// connection that will write, so the checks see exactly the rows the write would change.
package protocol StoreSaveCheckReader {
    /// The current version (`Z_OPT`) of each row among `keys`, all objects of `entity`
    /// itself (in its tree's table); rows that no longer exist are left out.
    func versions(ofKeys keys: [Int64], in entity: NSEntityDescription) throws -> [Int64: Int64]
    /// The current rows of these (any order; missing rows are left out).
    func rows(for references: [StoreSaveRequest.RowReference]) throws -> [StoreRow]
    /// The IDs of stored rows of `entity` or its subentities whose `properties` equal
    /// `values` (attributes as stored values, to-ones as IDs of saved objects).
    func objectIDs(
        of entity: NSEntityDescription, where properties: [NSPropertyDescription], equal values: [Any?]
    ) throws -> [NSManagedObjectID]
}

/// The conflicts a save's checks found; the save wrote nothing.
package struct StoreSaveConflicts {
    /// Updated or deleted rows whose version is not the one expected, with the row as it
    /// is now (`nil`: deleted meanwhile).
    package var stale: [(row: StoreSaveRequest.RowReference, current: StoreRow?)] = []
    /// Failed uniqueness checks, by position in ``StoreSaveChecks/uniqueness``, with the
    /// stored row holding the values (`nil` when only objects of the save share them).
    package var duplicates: [(check: Int, stored: StoreRow?)] = []

    package init() {}

    package var isEmpty: Bool { stale.isEmpty && duplicates.isEmpty }
}

/// What a store answers a save: it wrote everything, or its checks found conflicts and it
/// wrote nothing.
package enum StoreSaveOutcome {
    /// The checks passed and every write of the request was committed.
    case saved
    /// A check failed; the transaction wrote nothing.
    case conflicts(StoreSaveConflicts)
}
