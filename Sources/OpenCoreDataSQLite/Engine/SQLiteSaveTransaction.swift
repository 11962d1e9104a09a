import OpenCoreDataCore
import GRDB
import GRDBSQLite

/// What a save's request builder gets inside the SQLite transaction: the key allocator,
/// and reads on the same connection for the save's conflict checks.
struct SQLiteSaveTransaction: PrimaryKeyAllocator, SaveTransactionReader {
    private var keys: SQLiteKeyAllocator
    private let store: SQLiteStore
    private let db: Database

    init(store: SQLiteStore, db: Database) {
        self.store = store
        self.db = db
        keys = SQLiteKeyAllocator(db: db, schema: store.schema)
    }

    mutating func nextKey(for entity: NSEntityDescription) throws -> Int64 { try keys.nextKey(for: entity) }

    /// Records the keys handed out in `Z_PRIMARYKEY`.
    func flush() throws { try keys.flush() }

    func versions(ofKeys keys: [Int64], in entity: NSEntityDescription) throws -> [Int64: Int64] {
        guard !keys.isEmpty else { return [:] }
        let query = SQLObjectReadStatements.versions(of: keys, table: try store.schema.table(for: entity.facts.root).name)
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

    func rows(for objectIDs: [NSManagedObjectID]) throws -> [StoreRow] {
        guard let persistentStore = store.store else { return [] }
        var result: [StoreRow] = []
        let byTable = Dictionary(grouping: objectIDs.filter { !$0.isTemporaryID }) { ObjectIdentifier($0.entity.facts.root) }
        for ids in byTable.values {
            let root = ids[0].entity.facts.root
            let layout = store.layout(for: root.facts.selfAndDescendants)
            let query = SQLObjectReadStatements.rows(layout.selectList, table: try store.schema.table(for: root).name, keys: ids.compactMap(\.primaryKey))
            let statement = try db.makeStatement(sql: query.sql)
            let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(query.arguments))
            let timestamp = StoreRow.now()
            while try cursor.next() != nil {
                if let row = try layout.decode(statement.sqliteStatement, store: store, persistentStore: persistentStore, timestamp: timestamp) {
                    result.append(row)
                }
            }
        }
        return result
    }

    func objectIDs(of entity: NSEntityDescription, where properties: [NSPropertyDescription], equal values: [Any?]) throws -> [NSManagedObjectID] {
        guard let persistentStore = store.store, properties.count == values.count, !properties.isEmpty else { return [] }
        var columns: [String] = []
        var arguments: [DatabaseValue] = []
        for (property, value) in zip(properties, values) {
            guard let column = store.schema.column(for: property) else { return [] }
            columns.append(column)
            switch property {
            case is NSRelationshipDescription:
                guard let key = (value as? NSManagedObjectID)?.primaryKey else { return [] }
                arguments.append(key.databaseValue)
            case let attribute as NSAttributeDescription:
                arguments.append(try SQLiteValueCoding.databaseValue(value, type: attribute.attributeType, transformerName: attribute.valueTransformerName))
            default:
                return []
            }
        }
        let query = SQLObjectReadStatements.objects(of: entity, table: try store.schema.table(for: entity.facts.root).name, where: columns, equal: arguments)
        let statement = try db.cachedStatement(sql: query.sql)
        let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(query.arguments))
        let handle = statement.sqliteStatement
        var result: [NSManagedObjectID] = []
        while try cursor.next() != nil {
            guard let exact = store.schema.entitiesByNumber[Int(sqlite3_column_int64(handle, 1))] else { continue }
            result.append(NSManagedObjectID(entity: exact, store: persistentStore, primaryKey: sqlite3_column_int64(handle, 0)))
        }
        return result
    }
}
