import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB
internal import GRDBSQLite

/// Reading rows: fetches, counts, single rows for faults, key lists for batched
/// results, and the rows related to many objects at once for prefetching.
///
/// Statements are prepared once and cached by GRDB; lists of keys are bound as one
/// JSON array (`json_each`), so a batch of any size reuses one statement.
extension SQLiteStore {
    /// The layout for rows of these entities, built on first use.
    func layout(for entities: [NSEntityDescription]) -> SQLRowLayout {
        let key = entities.map(ObjectIdentifier.init)
        return layouts.withLock { layouts in
            if let known = layouts[key] { return known }
            let layout = SQLRowLayout(entities: entities, schema: schema)
            layouts[key] = layout
            return layout
        }
    }

    /// Runs a row query and decodes every row (from column `offset` on); `each` sees
    /// the statement positioned on each decoded row, to read extra leading columns.
    /// `cached`: whether the statement is kept prepared (not for text that is seldom the same).
    private func decodeRows(
        _ db: Database, on connection: SQLiteStoreConnection, _ query: SQLFragment, layout: SQLRowLayout,
        offset: Int32 = 0, cached: Bool = true, each: ((SQLiteStatement) -> Void)? = nil
    ) throws -> [StoreRow] {
        guard let persistentStore = store else { return [] }
        let statement = try connection.statement(db, query.sql, cached: cached)
        let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(query.arguments))
        let timestamp = StoreRow.now()
        var rows: [StoreRow] = []
        while try cursor.next() != nil {
            guard
                let row = try layout.decode(
                    statement.sqliteStatement, offset: offset, store: self, persistentStore: persistentStore,
                    timestamp: timestamp)
            else { continue }
            rows.append(row)
            each?(statement.sqliteStatement)
        }
        return rows
    }

    func fetch(_ fetch: StoreFetch) throws -> [StoreRow] {
        let layout = layout(for: fetch.matchingEntities)
        let query = try SQLQueryBuilder(schema: schema, entity: fetch.entity).rows(fetch, columns: layout.selectList)
        return try read { db, connection in
            try decodeRows(db, on: connection, query, layout: layout, cached: fetch.restrictedToKeys == nil)
        }
    }

    func fetchObjectIDs(_ fetch: StoreFetch) throws -> StoreObjectList {
        let query = try SQLQueryBuilder(schema: schema, entity: fetch.entity).objectIDs(fetch)
        var list = StoreObjectList(entities: fetch.matchingEntities)
        let indexByNumber = Dictionary(
            uniqueKeysWithValues: list.entities.enumerated().map { ($1.facts.entityNumber, $0) })
        try read { db, connection in
            let statement = try connection.statement(db, query.sql, cached: fetch.restrictedToKeys == nil)
            let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(query.arguments))
            let handle = statement.sqliteStatement
            // One entity: the query selected its keys alone (see `SQLQueryBuilder.objectIDs`).
            let single = list.entities.count == 1
            while try cursor.next() != nil {
                guard sqlite3_column_type(handle, 0) != SQLITE_NULL else { continue }
                if single {
                    list.append(key: sqlite3_column_int64(handle, 0), entityIndex: 0)
                } else if let index = indexByNumber[Int(sqlite3_column_int64(handle, 1))] {
                    list.append(key: sqlite3_column_int64(handle, 0), entityIndex: index)
                }
            }
        }
        return list
    }

    func count(_ fetch: StoreFetch) throws -> Int {
        let query = try SQLQueryBuilder(schema: schema, entity: fetch.entity).count(fetch)
        return try read { db, connection in
            let statement = try connection.statement(db, query.sql, cached: fetch.restrictedToKeys == nil)
            return try Int.fetchOne(statement, arguments: StatementArguments(query.arguments)) ?? 0
        }
    }

    func row(for objectID: NSManagedObjectID) throws -> StoreRow? {
        guard let key = objectID.primaryKey else { return nil }
        let number = objectID.entity.facts.entityNumber
        // One lock for the lookup and, the first time, the making (`layouts` is another lock,
        // never taken the other way round).
        let read = try singleRowReads.withLock { reads in
            if let known = reads[number] { return known }
            let layout = layout(for: [objectID.entity])
            let made = (
                layout: layout,
                statement: SQLObjectReadStatements.row(
                    layout.selectList, table: try schema.table(for: objectID.entity).name)
            )
            reads[number] = made
            return made
        }
        return try self.read { db, connection in
            try decodeRows(db, on: connection, read.statement.binding([key.sqlScalar]), layout: read.layout).first
        }
    }

    func rows(for objectIDs: [NSManagedObjectID]) throws -> [StoreRow] {
        // One query per table, for every entity of that table the IDs name.
        let byTable = Dictionary(grouping: objectIDs.filter { !$0.isTemporaryID }) {
            ObjectIdentifier($0.entity.facts.root)
        }
        return try read { db, connection in
            var result: [StoreRow] = []
            for ids in byTable.values {
                result += try rows(
                    of: ids[0].entity.facts.root, keys: ids.compactMap(\.primaryKey), in: db, on: connection)
            }
            return result
        }
    }

    /// The rows of `root`'s table (its entity and its subentities) with these keys, read
    /// on `db` (`connection`'s): a read, or a save's transaction.
    func rows(
        of root: NSEntityDescription, keys: [Int64], in db: Database, on connection: SQLiteStoreConnection
    ) throws -> [StoreRow] {
        let layout = layout(for: root.facts.selfAndDescendants)
        let query = SQLObjectReadStatements.rows(
            layout.selectList, table: try schema.table(for: root).name, keys: keys, dialect: .sqlite)
        return try decodeRows(db, on: connection, query, layout: layout)
    }

    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] {
        guard let key = objectID.primaryKey, let destination = relationship.destinationEntity, let store else {
            return []
        }
        let destinationTable = try schema.table(for: destination).name
        guard let storage = schema.storage(of: relationship) else { return [] }
        let query = SQLObjectReadStatements.memberIDs(of: key, storage: storage, destinationTable: destinationTable)
        return try read { db, connection in
            try Row.fetchAll(connection.statement(db, query.sql), arguments: StatementArguments(query.arguments))
                .compactMap { self.schema.objectID(inKeyColumnsOf: $0, store: store) }
        }
    }

    func relatedRows(
        of sources: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [(source: Int64, row: StoreRow)] {
        guard relationship.isToMany, let destination = relationship.destinationEntity else { return [] }
        let destinationTable = try schema.table(for: destination).name
        guard let storage = schema.storage(of: relationship) else { return [] }
        let layout = layout(for: destination.facts.selfAndDescendants)
        let query = SQLObjectReadStatements.members(
            of: sources.compactMap(\.primaryKey), storage: storage, destinationTable: destinationTable,
            columns: layout.selectList, dialect: .sqlite)
        return try read { db, connection in
            var sourceKeys: [Int64] = []
            let rows = try decodeRows(db, on: connection, query, layout: layout, offset: 1) {
                sourceKeys.append(sqlite3_column_int64($0, 0))
            }
            return Array(zip(sourceKeys, rows))
        }
    }
}
