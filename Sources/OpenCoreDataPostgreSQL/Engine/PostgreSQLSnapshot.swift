import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// A PostgreSQL store frozen for a query generation: a connection of its own holding one
/// read-only `REPEATABLE READ` transaction, whose first statement took the snapshot every
/// later read sees, however many commits follow on any connection or host.
final class PostgreSQLSnapshot: StoreSnapshot, @unchecked Sendable {
    /// The connection, inside its transaction until ``close()``.
    let connection: PostgreSQLConnection
    /// The store that opened it: a snapshot serves that store's reads only.
    weak var store: PostgreSQLStore?
    private let lock = NSLock()
    private var isClosed = false

    init(store: PostgreSQLStore) throws {
        self.store = store
        connection = try PostgreSQLStore.connect(store.settings, creatingSchema: false)
        do {
            try connection.run(PostgreSQLStatements.beginSnapshot)
            // BEGIN takes no snapshot by itself; the first statement does.
            try connection.run(PostgreSQLStatements.tableExists("Z_METADATA"))
        } catch {
            connection.close()
            throw error
        }
    }

    /// Runs a read inside the snapshot's transaction. A lost connection took the snapshot
    /// with it: reading the latest state instead would break the generation's promise, so
    /// that throws.
    func run(_ statement: SQLFragment, binaryResults: Bool = false) throws -> PostgreSQLResult {
        do {
            return try connection.run(statement, binaryResults: binaryResults)
        } catch let error as PostgreSQLError where error.kind == .connectionLost {
            throw CoreDataError.make(
                NSPersistentStoreOperationError,
                "The query generation's snapshot of the PostgreSQL store at \(store?.settings.displayURL ?? "?") was lost with its connection; set the context's query generation again",
                [NSUnderlyingErrorKey: error as NSError])
        }
    }

    func close() {
        let first = lock.withLock { () -> Bool in
            defer { isClosed = true }
            return !isClosed
        }
        guard first else { return }
        _ = try? connection.execute("ROLLBACK")
        connection.close()
    }

    deinit { close() }
}
