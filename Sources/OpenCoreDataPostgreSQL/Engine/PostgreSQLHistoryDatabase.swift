import OpenCoreDataCore
import OpenCoreDataSQL

/// A PostgreSQL connection as persistent history uses it (``SQLHistory``), inside the
/// caller's transaction.
struct PostgreSQLHistoryDatabase: SQLHistoryDatabase {
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

    func forEachRow(_ query: SQLFragment, _ body: (any SQLHistoryRow) throws -> Void) throws {
        let result = try connection.run(query)
        for row in 0..<result.rowCount { try body(HistoryRow(result: result, row: row)) }
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

    /// A row of a libpq result. PostgreSQL names the columns of unquoted identifiers in lower case.
    struct HistoryRow: SQLHistoryRow {
        let result: PostgreSQLResult
        let row: Int

        subscript(_ index: Int) -> SQLScalar { result.scalar(row, index) }

        subscript(_ name: String) -> SQLScalar {
            guard let column = result.columnIndex(named: name.lowercased()) else { return .null }
            return result.scalar(row, column)
        }
    }
}
