import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// The SQLite store: Core Data's file format, through GRDB.
///
/// One GRDB `DatabaseQueue` per store, in WAL mode for files. Every save is one
/// transaction that writes only the changed rows and columns.
final class SQLiteStore: PersistentStoreBackend {
    let database: DatabaseQueue
    let schema: SQLSchema
    /// The persistent history writer and reader, when the store tracks history.
    let history: SQLHistory?
    /// Watches the file for commits when remote change notifications are asked for.
    private var watcher: SQLiteChangeWatcher?
    let model: NSManagedObjectModel
    let url: URL?
    /// The statements this store runs, for `OPENCOREDATA_SQL_DEBUG` and tests.
    let statementLog: SQLStatementLog
    /// Row layouts by the entities they read (calls are serialized by the coordinator).
    var layouts: [[ObjectIdentifier]: SQLRowLayout] = [:]
    /// Per entity number, the layout and statement that read one row by key (every fault that misses the cache).
    var singleRowReads: [Int: (layout: SQLRowLayout, statement: SQLTemplate)] = [:]
    /// Bounds the main connection's statement cache (see `preparedStatement`).
    var statements = StatementCacheBudget()
    /// How a query generation's connection is opened: read-only, with the store's
    /// functions and connection pragmas; `nil` for an in-memory store, which has no file
    /// another connection could open.
    let snapshotConfiguration: Configuration?
    /// The snapshot that reads are served from while the coordinator runs a pinned
    /// context's request (see `reading(at:_:)`); `nil` reads the latest data.
    var readingSnapshot: SQLiteSnapshot?
    /// The metadata, and which setting of it the file holds.
    let metadataState: SQLStoreMetadata

    var metadata: [String: Any] { metadataState.current }
    /// The store this engine serves. The store owns the engine, and the engine is used
    /// only under the coordinator's lock, which `remove(_:)` takes too, so the store
    /// outlives every use (the `nil` checks cover only an engine not yet attached).
    /// `unowned`, not `weak`: a weak reference gives the store a side table, and then
    /// every object ID's retain and release of its store takes the runtime's slow path.
    unowned var store: NSPersistentStore?

    /// How long a save or read waits for another process's write to finish, in seconds.
    static let busyTimeout: TimeInterval = 30

    /// Values at or above this size go to a file beside the store when the attribute allows it.
    static let externalStorageThreshold = 128 * 1024

    /// A store over an open database; made by the opening code (`SQLiteStore+Opening.swift`).
    init(
        database: DatabaseQueue, statementLog: SQLStatementLog, schema: SQLSchema, history: SQLHistory?,
        model: NSManagedObjectModel, url: URL?, metadata: [String: Any], snapshotConfiguration: Configuration?
    ) {
        self.database = database
        self.snapshotConfiguration = snapshotConfiguration
        self.statementLog = statementLog
        self.schema = schema
        self.history = history
        self.model = model
        self.url = url
        self.metadataState = SQLStoreMetadata(metadata)
    }

    func setMetadata(_ metadata: [String: Any]) { metadataState.set(metadata) }

    /// Writes the metadata set since the last save into `Z_METADATA`, in a transaction of
    /// its own, for a save that changes no object.
    func saveMetadata() throws {
        guard metadataState.hasUnwrittenChanges else { return }
        do {
            let written = try database.write(writeMetadataIfNeeded)
            if let written { metadataState.committed(written) }
        } catch let error as DatabaseError {
            throw Self.wrap(error, url: url, opening: false)
        }
    }

    /// Writes the metadata into `Z_METADATA` in `db`'s transaction when it changed since the
    /// last committed write, so a value that is not a property list fails that transaction;
    /// the version written, for `SQLStoreMetadata.committed(_:)` once it commits.
    func writeMetadataIfNeeded(_ db: Database) throws -> Int? {
        guard let pending = try metadataState.pendingWrite() else { return nil }
        try db.execute(SQLMetadataStatements.update(plist: pending.plist))
        return pending.version
    }

    // MARK: Persistent history

    var tracksHistory: Bool { history != nil }

    func historyTransactions(in range: StoreHistoryRange, withChanges: Bool) throws -> [NSPersistentHistoryTransaction]
    {
        guard let history, let store else { return [] }
        return try read { db in
            try history.transactions(
                SQLiteDatabaseAdapter(db), in: range, withChanges: withChanges, store: store, decode: decodeAttribute)
        }
    }

    func deleteHistory(in range: StoreHistoryRange) throws -> Int {
        do {
            return try database.write { db in try SQLHistory.delete(SQLiteDatabaseAdapter(db), in: range) }
        } catch let error as DatabaseError {
            throw Self.wrap(error, url: url, opening: false)
        }
    }

    func historyBounds() throws -> (last: Int64, deletedThrough: Int64) {
        try read { db in
            try SQLHistory.bounds(SQLiteDatabaseAdapter(db))
        }
    }

    func observeChanges(_ changed: @escaping @Sendable (_ lastTransaction: Int64?) -> Void) throws {
        guard let url, watcher == nil else { return }
        // A changed file says nothing of what changed: the store is asked.
        watcher = try SQLiteChangeWatcher(url: url) { changed(nil) }
    }

    func close() {
        watcher?.cancel()
        watcher = nil
        try? database.close()
    }

    // MARK: Reading

    func decodeAttribute(_ value: SQLScalar, _ attribute: NSAttributeDescription) throws -> Any? {
        if attribute.allowsExternalBinaryDataStorage, case let .blob(data) = value {
            guard let marked = try ExternalBinaryStorage(url: url).read(data) else { return nil }
            if attribute.attributeType == .transformableAttributeType {
                return ValueTransformerRegistry.decode(marked, transformerName: attribute.valueTransformerName)
            }
            return marked
        }
        return SQLValueCoding.value(value, of: attribute, coordinator: store?.persistentStoreCoordinator)
    }

    /// Runs a read: on the main connection, or inside the snapshot of the query
    /// generation the coordinator is reading at.
    func read<T>(_ block: (Database) throws -> T) throws -> T {
        do {
            if let readingSnapshot { return try readingSnapshot.read(block) }
            return try database.read(block)
        } catch let error as DatabaseError {
            throw Self.wrap(error, url: url, opening: false)
        }
    }

    // MARK: Query generations

    func supportsSnapshots() throws -> Bool {
        // An in-memory store has no file to read an older state from.
        guard snapshotConfiguration != nil else { return false }
        // Only WAL keeps an older state readable while others write.
        let mode = try read { db in try String.fetchOne(db, SQLCatalogStatements.journalMode) } ?? ""
        return mode.lowercased() == "wal"
    }

    func openSnapshot() throws -> (any StoreSnapshot)? {
        // A read held open outside WAL mode would block every writer: no snapshot then.
        guard (try? supportsSnapshots()) == true, let url, let snapshotConfiguration else { return nil }
        do {
            return try SQLiteSnapshot(store: self, path: url.path, configuration: snapshotConfiguration)
        } catch {
            throw Self.wrap(error, url: url, opening: false)
        }
    }

    func reading<T>(at snapshot: any StoreSnapshot, _ body: () throws -> T) throws -> T {
        try reading(at: snapshot, as: SQLiteSnapshot.self, owner: { $0.store }, slot: \.readingSnapshot, body)
    }
}
