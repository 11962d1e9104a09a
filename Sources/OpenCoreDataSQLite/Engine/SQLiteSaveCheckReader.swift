import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB
internal import GRDBSQLite

/// The reads of a save's checks (``StoreSaveChecks``), on the connection of the save's
/// transaction, so they see exactly the rows the save would change.
struct SQLiteSaveCheckReader: StoreSaveCheckReader {
    let store: SQLiteStore
    let db: Database

    func versions(ofKeys keys: [Int64], in entity: NSEntityDescription) throws -> [Int64: Int64] {
        guard !keys.isEmpty else { return [:] }
        let query = SQLObjectReadStatements.versions(
            of: keys, table: try store.schema.table(for: entity.facts.root).name, dialect: .sqlite,
            // The save's transaction is SQLite's one writer: nothing changes the rows meanwhile.
            locking: false)
        let statement = try db.cachedStatement(sql: query.sql)
        let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(query.arguments))
        var result: [Int64: Int64] = [:]
        result.reserveCapacity(keys.count)
        let handle = statement.sqliteStatement
        while try cursor.next() != nil {
            result[sqlite3_column_int64(handle, 0)] = sqlite3_column_int64(handle, 1)
        }
        return result
    }

    func rows(for references: [StoreSaveRequest.RowReference]) throws -> [StoreRow] {
        try references.byTree.flatMap {
            try store.rows(of: $0.root, keys: $0.keys, in: db, on: store.connections.main)
        }
    }

    func objectIDs(
        of entity: NSEntityDescription, where properties: [NSPropertyDescription], equal values: [Any?]
    ) throws -> [NSManagedObjectID] {
        guard let persistentStore = store.store,
            let query = try SQLObjectReadStatements.objects(
                of: entity, where: properties, equal: values, schema: store.schema)
        else { return [] }
        let statement = try db.cachedStatement(sql: query.sql)
        let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(query.arguments))
        let handle = statement.sqliteStatement
        var result: [NSManagedObjectID] = []
        while try cursor.next() != nil {
            guard let exact = store.schema.entitiesByNumber[Int(sqlite3_column_int64(handle, 1))] else { continue }
            result.append(
                NSManagedObjectID(entity: exact, store: persistentStore, primaryKey: sqlite3_column_int64(handle, 0)))
        }
        return result
    }
}
