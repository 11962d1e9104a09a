import OpenCoreDataCore

/// A database connection as persistent history uses it: inside the caller's transaction,
/// running the statements ``SQLHistory`` builds. Each engine conforms its connection.
package protocol SQLHistoryDatabase {
    /// The SQL the database speaks.
    var dialect: SQLDialect { get }

    /// Runs a statement that returns no rows; how many rows it changed.
    @discardableResult
    func execute(_ statement: SQLFragment) throws -> Int

    /// The first column of the first row of `query` as an integer; `nil` for no row or NULL.
    func integer(_ query: SQLFragment) throws -> Int64?

    /// Calls `body` with each row of `query`, in order.
    func forEachRow(_ query: SQLFragment, _ body: (any SQLHistoryRow) throws -> Void) throws

    /// Whether the store's database has a table named `name`.
    func tableExists(_ name: String) throws -> Bool

    /// The names of the columns of `table`, upper-cased.
    func columnNames(of table: String) throws -> Set<String>

    /// Runs `template` with `values` bound to its placeholders: once per recorded change,
    /// so an engine that prepares statements prepares it once.
    func run(_ template: SQLTemplate, _ values: [SQLScalar]) throws
}

/// One row of a history query, its values read by position or by column name.
package protocol SQLHistoryRow {
    /// The value of column `index`.
    subscript(_ index: Int) -> SQLScalar { get }
    /// The value of the column named `name` (any case); NULL when the row has no such column.
    subscript(_ name: String) -> SQLScalar { get }
}
