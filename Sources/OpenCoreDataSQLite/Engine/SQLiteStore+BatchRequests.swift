import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Batch requests on the SQLite store: each runs in one write transaction, with SQL
/// from the `SQLBatch…Builder`s, and never reads more than keys (and the columns
/// naming external data files) back into memory.
extension SQLiteStore {
    func batchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome {
        guard let store else { throw Self.storeGone }
        let builder = try SQLBatchInsertBuilder(schema: schema, request: request)
        let files = ExternalFiles(storage: ExternalBinaryStorage(url: url))
        let entityNumber = request.entity.facts.entityNumber.sqlScalar
        var written: [NSManagedObjectID] = []
        var upserted: [NSManagedObjectID] = []
        try write(files) { db in
            var allocator = SQLiteKeyAllocator(db: db, schema: schema)
            // Prepared once, run for every row.
            let insert = try db.makeStatement(sql: builder.insert.sql)
            let lookups = try builder.constraintLookups.map {
                (statement: try db.makeStatement(sql: $0.statement.sql), indexes: $0.valueIndexes)
            }
            let update = lookups.isEmpty ? nil : try db.makeStatement(sql: builder.update.sql)
            let oldExternal =
                lookups.isEmpty ? nil : try builder.externalValues.map { try db.makeStatement(sql: $0.sql) }
            for row in request.rows {
                let values = try builder.boundValues(row, request.attributes, encode: files.encode)
                if let update, let (key, number) = try existingRow(matching: values, lookups) {
                    if let oldExternal { files.collectObsolete(try Row.fetchOne(oldExternal, arguments: [key])) }
                    try update.execute(arguments: StatementArguments(values + [key.sqlScalar]))
                    let id = NSManagedObjectID(
                        entity: schema.entitiesByNumber[number] ?? request.entity, store: store, primaryKey: key)
                    written.append(id)
                    upserted.append(id)
                } else {
                    let key = try allocator.nextKey(for: request.entity)
                    try insert.execute(arguments: StatementArguments([key.sqlScalar, entityNumber] + values))
                    written.append(NSManagedObjectID(entity: request.entity, store: store, primaryKey: key))
                }
            }
            try allocator.flush()
            if let history {
                let updated = Set(upserted)
                let slots = request.attributes.map(\.slot)
                let changes = written.map { id in
                    updated.contains(id)
                        ? StoreHistoryChange(
                            entity: id.entity, primaryKey: id.primaryKey!, type: .update, updatedSlots: slots)
                        : StoreHistoryChange(entity: id.entity, primaryKey: id.primaryKey!, type: .insert)
                }
                try history.record(SQLiteHistoryDatabase(db), origin: request.origin, changes: changes, tombstones: [:])
            }
        }
        return StoreBatchOutcome(
            count: written.count, objectIDs: request.wantsObjectIDs ? written : nil, changedObjectIDs: upserted)
    }

    func batchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome {
        guard let store else { throw Self.storeGone }
        let builder = try SQLBatchUpdateBuilder(schema: schema, request: request)
        let files = ExternalFiles(storage: ExternalBinaryStorage(url: url))
        let externalColumns = request.assignments.map(\.attribute).filter(\.allowsExternalBinaryDataStorage).compactMap
        { schema.column(for: $0) }
        var ids: [NSManagedObjectID]?
        var count = 0
        try write(files) { db in
            // History lists every updated row, so it needs their keys even when the caller does not.
            if request.wantsObjectIDs || history != nil {
                let select = try builder.selectMatching(["Z_PK", "Z_ENT"])
                ids = try Row.fetchAll(db, select).compactMap { schema.objectID(inKeyColumnsOf: $0, store: store) }
            }
            if !externalColumns.isEmpty {
                let select = try builder.selectMatching(externalColumns)
                for row in try Row.fetchAll(db, select) { files.collectObsolete(row) }
            }
            let plan = try builder.plan(encode: files.encode)
            for statement in plan.before { try db.execute(statement) }
            try db.execute(plan.update)
            count = db.changesCount
            for statement in plan.after { try db.execute(statement) }
            if let history, let ids {
                let slots = request.assignments.map(\.attribute.slot)
                let changes = ids.map {
                    StoreHistoryChange(
                        entity: $0.entity, primaryKey: $0.primaryKey!, type: .update, updatedSlots: slots)
                }
                try history.record(SQLiteHistoryDatabase(db), origin: request.origin, changes: changes, tombstones: [:])
            }
        }
        var outcome = StoreBatchOutcome(count: count, objectIDs: request.wantsObjectIDs ? ids : nil)
        if let ids { outcome.changedObjectIDs = ids } else { outcome.changedEntities = request.fetch.matchingEntities }
        return outcome
    }

    func batchDelete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome {
        guard let store else { throw Self.storeGone }
        let builder = SQLBatchDeleteBuilder(schema: schema)
        let files = ExternalFiles(storage: ExternalBinaryStorage(url: url))
        var outcome = StoreBatchOutcome(count: 0)
        try write(files) { db in
            // History lists every deleted row, so it needs their keys even when the caller does not.
            if !request.wantsObjectIDs, history == nil, let delete = try builder.directDelete(request.fetch) {
                try db.execute(delete)
                outcome.count = db.changesCount
                outcome.changedEntities = request.fetch.matchingEntities
                return
            }
            for statement in builder.setUp { try db.execute(statement) }
            try db.execute(try builder.seed(request.fetch))
            guard db.changesCount > 0 else {
                try db.execute(builder.tearDown)
                outcome.objectIDs = request.wantsObjectIDs ? [] : nil
                return
            }
            // Cascade wave by wave until a wave adds no rows (rows already gathered are ignored, so cycles end).
            var wave = 0
            while true {
                let present = Set(try Int.fetchAll(db, builder.presentEntities(wave: wave)))
                if present.isEmpty { break }
                for statement in try builder.cascade(wave: wave, present: present) { try db.execute(statement) }
                wave += 1
            }
            let present = Set(try Int.fetchAll(db, builder.presentEntities(wave: nil)))
            let checks = try builder.checks(present: present)
            for check in checks.deny where try Int64.fetchOne(db, check.statement) != nil {
                throw Self.denied(check.relationship)
            }
            for check in checks.requiredInverse where try Int64.fetchOne(db, check.statement) != nil {
                throw Self.requiredInverseCleared(check.relationship)
            }
            var nullified: [StoreHistoryChange] = []
            for step in try builder.nullify(present: present) {
                if history != nil, let cleared = step.clearedRows {
                    for row in try Row.fetchAll(db, cleared.query) {
                        guard let id = schema.objectID(inKeyColumnsOf: row, store: store) else { continue }
                        nullified.append(
                            StoreHistoryChange(
                                entity: id.entity, primaryKey: id.primaryKey!, type: .update,
                                updatedSlots: [cleared.slot]))
                    }
                }
                try db.execute(step.statement)
                if db.changesCount > 0 { outcome.changedEntities.append(step.changed) }
            }
            for statement in builder.joinRowDeletes(present: present) { try db.execute(statement) }
            for query in try builder.externalDataSelects(present: present) {
                for row in try Row.fetchAll(db, query) { files.collectObsolete(row) }
            }
            var matched: [NSManagedObjectID] = []
            for row in try Row.fetchAll(db, builder.selectKeys) {
                guard let id = schema.objectID(inKeyColumnsOf: row, store: store) else { continue }
                outcome.changedObjectIDs.append(id)
                if row.storedInteger(at: 2) == 0 { matched.append(id) }
            }
            let deleted = outcome.changedObjectIDs.map { (entity: $0.entity, primaryKey: $0.primaryKey!) }
            let tombstones = try history?.tombstones(SQLiteHistoryDatabase(db), of: deleted) ?? [:]
            for statement in try builder.rowDeletes(present: present) { try db.execute(statement) }
            if let history {
                // Rows that lost a to-one and are not deleted themselves were updated.
                let row = { (entity: NSEntityDescription, key: Int64) in
                    StoreSaveRequest.RowReference(entity: entity.facts.root, primaryKey: key)
                }
                let gone = nullified.isEmpty ? [] : Set(deleted.map { row($0.entity, $0.primaryKey) })
                let updated = nullified.filter { !gone.contains(row($0.entity, $0.primaryKey)) }
                if tombstones.isEmpty {
                    // No kept values: the deletions are listed straight from the keys table.
                    try history.record(
                        SQLiteHistoryDatabase(db), origin: request.origin, changes: updated, tombstones: [:],
                        deletedRows: (SQLBatchDeleteBuilder.keysTable, deleted.count))
                } else {
                    let changes =
                        deleted.map { StoreHistoryChange(entity: $0.entity, primaryKey: $0.primaryKey, type: .delete) }
                        + updated
                    try history.record(
                        SQLiteHistoryDatabase(db), origin: request.origin, changes: changes, tombstones: tombstones)
                }
            }
            try db.execute(builder.tearDown)
            outcome.count = matched.count
            outcome.objectIDs = request.wantsObjectIDs ? matched : nil
        }
        return outcome
    }

    // MARK: Helpers

    /// The stored row (key and entity number) whose constrained values equal the row's, if any.
    private func existingRow(
        matching values: [SQLScalar], _ lookups: [(statement: Statement, indexes: [Int])]
    ) throws -> (Int64, Int)? {
        for lookup in lookups {
            let arguments = lookup.indexes.map { values[$0] }
            // NULLs never match, as in SQL unique indexes.
            guard !arguments.contains(where: \.isNull) else { continue }
            if let row = try Row.fetchOne(lookup.statement, arguments: StatementArguments(arguments)),
                let key = row.storedInteger(at: 0), let number = row.storedInteger(at: 1)
            {
                return (key, Int(truncatingIfNeeded: number))
            }
        }
        return nil
    }

    /// Runs `body` in one write transaction; files written by a failed transaction are
    /// removed, files replaced by a committed one too.
    private func write(_ files: ExternalFiles, _ body: (Database) throws -> Void) throws {
        do {
            try database.write(body)
        } catch {
            files.discardWritten()
            if let error = error as? DatabaseError { throw Self.wrap(error, url: url, opening: false) }
            throw error
        }
        files.removeObsolete()
    }

    private static var storeGone: NSError {
        CoreDataError.make(NSPersistentStoreOperationError, "The store was removed from its coordinator")
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

/// External binary data touched by one batch request: files written for new values
/// (removed if the transaction fails) and files of replaced or deleted values
/// (removed once it commits).
private final class ExternalFiles {
    let storage: ExternalBinaryStorage
    private var written: [URL] = []
    private var obsolete: [URL] = []

    init(storage: ExternalBinaryStorage) { self.storage = storage }

    /// A value as its column stores it; large data of external-storage attributes goes to a file.
    func encode(_ value: Any?, _ attribute: NSAttributeDescription) throws -> SQLScalar {
        let (column, file) = try storage.columnValue(value, for: attribute)
        if let file { written.append(file) }
        return column
    }

    /// Notes the files named by a row of external-storage columns.
    func collectObsolete(_ row: Row?) {
        guard let row else { return }
        for index in 0..<row.count {
            if let data = Data.fromDatabaseValue(row[index]), let file = storage.fileURL(forColumnValue: data) {
                obsolete.append(file)
            }
        }
    }

    func discardWritten() {
        for file in written { try? FileManager.default.removeItem(at: file) }
    }

    func removeObsolete() {
        for file in obsolete { try? FileManager.default.removeItem(at: file) }
    }
}
