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
            of: keys, table: try store.schema.table(for: entity.facts.root).name)
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
        var result: [StoreRow] = []
        for rows in Dictionary(grouping: references, by: { ObjectIdentifier($0.entity.facts.root) }).values {
            result += try store.rows(of: rows[0].entity.facts.root, keys: rows.map(\.primaryKey), in: db)
        }
        return result
    }

    func objectIDs(
        of entity: NSEntityDescription, where properties: [NSPropertyDescription], equal values: [Any?]
    ) throws -> [NSManagedObjectID] {
        guard let persistentStore = store.store, properties.count == values.count, !properties.isEmpty else {
            return []
        }
        var columns: [String] = []
        var arguments: [SQLScalar] = []
        for (property, value) in zip(properties, values) {
            guard let column = store.schema.column(for: property) else { return [] }
            columns.append(column)
            switch property {
            case is NSRelationshipDescription:
                guard let key = (value as? NSManagedObjectID)?.primaryKey else { return [] }
                arguments.append(key.sqlScalar)
            case let attribute as NSAttributeDescription:
                arguments.append(
                    try SQLValueCoding.scalar(
                        value, type: attribute.attributeType, transformerName: attribute.valueTransformerName))
            default:
                return []
            }
        }
        let query = SQLObjectReadStatements.objects(
            of: entity, table: try store.schema.table(for: entity.facts.root).name, where: columns, equal: arguments)
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
