import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// An open PostgreSQL store: Core Data's tables in one schema of a database, read and
/// written over one libpq connection with OpenCoreDataSQL's statements in PostgreSQL's
/// dialect.
///
/// Calls arrive serialized by the coordinator; the connection serializes its own
/// statements too. Keys come from one sequence per table, so concurrent savers on other
/// connections or hosts never wait for each other to number new rows.
final class PostgreSQLStore: PersistentStoreBackend {
    let connection: PostgreSQLConnection
    let settings: PostgreSQLConnectionSettings
    let schema: SQLSchema
    /// The persistent history writer and reader, when the store tracks history.
    let history: SQLHistory?
    weak var store: NSPersistentStore?

    /// Guards the layouts and the listener.
    private let lock = NSLock()
    /// The metadata, and which setting of it the database holds.
    let metadataState: SQLStoreMetadata
    /// Row layouts by the entities they read, built on first use.
    private var layouts: [[ObjectIdentifier]: SQLRowLayout] = [:]
    /// Whether a save's transaction is running: its reads must neither reconnect (the new
    /// session would run the rest of the save outside the transaction) nor wrap errors.
    private var inTransaction = false
    /// The listener of ``observeChanges(_:)``, until ``close()``.
    private var listener: PostgreSQLChangeListener?
    /// The query generation's snapshot the current reads see (``reading(at:_:)``), if any.
    var readingSnapshot: PostgreSQLSnapshot?

    /// The notification channel of this store, which every save notifies.
    var changeChannel: String {
        PostgreSQLChangeListener.channel(ofStore: metadata[NSStoreUUIDKey] as? String ?? "")
    }

    init(
        connection: PostgreSQLConnection, settings: PostgreSQLConnectionSettings, schema: SQLSchema,
        history: SQLHistory?, metadata: [String: Any]
    ) {
        self.connection = connection
        self.settings = settings
        self.schema = schema
        self.history = history
        self.metadataState = SQLStoreMetadata(metadata)
    }

    // MARK: Metadata

    var metadata: [String: Any] { metadataState.current }

    func setMetadata(_ metadata: [String: Any]) { metadataState.set(metadata) }

    func saveMetadata() throws {
        guard metadataState.hasUnwrittenChanges else { return }
        if let written = try writing({ try writeMetadataIfNeeded() }) { metadataState.committed(written) }
    }

    /// Writes metadata changed since the last committed write, inside the caller's
    /// transaction; the version written, for `SQLStoreMetadata.committed(_:)` once it commits.
    func writeMetadataIfNeeded() throws -> Int? {
        guard let pending = try metadataState.pendingWrite(storeType: NSPostgreSQLStoreType) else { return nil }
        try connection.run(SQLMetadataStatements.update(plist: pending.plist))
        return pending.version
    }

    // MARK: Layouts

    /// The layout for rows of these entities.
    func layout(for entities: [NSEntityDescription]) -> SQLRowLayout {
        let key = entities.map(ObjectIdentifier.init)
        return lock.withLock {
            if let layout = layouts[key] { return layout }
            let layout = SQLRowLayout(entities: entities, schema: schema)
            layouts[key] = layout
            return layout
        }
    }

    // MARK: Running statements

    /// Runs `body` in one transaction; the server's errors become Core Data's.
    ///
    /// A connection lost before the commit was sent took the transaction with it (the server
    /// rolls back), so the store connects again and runs `body` once more: a save is written
    /// whole or not at all. Lost while committing, the outcome is unknown, and the error says so.
    /// A transaction the server gave up (a deadlock, a serialization failure) was rolled back
    /// whole too, and runs again, up to five times in all.
    func writing<T>(_ body: () throws -> T) throws -> T {
        try reconnecting(code: NSPersistentStoreSaveError, retrying: { $0.statement != "COMMIT" }) {
            var attempt = 1
            while true {
                do {
                    return try connection.transaction {
                        inTransaction = true
                        defer { inTransaction = false }
                        return try body()
                    }
                } catch let error as PostgreSQLError where error.isTransactionConflict && attempt < 5 {
                    usleep(UInt32.random(in: 1_000...20_000) * UInt32(attempt))
                    attempt += 1
                }
            }
        }
    }

    /// Runs a read; the server's errors become Core Data's. After a lost connection the
    /// store connects again and reads once more (a read changes nothing).
    func reading<T>(_ body: () throws -> T) throws -> T {
        // Inside a save, the save's transaction handles a lost connection, and its errors.
        if inTransaction { return try body() }
        return try reconnecting(code: NSPersistentStoreOperationError, retrying: { _ in true }, body)
    }

    /// Runs `operation`; when it lost the connection and `retrying` says it may run again,
    /// connects again and runs it once more. Server errors become Core Data's, with `code`.
    private func reconnecting<T>(
        code: Int, retrying: (PostgreSQLError) -> Bool, _ operation: () throws -> T
    ) throws -> T {
        do {
            return try operation()
        } catch let error as PostgreSQLError where error.kind == .connectionLost && retrying(error) {
            guard (try? connection.reconnect()) != nil else { throw wrap(error, code: code) }
            do {
                return try operation()
            } catch let error as PostgreSQLError {
                throw wrap(error, code: code)
            }
        } catch let error as PostgreSQLError {
            throw wrap(error, code: code)
        }
    }

    /// A server error as an `NSError` of Core Data's domain, naming the database.
    func wrap(_ error: PostgreSQLError, code: Int) -> NSError {
        let reason: String
        switch error.kind {
        case .connectionLost where error.statement == "COMMIT":
            reason =
                "The connection to the PostgreSQL store at \(settings.displayURL) was lost while committing; whether the save was written is unknown: \(error.message)"
        case .connectionLost, .connectionFailed:
            reason =
                "The connection to the PostgreSQL store at \(settings.displayURL) was lost and could not be made again: \(error.message)"
        case .statementFailed:
            reason = "The PostgreSQL store at \(settings.displayURL) refused a statement: \(error.message)"
        }
        return CoreDataError.make(
            code, reason, [NSUnderlyingErrorKey: error as NSError, "SQLSTATE": error.sqlState ?? ""])
    }

    // MARK: Persistent history

    var tracksHistory: Bool { history != nil }

    func historyTransactions(in range: StoreHistoryRange, withChanges: Bool) throws -> [NSPersistentHistoryTransaction]
    {
        guard let history, let store else { return [] }
        let coordinator = store.persistentStoreCoordinator
        // The transactions and their changes from one snapshot, whatever commits meanwhile.
        return try readingOneSnapshot { database in
            try history.transactions(
                database, in: range, withChanges: withChanges, store: store,
                decode: { SQLValueCoding.value($0, of: $1, coordinator: coordinator) })
        }
    }

    func deleteHistory(in range: StoreHistoryRange) throws -> Int {
        try writing { try SQLHistory.delete(PostgreSQLDatabaseAdapter(connection: connection), in: range) }
    }

    func historyBounds() throws -> (last: Int64, deletedThrough: Int64) {
        try readingOneSnapshot { try SQLHistory.bounds($0) }
    }

    /// Runs `body`'s reads in one read-only transaction that sees one snapshot, so reads of
    /// several statements agree whatever other connections commit meanwhile.
    private func readingOneSnapshot<T>(_ body: (PostgreSQLDatabaseAdapter) throws -> T) throws -> T {
        try reading {
            try connection.transaction {
                try connection.run(PostgreSQLStatements.readSnapshot)
                return try body(PostgreSQLDatabaseAdapter(connection: connection))
            }
        }
    }

    // MARK: Remote changes

    func observeChanges(_ changed: @escaping @Sendable (_ lastTransaction: Int64?) -> Void) throws {
        let listener = try PostgreSQLChangeListener(settings: settings, channel: changeChannel, changed: changed)
        lock.withLock { self.listener = listener }
    }

    func serve(as store: NSPersistentStore) { self.store = store }

    // MARK: Query generations

    /// Every PostgreSQL transaction can keep one snapshot (`REPEATABLE READ`).
    func supportsSnapshots() throws -> Bool { true }

    func openSnapshot() throws -> (any StoreSnapshot)? {
        do {
            return try PostgreSQLSnapshot(store: self)
        } catch let error as PostgreSQLError {
            throw wrap(error, code: NSPersistentStoreOperationError)
        }
    }

    func reading<T>(at snapshot: any StoreSnapshot, _ body: () throws -> T) throws -> T {
        try reading(at: snapshot, as: PostgreSQLSnapshot.self, owner: { $0.store }, slot: \.readingSnapshot, body)
    }

    func close() {
        lock.withLock { listener }?.cancel()
        connection.close()
    }

    /// A request the engine does not run yet, refused with a clear error instead of a wrong answer.
    static func notYet(_ what: String) -> NSError {
        CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError, "The PostgreSQL store does not support \(what) yet")
    }
}
