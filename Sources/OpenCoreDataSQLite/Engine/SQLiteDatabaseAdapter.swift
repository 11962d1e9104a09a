import OpenCoreDataSQL
// Tools read stores through the adapter on their own GRDB connections.
package import GRDB
internal import GRDBSQLite

/// An SQLite connection as the engine-neutral history and batch code uses it
/// (``SQLDatabase``), inside the caller's transaction; tools read a store through it too.
package struct SQLiteDatabaseAdapter: SQLDatabase {
    let db: Database

    /// The database `db` is a connection to, inside the caller's read or write.
    package init(_ db: Database) { self.db = db }

    package var dialect: SQLDialect { .sqlite }

    @discardableResult
    package func execute(_ statement: SQLFragment) throws -> Int {
        try db.execute(statement)
        return db.changesCount
    }

    package func integer(_ query: SQLFragment) throws -> Int64? {
        // A database value, not a typed fetch: that traps on a value of another type.
        guard let value = try GRDB.Row.fetchOne(db, query)?[0] as DatabaseValue? else { return nil }
        return SQLScalar(value).exactInteger
    }

    package func forEachRow(_ query: SQLFragment, _ body: (any SQLDatabaseRow) throws -> Void) throws {
        let rows = try GRDB.Row.fetchCursor(db, query)
        while let row = try rows.next() { try body(Row(row)) }
    }

    package func forEachRow(
        _ template: SQLTemplate, _ values: [SQLScalar], _ body: (any SQLDatabaseRow) throws -> Void
    ) throws {
        let statement = try db.cachedStatement(sql: template.sql)
        let rows = try GRDB.Row.fetchCursor(statement, arguments: StatementArguments(values))
        while let row = try rows.next() { try body(Row(row)) }
    }

    package func tableExists(_ name: String) throws -> Bool { try db.tableExists(name) }

    package func columnNames(of table: String) throws -> Set<String> {
        Set(try db.columns(in: table).map { $0.name.uppercased() })
    }

    package func tableNames() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    }

    /// Bound with SQLite's C API on the cached statement: one run per changed object (see DirectBinding).
    package func run(_ template: SQLTemplate, _ values: [SQLScalar]) throws {
        let statement = try db.cachedStatement(sql: template.sql)
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        for (index, value) in values.enumerated() {
            try DirectBinding.check(DirectBinding.bind(value, handle, Int32(index + 1)), statement, db)
        }
        try DirectBinding.step(statement, db)
    }

    package func message(of error: any Error) -> String {
        guard let error = error as? DatabaseError else { return String(describing: error) }
        return error.message ?? error.description
    }

    /// A GRDB row read by position or name (GRDB's names ignore case).
    package struct Row: SQLDatabaseRow {
        let row: GRDB.Row

        init(_ row: GRDB.Row) { self.row = row }

        package var count: Int { row.count }

        package subscript(_ index: Int) -> SQLScalar { SQLScalar(row[index] as DatabaseValue) }

        package subscript(_ name: String) -> SQLScalar {
            SQLScalar(row[name] as DatabaseValue? ?? .null)
        }
    }
}
