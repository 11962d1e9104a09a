import OpenCoreDataCore

/// Batch insert, update and delete on any SQL engine, inside the caller's transaction,
/// with the statements of the `SQLBatch…Builder`s: set-based, reading no more than keys
/// (and the columns naming external data files) back into memory, and recording
/// persistent history when the store keeps it.
package struct SQLBatchRequests<Database: SQLDatabase, Engine: SQLBatchEngine> {
    package let db: Database
    package let schema: SQLSchema
    package let history: SQLHistory?
    package let store: NSPersistentStore
    package let engine: Engine

    package init(db: Database, schema: SQLSchema, history: SQLHistory?, store: NSPersistentStore, engine: Engine) {
        self.db = db
        self.schema = schema
        self.history = history
        self.store = store
        self.engine = engine
    }

    // MARK: Insert

    /// Inserts the request's rows; a row equal to a stored one on a uniqueness constraint
    /// overwrites it instead.
    package func insert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome {
        let builder = try SQLBatchInsertBuilder(schema: schema, request: request)
        let entityNumber = Int64(request.entity.facts.entityNumber)
        let lookups = builder.constraintLookups
        if !lookups.isEmpty { try engine.willMatchUniqueValues() }
        var written: [NSManagedObjectID] = []
        var upserted: [NSManagedObjectID] = []
        for (index, row) in request.rows.enumerated() {
            let values = try builder.boundValues(row, request.attributes, encode: engine.encode)
            if let (key, number) = try existingRow(matching: values, lookups) {
                if engine.usesExternalFiles, let oldExternal = builder.externalValues {
                    try db.forEachRow(oldExternal, [.integer(key)]) { engine.collectObsolete($0) }
                }
                try db.run(builder.update, values + [.integer(key)])
                let id = NSManagedObjectID(
                    entity: schema.entitiesByNumber[number] ?? request.entity, store: store, primaryKey: key)
                written.append(id)
                upserted.append(id)
            } else {
                let key = try engine.nextKey(for: request.entity, remaining: request.rows.count - index)
                try db.run(builder.insert, [.integer(key), .integer(entityNumber)] + values)
                written.append(NSManagedObjectID(entity: request.entity, store: store, primaryKey: key))
            }
        }
        try engine.finishKeys()
        if let history {
            let updated = Set(upserted)
            let slots = request.attributes.map(\.slot)
            let changes = written.map { id in
                updated.contains(id)
                    ? StoreHistoryChange(
                        entity: id.entity, primaryKey: id.primaryKey!, type: .update, updatedSlots: slots)
                    : StoreHistoryChange(entity: id.entity, primaryKey: id.primaryKey!, type: .insert)
            }
            try history.record(db, origin: request.origin, changes: changes, tombstones: [:])
        }
        return StoreBatchOutcome(
            count: written.count, objectIDs: request.wantsObjectIDs ? written : nil, changedObjectIDs: upserted)
    }

    /// The stored row (key and entity number) whose constrained values equal the row's, if any.
    private func existingRow(
        matching values: [SQLScalar], _ lookups: [SQLBatchInsertBuilder.ConstraintLookup]
    ) throws -> (Int64, Int)? {
        for lookup in lookups {
            let arguments = lookup.valueIndexes.map { values[$0] }
            // NULLs never match, as in SQL unique indexes.
            guard !arguments.contains(where: \.isNull) else { continue }
            var found: (Int64, Int)?
            try db.forEachRow(lookup.statement, arguments) { row in
                if found == nil, let key = row[0].exactInteger, let number = row[1].exactInteger {
                    found = (key, Int(truncatingIfNeeded: number))
                }
            }
            if let found { return found }
        }
        return nil
    }

    // MARK: Update

    /// Updates every matching row in one statement.
    package func update(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome {
        let builder = try SQLBatchUpdateBuilder(schema: schema, request: request)
        let externalColumns =
            engine.usesExternalFiles
            ? request.assignments.map(\.attribute).filter(\.allowsExternalBinaryDataStorage).compactMap {
                schema.column(for: $0)
            } : []
        let matching = try builder.selectMatching(["Z_PK", "Z_ENT"])
        try engine.check(matching)
        var ids: [NSManagedObjectID]?
        var keys: [Int64]?
        if engine.writersRunAtOnce {
            // Another writer could change a matching row between the reads and the update,
            // which would then overwrite it with values computed before: lock them first,
            // and update exactly those.
            let locked = try db.objectIDs(try builder.lockMatching(), schema: schema, store: store)
            ids = locked
            keys = locked.compactMap(\.primaryKey)
        } else if request.wantsObjectIDs || history != nil {
            // History lists every updated row, so it needs their keys even when the caller does not.
            ids = try db.objectIDs(matching, schema: schema, store: store)
        }
        if !externalColumns.isEmpty {
            try db.forEachRow(try builder.selectMatching(externalColumns)) { engine.collectObsolete($0) }
        }
        let plan = try builder.plan(encode: engine.encode, keys: keys)
        for statement in plan.before { try db.execute(statement) }
        try engine.check(plan.update)
        let count = try db.execute(plan.update)
        for statement in plan.after { try db.execute(statement) }
        if let history, let ids {
            let slots = request.assignments.map(\.attribute.slot)
            let changes = ids.map {
                StoreHistoryChange(entity: $0.entity, primaryKey: $0.primaryKey!, type: .update, updatedSlots: slots)
            }
            try history.record(db, origin: request.origin, changes: changes, tombstones: [:])
        }
        var outcome = StoreBatchOutcome(count: count, objectIDs: request.wantsObjectIDs ? ids : nil)
        if let ids { outcome.changedObjectIDs = ids } else { outcome.changedEntities = request.fetch.matchingEntities }
        return outcome
    }

    // MARK: Delete

    /// Deletes every matching row, applying the delete rules of their relationships.
    package func delete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome {
        let builder = SQLBatchDeleteBuilder(schema: schema)
        var outcome = StoreBatchOutcome(count: 0)
        // History lists every deleted row, so it needs their keys even when the caller does not.
        if !request.wantsObjectIDs, history == nil, let delete = try builder.directDelete(request.fetch) {
            try engine.check(delete)
            outcome.count = try db.execute(delete)
            outcome.changedEntities = request.fetch.matchingEntities
            return outcome
        }
        for statement in builder.setUp { try db.execute(statement) }
        let seed = try builder.seed(request.fetch)
        try engine.check(seed)
        guard try db.execute(seed) > 0 else {
            try db.execute(builder.tearDown)
            outcome.objectIDs = request.wantsObjectIDs ? [] : nil
            return outcome
        }
        // Cascade wave by wave until a wave adds no rows (rows already gathered are ignored, so cycles end).
        var wave = 0
        while true {
            let present = Set(try db.integers(builder.presentEntities(wave: wave)).map { Int(truncatingIfNeeded: $0) })
            if present.isEmpty { break }
            for statement in try builder.cascade(wave: wave, present: present) { try db.execute(statement) }
            wave += 1
        }
        let present = Set(try db.integers(builder.presentEntities(wave: nil)).map { Int(truncatingIfNeeded: $0) })
        let checks = try builder.checks(present: present)
        for check in checks.deny where try db.hasRow(check.statement) {
            throw Self.denied(check.relationship)
        }
        for check in checks.requiredInverse where try db.hasRow(check.statement) {
            throw Self.requiredInverseCleared(check.relationship)
        }
        var nullified: [StoreHistoryChange] = []
        for step in try builder.nullify(present: present) {
            if history != nil, let cleared = step.clearedRows {
                for id in try db.objectIDs(cleared.query, schema: schema, store: store) {
                    nullified.append(
                        StoreHistoryChange(
                            entity: id.entity, primaryKey: id.primaryKey!, type: .update, updatedSlots: [cleared.slot]))
                }
            }
            if try db.execute(step.statement) > 0 { outcome.changedEntities.append(step.changed) }
        }
        for statement in builder.joinRowDeletes(present: present) { try db.execute(statement) }
        if engine.usesExternalFiles {
            for query in try builder.externalDataSelects(present: present) {
                try db.forEachRow(query) { engine.collectObsolete($0) }
            }
        }
        var matched: [NSManagedObjectID] = []
        try db.forEachRow(builder.selectKeys) { row in
            guard let id = schema.objectID(key: row[0].exactInteger, entityNumber: row[1].exactInteger, store: store)
            else { return }
            outcome.changedObjectIDs.append(id)
            if row[2].exactInteger == 0 { matched.append(id) }
        }
        let deleted = outcome.changedObjectIDs.map { (entity: $0.entity, primaryKey: $0.primaryKey!) }
        let tombstones = try history?.tombstones(db, of: deleted) ?? [:]
        for statement in try builder.rowDeletes(present: present) { try db.execute(statement) }
        if let history {
            // Rows that lost a to-one and are not deleted themselves were updated.
            let row = { (entity: NSEntityDescription, key: Int64) in
                StoreSaveRequest.RowReference(entity: entity.facts.root, primaryKey: key)
            }
            let gone = nullified.isEmpty ? [] : Set(deleted.map { row($0.entity, $0.primaryKey) })
            let updated = nullified.filter { !gone.contains(row($0.entity, $0.primaryKey)) }
            if tombstones.isEmpty {
                // No kept values: the deletions are listed straight from the keys table, every
                // row of it (one of an entity the model does not know too), so keys are
                // reserved for all of them.
                let listed = Int(try db.integer(builder.countKeys) ?? 0)
                try history.record(
                    db, origin: request.origin, changes: updated, tombstones: [:],
                    deletedRows: (builder.keysTable, builder.insertionOrder, listed))
            } else {
                let changes =
                    deleted.map { StoreHistoryChange(entity: $0.entity, primaryKey: $0.primaryKey, type: .delete) }
                    + updated
                try history.record(db, origin: request.origin, changes: changes, tombstones: tombstones)
            }
        }
        try db.execute(builder.tearDown)
        outcome.count = matched.count
        outcome.objectIDs = request.wantsObjectIDs ? matched : nil
        return outcome
    }

    private static func denied(_ relationship: NSRelationshipDescription) -> NSError {
        let owner = relationship.entity?.name ?? "?"
        return CoreDataError.make(
            NSValidationRelationshipDeniedDeleteError,
            "Batch delete refused: \(owner) objects cannot be deleted while relationship '\(owner).\(relationship.name)' (delete rule Deny) still has objects that are not being deleted",
            [NSValidationKeyErrorKey: relationship.name]
        )
    }

    private static func requiredInverseCleared(_ relationship: NSRelationshipDescription) -> NSError {
        let owner = relationship.entity?.name ?? "?"
        let inverse = relationship.inverseRelationship
        let target = "\(inverse?.entity?.name ?? "?").\(inverse?.name ?? "?")"
        return CoreDataError.make(
            NSPersistentStoreSaveConflictsError,
            "Batch delete refused: nullifying '\(owner).\(relationship.name)' would clear the required relationship '\(target)' of objects that are not being deleted",
            [NSValidationKeyErrorKey: inverse?.name ?? relationship.name]
        )
    }
}

/// A store whose batch requests run ``SQLBatchRequests``: it says how to run one (its
/// transaction, its connection, its side of the request), and gets the three requests.
package protocol SQLBatchRunning: PersistentStoreBackend {
    associatedtype BatchDatabase: SQLDatabase
    associatedtype BatchEngine: SQLBatchEngine

    /// Runs `body` on a new ``SQLBatchRequests`` in one transaction; its outcome once committed.
    func runBatch(
        _ body: (SQLBatchRequests<BatchDatabase, BatchEngine>) throws -> StoreBatchOutcome
    ) throws -> StoreBatchOutcome
}

extension SQLBatchRunning {
    package func batchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome {
        try runBatch { try $0.insert(request) }
    }

    package func batchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome {
        try runBatch { try $0.update(request) }
    }

    package func batchDelete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome {
        try runBatch { try $0.delete(request) }
    }
}
