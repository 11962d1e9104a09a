import OpenCoreDataCore
import OpenCoreDataSQL

/// A PostgreSQL connection as the engine-neutral history and batch code uses it
/// (``SQLDatabase``), inside the caller's transaction.
struct PostgreSQLDatabaseAdapter: SQLDatabase {
    let connection: PostgreSQLConnection

    var dialect: SQLDialect { .postgreSQL }

    @discardableResult
    func execute(_ statement: SQLFragment) throws -> Int {
        try connection.run(statement).affectedRowCount
    }

    func integer(_ query: SQLFragment) throws -> Int64? {
        let result = try connection.run(query)
        return result.rowCount > 0 ? result.scalar(0, 0).exactInteger : nil
    }

    func forEachRow(_ query: SQLFragment, _ body: (any SQLDatabaseRow) throws -> Void) throws {
        let result = try connection.run(query)
        for row in 0..<result.rowCount { try body(Row(result: result, row: row)) }
    }

    /// libpq sends each statement's text; there is nothing to prepare.
    func forEachRow(
        _ template: SQLTemplate, _ values: [SQLScalar], _ body: (any SQLDatabaseRow) throws -> Void
    ) throws {
        try forEachRow(template.binding(values), body)
    }

    func tableExists(_ name: String) throws -> Bool {
        try connection.run(PostgreSQLStatements.tableExists(name)).scalar(0, 0) == .integer(1)
    }

    func columnNames(of table: String) throws -> Set<String> {
        let result = try connection.run(PostgreSQLStatements.columnNames(of: table))
        return Set((0..<result.rowCount).compactMap { result.text($0, 0)?.uppercased() })
    }

    func run(_ template: SQLTemplate, _ values: [SQLScalar]) throws {
        try connection.run(template, values)
    }

    func message(of error: any Error) -> String {
        (error as? PostgreSQLError)?.message ?? String(describing: error)
    }

    /// A row of a libpq result. PostgreSQL names the columns of unquoted identifiers in lower case.
    struct Row: SQLDatabaseRow {
        let result: PostgreSQLResult
        let row: Int

        var count: Int { result.columnCount }

        subscript(_ index: Int) -> SQLScalar { result.scalar(row, index) }

        subscript(_ name: String) -> SQLScalar {
            guard let column = result.columnIndex(named: name.lowercased()) else { return .null }
            return result.scalar(row, column)
        }
    }
}
