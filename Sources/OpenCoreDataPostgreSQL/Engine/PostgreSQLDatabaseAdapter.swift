import OpenCoreDataCore
import OpenCoreDataSQL

/// A PostgreSQL connection as the engine-neutral history and batch code uses it
/// (``SQLDatabase``), inside the caller's transaction; tools read a store through it too.
package struct PostgreSQLDatabaseAdapter: SQLDatabase {
    let connection: PostgreSQLConnection

    /// The database `connection` reads, in its session's schema.
    package init(connection: PostgreSQLConnection) { self.connection = connection }

    package var dialect: SQLDialect { .postgreSQL }

    @discardableResult
    package func execute(_ statement: SQLFragment) throws -> Int {
        try connection.run(statement).affectedRowCount
    }

    package func integer(_ query: SQLFragment) throws -> Int64? {
        let result = try connection.run(query)
        return result.rowCount > 0 ? result.scalar(0, 0).exactInteger : nil
    }

    package func forEachRow(_ query: SQLFragment, _ body: (any SQLDatabaseRow) throws -> Void) throws {
        let result = try connection.run(query)
        for row in 0..<result.rowCount { try body(Row(result: result, row: row)) }
    }

    /// libpq sends each statement's text; there is nothing to prepare.
    package func forEachRow(
        _ template: SQLTemplate, _ values: [SQLScalar], _ body: (any SQLDatabaseRow) throws -> Void
    ) throws {
        try forEachRow(template.binding(values), body)
    }

    package func tableExists(_ name: String) throws -> Bool {
        try connection.run(PostgreSQLStatements.tableExists(name)).scalar(0, 0) == .integer(1)
    }

    package func columnNames(of table: String) throws -> Set<String> {
        let result = try connection.run(PostgreSQLStatements.columnNames(of: table))
        return Set((0..<result.rowCount).compactMap { result.text($0, 0)?.uppercased() })
    }

    package func tableNames() throws -> [String] {
        let result = try connection.run(PostgreSQLStatements.tableNames)
        return (0..<result.rowCount).compactMap { result.text($0, 0) }
    }

    package func run(_ template: SQLTemplate, _ values: [SQLScalar]) throws {
        try connection.run(template, values)
    }

    package func message(of error: any Error) -> String {
        (error as? PostgreSQLError)?.message ?? String(describing: error)
    }

    /// A row of a libpq result. PostgreSQL names the columns of unquoted identifiers in lower case.
    package struct Row: SQLDatabaseRow {
        let result: PostgreSQLResult
        let row: Int

        package var count: Int { result.columnCount }

        package subscript(_ index: Int) -> SQLScalar { result.scalar(row, index) }

        package subscript(_ name: String) -> SQLScalar {
            guard let column = result.columnIndex(named: name.lowercased()) else { return .null }
            return result.scalar(row, column)
        }
    }
}
