import OpenCoreDataCore
internal import GRDB

/// One connection the store reads on (its main connection, a pooled read-only one, or a
/// query generation's), with its share of GRDB's statement cache.
final class SQLiteStoreConnection: @unchecked Sendable {
    let database: DatabaseQueue
    /// Touched only inside `database`'s serialized access, which is what makes the class
    /// safe to share: GRDB runs one block at a time on a connection.
    private var statements = StatementCacheBudget()

    init(_ database: DatabaseQueue) {
        self.database = database
    }

    /// The prepared statement for `sql`: from this connection's cache, or made for this one
    /// use when `cached` is false (text that is seldom the same, such as a fetch restricted
    /// to listed keys). `db` is this connection's, inside its access.
    func statement(_ db: Database, _ sql: String, cached: Bool = true) throws -> Statement {
        cached ? try statements.statement(db, sql) : try db.makeStatement(sql: sql)
    }
}
