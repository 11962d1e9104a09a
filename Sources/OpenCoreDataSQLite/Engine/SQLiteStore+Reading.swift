import OpenCoreDataCore
import GRDB
import GRDBSQLite

/// Reading rows: fetches, counts, single rows for faults, key lists for batched
/// results, and the rows related to many objects at once for prefetching.
///
/// Statements are prepared once and cached by GRDB; lists of keys are bound as one
/// JSON array (`json_each`), so a batch of any size reuses one statement.
extension SQLiteStore {
    /// A prepared read statement from GRDB's cache of the connection reading now (the
    /// main one, or a query generation's), kept within that connection's budget.
    func preparedStatement(_ db: Database, _ sql: String) throws -> Statement {
        if let readingSnapshot { return try readingSnapshot.statements.statement(db, sql) }
        return try statements.statement(db, sql)
    }

    /// The layout for rows of these entities, built on first use.
    func layout(for entities: [NSEntityDescription]) -> SQLiteRowLayout {
        let key = entities.map(ObjectIdentifier.init)
        if let known = layouts[key] { return known }
        let layout = SQLiteRowLayout(entities: entities, schema: schema)
        layouts[key] = layout
        return layout
    }

    /// Runs a row query and decodes every row (from column `offset` on); `each` sees
    /// the statement positioned on each decoded row, to read extra leading columns.
    private func decodeRows(_ db: Database, sql: String, arguments: [DatabaseValue], layout: SQLiteRowLayout, offset: Int32 = 0, cached: Bool = true, each: ((SQLiteStatement) -> Void)? = nil) throws -> [StoreRow] {
        guard let persistentStore = store else { return [] }
        let statement = cached ? try preparedStatement(db, sql) : try db.makeStatement(sql: sql)
        let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(arguments))
        let timestamp = StoreRow.now()
        var rows: [StoreRow] = []
        while try cursor.next() != nil {
            guard let row = try layout.decode(statement.sqliteStatement, offset: offset, store: self, persistentStore: persistentStore, timestamp: timestamp) else { continue }
            rows.append(row)
            each?(statement.sqliteStatement)
        }
        return rows
    }

    private func limitClause(_ fetch: StoreFetch) -> String {
        SQLQueryBuilder.window(limit: fetch.limit, offset: fetch.offset)
    }

    func fetch(_ fetch: StoreFetch) throws -> [StoreRow] {
        let builder = SQLQueryBuilder(schema: schema, entity: fetch.entity)
        let body = try builder.fromAndWhere(fetch)
        let layout = layout(for: fetch.matchingEntities)
        let sql = "SELECT \(layout.selectList) \(body)\(limitClause(fetch))"
        return try read { db in
            try decodeRows(db, sql: sql, arguments: builder.arguments, layout: layout, cached: fetch.restrictedToKeys == nil)
        }
    }

    func fetchObjectIDs(_ fetch: StoreFetch) throws -> StoreObjectList {
        let builder = SQLQueryBuilder(schema: schema, entity: fetch.entity)
        let sql = "SELECT t0.Z_PK, t0.Z_ENT \(try builder.fromAndWhere(fetch))\(limitClause(fetch))"
        var list = StoreObjectList(entities: fetch.matchingEntities)
        let indexByNumber = Dictionary(uniqueKeysWithValues: list.entities.enumerated().map { ($1.facts.entityNumber, $0) })
        try read { db in
            let statement = fetch.restrictedToKeys == nil ? try preparedStatement(db, sql) : try db.makeStatement(sql: sql)
            let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(builder.arguments))
            let handle = statement.sqliteStatement
            let single = list.entities.count == 1 ? list.entities[0].facts.entityNumber : nil
            while try cursor.next() != nil {
                guard sqlite3_column_type(handle, 0) != SQLITE_NULL else { continue }
                let number = Int(sqlite3_column_int64(handle, 1))
                if let single {
                    if number == single { list.append(key: sqlite3_column_int64(handle, 0), entityIndex: 0) }
                } else if let index = indexByNumber[number] {
                    list.append(key: sqlite3_column_int64(handle, 0), entityIndex: index)
                }
            }
        }
        return list
    }

    func count(_ fetch: StoreFetch) throws -> Int {
        let builder = SQLQueryBuilder(schema: schema, entity: fetch.entity)
        var plain = fetch
        plain.sortDescriptors = []
        let sql = "SELECT COUNT(*) \(try builder.fromAndWhere(plain))"
        return try read { db in
            let statement = fetch.restrictedToKeys == nil ? try preparedStatement(db, sql) : try db.makeStatement(sql: sql)
            return try Int.fetchOne(statement, arguments: StatementArguments(builder.arguments)) ?? 0
        }
    }

    func row(for objectID: NSManagedObjectID) throws -> StoreRow? {
        guard let key = objectID.primaryKey else { return nil }
        let number = objectID.entity.facts.entityNumber
        let read: (layout: SQLiteRowLayout, sql: String)
        if let known = singleRowReads[number] {
            read = known
        } else {
            let layout = layout(for: [objectID.entity])
            read = (layout, "SELECT \(layout.selectList) FROM \(try schema.table(for: objectID.entity).name) t0 WHERE t0.Z_PK = ?")
            singleRowReads[number] = read
        }
        return try self.read { db in try decodeRows(db, sql: read.sql, arguments: [key.databaseValue], layout: read.layout).first }
    }

    func rows(for objectIDs: [NSManagedObjectID]) throws -> [StoreRow] {
        var result: [StoreRow] = []
        // One query per table, for every entity of that table the IDs name.
        let byTable = Dictionary(grouping: objectIDs.filter { !$0.isTemporaryID }) { ObjectIdentifier($0.entity.facts.root) }
        for ids in byTable.values {
            let root = ids[0].entity.facts.root
            let table = try schema.table(for: root)
            let layout = layout(for: root.facts.selfAndDescendants)
            let sql = "SELECT \(layout.selectList) FROM \(table.name) t0 WHERE t0.Z_PK IN (SELECT value FROM json_each(?))"
            let keys = Self.jsonArray(ids.compactMap(\.primaryKey))
            result += try read { db in try decodeRows(db, sql: sql, arguments: [keys.databaseValue], layout: layout) }
        }
        return result
    }

    func relatedObjectIDs(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription) throws -> [NSManagedObjectID] {
        guard let key = objectID.primaryKey, let destination = relationship.destinationEntity, let store else { return [] }
        let destinationTable = try schema.table(for: destination)
        let sql: String
        switch schema.storage(of: relationship) {
        case .joinTable(let join):
            let order = join.orderColumn.map { " ORDER BY j.\($0)" } ?? ""
            sql = "SELECT t.Z_PK, t.Z_ENT FROM \(join.name) j JOIN \(destinationTable.name) t ON t.Z_PK = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) = ?\(order)"
        case .hiddenColumn(let hidden):
            sql = "SELECT Z_PK, Z_ENT FROM \(destinationTable.name) WHERE \(hidden) = ?"
        case .inverseKey(_, let column, let orderColumn):
            let order = orderColumn.map { " ORDER BY \($0), Z_PK" } ?? ""
            sql = "SELECT Z_PK, Z_ENT FROM \(destinationTable.name) WHERE \(column) = ?\(order)"
        case nil:
            return []
        }
        return try read { db in
            try Row.fetchAll(preparedStatement(db, sql), arguments: [key]).compactMap { row in
                guard let key: Int64 = row[0], let entityNumber: Int = row[1], let entity = self.schema.entitiesByNumber[entityNumber] else { return nil }
                return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
            }
        }
    }

    func relatedRows(of sources: [NSManagedObjectID], relationship: NSRelationshipDescription) throws -> [(source: Int64, row: StoreRow)] {
        guard relationship.isToMany, let destination = relationship.destinationEntity else { return [] }
        let destinationTable = try schema.table(for: destination)
        let layout = layout(for: destination.facts.selfAndDescendants)
        let keys = Self.jsonArray(sources.compactMap(\.primaryKey))
        let sql: String
        switch schema.storage(of: relationship) {
        case .joinTable(let join):
            let order = join.orderColumn.map { ", j.\($0)" } ?? ""
            sql = "SELECT j.\(join.sourceColumn), \(layout.selectList) FROM \(join.name) j JOIN \(destinationTable.name) t0 ON t0.Z_PK = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) IN (SELECT value FROM json_each(?)) ORDER BY j.\(join.sourceColumn)\(order)"
        case .hiddenColumn(let hidden):
            sql = "SELECT t0.\(hidden), \(layout.selectList) FROM \(destinationTable.name) t0 WHERE t0.\(hidden) IN (SELECT value FROM json_each(?))"
        case .inverseKey(_, let column, let orderColumn):
            let order = orderColumn.map { " ORDER BY t0.\(column), t0.\($0), t0.Z_PK" } ?? ""
            sql = "SELECT t0.\(column), \(layout.selectList) FROM \(destinationTable.name) t0 WHERE t0.\(column) IN (SELECT value FROM json_each(?))\(order)"
        case nil:
            return []
        }
        return try read { db in
            var sourceKeys: [Int64] = []
            let rows = try decodeRows(db, sql: sql, arguments: [keys.databaseValue], layout: layout, offset: 1) { sourceKeys.append(sqlite3_column_int64($0, 0)) }
            return Array(zip(sourceKeys, rows))
        }
    }

    /// `[1,2,3]`: keys bound as one argument and expanded by `json_each`.
    static func jsonArray(_ keys: [Int64]) -> String {
        var text = "["
        text.reserveCapacity(keys.count * 8 + 2)
        for (index, key) in keys.enumerated() {
            if index > 0 { text += "," }
            text += String(key)
        }
        return text + "]"
    }
}
