import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// Saving: keys from the tables' sequences, and each save in one transaction with its
/// checks read on the transaction's connection.
extension PostgreSQLStore {
    func reservePrimaryKeys(for entities: [NSEntityDescription]) throws -> [Int64] {
        var positionsByTable: [String: [Int]] = [:]
        var tables: [String] = []
        for (position, entity) in entities.enumerated() {
            let table = try schema.table(for: entity).name
            if positionsByTable[table] == nil { tables.append(table) }
            positionsByTable[table, default: []].append(position)
        }
        var keys = [Int64](repeating: 0, count: entities.count)
        try reading {
            for table in tables {
                let positions = positionsByTable[table]!
                let result = try connection.run(PostgreSQLStatements.nextKeys(of: table, count: positions.count))
                guard result.rowCount == positions.count else {
                    throw CoreDataError.make(
                        NSPersistentStoreSaveError, "The key sequence of \(table) gave no keys")
                }
                for (row, position) in positions.enumerated() {
                    guard let key = result.integer(row, 0) else {
                        throw CoreDataError.make(NSPersistentStoreSaveError, "The key sequence of \(table) gave no key")
                    }
                    keys[position] = key
                }
            }
        }
        return keys
    }

    func save(_ request: StoreSaveRequest) throws -> StoreSaveOutcome {
        // Updated and deleted rows are written in one order (entity number, then key) in every
        // process, as the version checks lock them, so two savers rarely wait for each other in
        // a circle (deletes still come before updates, and memberships follow relationships).
        var request = request
        let order = { (entity: NSEntityDescription, key: Int64) in (entity.facts.entityNumber, key) }
        request.deletes.sort { order($0.row.entity, $0.row.primaryKey) < order($1.row.entity, $1.row.primaryKey) }
        request.updates.sort { order($0.entity, $0.primaryKey) < order($1.entity, $1.primaryKey) }
        let (outcome, metadataWritten) = try writing { () throws -> (StoreSaveOutcome, Int?) in
            // Uniqueness is checked by reading, which two writers can do at once: saves that
            // check it take the store's lock, so the second reads what the first committed.
            if !request.checks.uniqueness.isEmpty { try connection.run(PostgreSQLStatements.lockStore) }
            if !request.checks.isEmpty,
                let conflicts = try request.checks.conflicts(
                    of: request, reading: PostgreSQLSaveCheckReader(store: self))
            {
                return (.conflicts(conflicts), nil)
            }
            let database = PostgreSQLDatabaseAdapter(connection: connection)
            let tombstones =
                try history?.tombstones(database, of: request.deletes.map { ($0.row.entity, $0.row.primaryKey) })
                ?? [:]
            try PostgreSQLSaveWriter(connection: connection, schema: schema).write(request)
            // Last, so the history counter stays locked (saves recording history wait) only briefly.
            let transaction = try history?.record(
                database, origin: request.origin, changes: request.historyChanges, tombstones: tombstones)
            // Heard by every listener when the transaction commits, never if it rolls back:
            // the history position, for readers to know where they are without asking.
            try connection.notify(channel: changeChannel, payload: transaction.map(String.init) ?? "")
            return (.saved, try writeMetadataIfNeeded())
        }
        if let metadataWritten { metadataState.committed(metadataWritten) }
        return outcome
    }
}

/// What a save's checks read, on the connection inside the save's transaction.
struct PostgreSQLSaveCheckReader: StoreSaveCheckReader {
    let store: PostgreSQLStore

    func versions(ofKeys keys: [Int64], in entity: NSEntityDescription) throws -> [Int64: Int64] {
        guard !keys.isEmpty else { return [:] }
        let result = try store.connection.run(
            SQLObjectReadStatements.versions(
                of: keys, table: try store.schema.table(for: entity.facts.root).name, dialect: .postgreSQL,
                // Writers run at once here: the checked rows stay as checked until the write.
                locking: true))
        var versions: [Int64: Int64] = [:]
        for row in 0..<result.rowCount {
            if let key = result.integer(row, 0), let version = result.integer(row, 1) { versions[key] = version }
        }
        return versions
    }

    func rows(for references: [StoreSaveRequest.RowReference]) throws -> [StoreRow] {
        try references.byTree.flatMap { try store.rows(of: $0.root, keys: $0.keys) }
    }

    func objectIDs(
        of entity: NSEntityDescription, where properties: [NSPropertyDescription], equal values: [Any?]
    ) throws -> [NSManagedObjectID] {
        guard let persistentStore = store.store,
            let query = try SQLObjectReadStatements.objects(
                of: entity, where: properties, equal: values, schema: store.schema)
        else { return [] }
        let result = try store.connection.run(query)
        return (0..<result.rowCount).compactMap { row in
            store.schema.objectID(
                key: result.integer(row, 0), entityNumber: result.integer(row, 1), store: persistentStore)
        }
    }
}
