import OpenCoreDataCore

/// A database connection inside the caller's transaction, as the engine-neutral parts
/// of the SQL stores use it: persistent history (``SQLHistory``) and batch requests
/// (``SQLBatchRequests``) run their statements through it. Each engine conforms an
/// adapter of its connection.
package protocol SQLDatabase {
    /// The SQL the database speaks.
    var dialect: SQLDialect { get }

    /// Runs a statement that returns no rows; how many rows it changed.
    @discardableResult
    func execute(_ statement: SQLFragment) throws -> Int

    /// The first column of the first row of `query` as an integer; `nil` for no row or NULL.
    func integer(_ query: SQLFragment) throws -> Int64?

    /// Calls `body` with each row of `query`, in order.
    func forEachRow(_ query: SQLFragment, _ body: (any SQLDatabaseRow) throws -> Void) throws

    /// Calls `body` with each row of `template` run with `values`: a query run once per
    /// row of a batch, so an engine that prepares statements prepares it once.
    func forEachRow(
        _ template: SQLTemplate, _ values: [SQLScalar], _ body: (any SQLDatabaseRow) throws -> Void
    ) throws

    /// Whether the store's database has a table named `name`.
    func tableExists(_ name: String) throws -> Bool

    /// The names of the columns of `table`, upper-cased.
    func columnNames(of table: String) throws -> Set<String>

    /// The names of the store's tables, as the database spells them (PostgreSQL folds the
    /// unquoted names Core Data's tables are made with to lower case), sorted.
    func tableNames() throws -> [String]

    /// Runs `template` with `values` bound to its placeholders: once per recorded change
    /// or inserted row, so an engine that prepares statements prepares it once.
    func run(_ template: SQLTemplate, _ values: [SQLScalar]) throws

    /// The database's own words for `error`, one of the errors this database threw.
    func message(of error: any Error) -> String
}

/// One row of a query, its values read by position or by column name.
package protocol SQLDatabaseRow {
    /// How many columns the row has.
    var count: Int { get }
    /// The value of column `index`.
    subscript(_ index: Int) -> SQLScalar { get }
    /// The value of the column named `name` (any case); NULL when the row has no such column.
    subscript(_ name: String) -> SQLScalar { get }
}

extension SQLDatabase {
    /// The first column of every row of `query` as integers (NULLs and other values left out).
    package func integers(_ query: SQLFragment) throws -> [Int64] {
        var values: [Int64] = []
        try forEachRow(query) { row in
            if let value = row[0].exactInteger { values.append(value) }
        }
        return values
    }

    /// Whether `query` returns a row.
    package func hasRow(_ query: SQLFragment) throws -> Bool {
        var found = false
        try forEachRow(query) { _ in found = true }
        return found
    }

    /// The object IDs named by the key and entity number in the first two columns of each row of `query`.
    package func objectIDs(
        _ query: SQLFragment, schema: SQLSchema, store: NSPersistentStore
    ) throws -> [NSManagedObjectID] {
        var ids: [NSManagedObjectID] = []
        try forEachRow(query) { row in
            if let id = schema.objectID(key: row[0].exactInteger, entityNumber: row[1].exactInteger, store: store) {
                ids.append(id)
            }
        }
        return ids
    }
}
