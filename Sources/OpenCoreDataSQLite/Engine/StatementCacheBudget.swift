import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Keeps a connection's GRDB statement cache bounded. GRDB never evicts, and fetch SQL
/// varies without end (IN lists of any length, offsets), so after 256 distinct texts the
/// cache is emptied and fills again with what is in use. One per connection.
struct StatementCacheBudget {
    private var texts = Set<String>()

    /// The prepared statement for `sql` from `db`'s cache.
    mutating func statement(_ db: Database, _ sql: String) throws -> Statement {
        if !texts.contains(sql) {
            if texts.count >= 256 {
                db.releaseMemory()
                texts.removeAll()
            }
            texts.insert(sql)
        }
        return try db.cachedStatement(sql: sql)
    }
}
