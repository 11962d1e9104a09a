import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// An SQLite store frozen for a query generation: a read-only connection of its own that
/// keeps one read transaction open. In WAL mode SQLite serves a reader the database as
/// it was when its transaction began, however many commits follow (from this process
/// or another), so every read on this connection sees that one moment.
///
/// GRDB's `DatabaseSnapshot` does the same but needs a `DatabasePool`; the store keeps
/// its own connections (``SQLiteReadConnections``) and opens one such connection per
/// generation instead.
final class SQLiteSnapshot: StoreSnapshot, @unchecked Sendable {
    /// The connection, inside its read transaction until ``close()``.
    let connection: SQLiteStoreConnection
    private var database: DatabaseQueue { connection.database }
    /// The store that opened it: a snapshot serves that store's reads only.
    let store: SQLiteStore
    /// Set by the first ``close()`` (the generation's, or the deinit's).
    private var isClosed = false

    /// Opens a connection with `configuration` and starts its read transaction.
    init(store: SQLiteStore, path: String, configuration: Configuration) throws {
        self.store = store
        connection = SQLiteStoreConnection(try DatabaseQueue(path: path, configuration: configuration))
        do {
            try database.inDatabase { db in
                try db.beginTransaction(.deferred)
                // BEGIN takes no snapshot by itself; the first read does.
                _ = try Int.fetchOne(db, SQLCatalogStatements.countSchemaEntries)
            }
        } catch {
            try? database.close()
            throw error
        }
    }

    /// Runs `block` inside the open transaction. A transaction that ended (the connection
    /// failed) would read the latest data, so that throws instead.
    func read<T>(_ block: (Database, SQLiteStoreConnection) throws -> T) throws -> T {
        try database.inDatabase { db in
            guard db.isInsideTransaction else {
                throw CoreDataError.make(
                    NSPersistentStoreOperationError,
                    "The query generation's snapshot of the store at \(store.url?.path ?? "?") was lost; set the context's query generation again"
                )
            }
            return try block(db, connection)
        }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        try? database.inDatabase { db in
            if db.isInsideTransaction { try db.rollback() }
        }
        try? database.close()
    }

    deinit { close() }
}
