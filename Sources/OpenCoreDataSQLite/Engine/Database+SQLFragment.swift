import OpenCoreDataSQL
internal import GRDB

// Running what the statement builders return: the fragment's text with its arguments.

extension Database {
    /// Runs `statement`, which returns no rows (it may hold several statements when it binds nothing).
    func execute(_ statement: SQLFragment) throws {
        try execute(sql: statement.sql, arguments: StatementArguments(statement.arguments))
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// The first column of the first row of `query`; `nil` when there is none or it is NULL.
    static func fetchOne(_ db: Database, _ query: SQLFragment) throws -> Self? {
        try fetchOne(db, sql: query.sql, arguments: StatementArguments(query.arguments))
    }

    /// The first column of every row of `query` (NULLs left out).
    static func fetchAll(_ db: Database, _ query: SQLFragment) throws -> [Self] {
        try fetchAll(db, sql: query.sql, arguments: StatementArguments(query.arguments))
    }
}

extension Row {
    /// The first row of `query`.
    static func fetchOne(_ db: Database, _ query: SQLFragment) throws -> Row? {
        try fetchOne(db, sql: query.sql, arguments: StatementArguments(query.arguments))
    }

    /// Every row of `query`.
    static func fetchAll(_ db: Database, _ query: SQLFragment) throws -> [Row] {
        try fetchAll(db, sql: query.sql, arguments: StatementArguments(query.arguments))
    }

    /// The rows of `query`, one at a time.
    static func fetchCursor(_ db: Database, _ query: SQLFragment) throws -> RowCursor {
        try fetchCursor(db, sql: query.sql, arguments: StatementArguments(query.arguments))
    }
}
