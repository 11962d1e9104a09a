import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// The SQLite store: Core Data's file format, through GRDB.
///
/// One GRDB `DatabaseQueue` per store, in WAL mode for files, which every write uses;
/// reads arriving together from several threads get read-only connections of their own
/// (``SQLiteReadConnections``). Every save is one transaction that writes only the
/// changed rows and columns.
final class SQLiteStore: PersistentStoreBackend {
    /// The main connection.
    let database: DatabaseQueue
    /// The connections reads run on, the main one among them.
    let connections: SQLiteReadConnections
    let schema: SQLSchema
    /// The persistent history writer and reader, when the store tracks history.
    let history: SQLHistory?
    /// Watches the file for commits when remote change notifications are asked for.
    private var watcher: SQLiteChangeWatcher?
    let model: NSManagedObjectModel
    let url: URL?
    /// The statements this store runs, for `OPENCOREDATA_SQL_DEBUG` and tests.
    let statementLog: SQLStatementLog
    /// Row layouts by the entities they read (locked: reads run side by side).
    let layouts = LockedValue<[[ObjectIdentifier]: SQLRowLayout]>([:])
    /// Per entity number, the layout and statement that read one row by key (every fault
    /// that misses the cache).
    let singleRowReads = LockedValue<[Int: (layout: SQLRowLayout, statement: SQLTemplate)]>([:])
    /// How a query generation's connection is opened: read-only, with the store's
    /// functions and connection pragmas; `nil` for an in-memory store, which has no file
    /// another connection could open.
    let snapshotConfiguration: Configuration?
    /// The snapshot that reads are served from while the coordinator runs a pinned
    /// context's request (see `reading(at:_:)`); `nil` reads the latest data. Set only
    /// while the coordinator runs that request alone.
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
    /// `connectionPoolSize`: `NSPersistentStoreConnectionPoolMaxSizeKey`, when given.
    init(
        database: DatabaseQueue, statementLog: SQLStatementLog, schema: SQLSchema, history: SQLHistory?,
        model: NSManagedObjectModel, url: URL?, metadata: [String: Any], snapshotConfiguration: Configuration?,
        connectionPoolSize: Int? = nil
    ) {
        self.database = database
        // A query generation's connection keeps its transaction open; a pooled reader must not.
        var readerConfiguration = snapshotConfiguration
        readerConfiguration?.allowsUnsafeTransactions = false
        connections = SQLiteReadConnections(
            main: database, path: url?.path, configuration: readerConfiguration,
            maximumReaders: connectionPoolSize.map { max($0, 1) - 1 } ?? SQLiteReadConnections.defaultMaximumReaders)
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
        return try read { db, _ in
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
        try read { db, _ in
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
        connections.close()
    }

    /// A file's reads may run side by side, each on a connection of its own; a database
    /// in memory (or an immutable file) has only its main connection.
    var readsConcurrently: Bool { snapshotConfiguration != nil }

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

    /// Runs a read: on a connection of the pool, or inside the snapshot of the query
    /// generation the coordinator is reading at.
    func read<T>(_ block: (Database, SQLiteStoreConnection) throws -> T) throws -> T {
        do {
            if let readingSnapshot { return try readingSnapshot.read(block) }
            return try connections.withConnection { connection in
                try connection.database.read { db in try block(db, connection) }
            }
        } catch let error as DatabaseError {
            throw Self.wrap(error, url: url, opening: false)
        }
    }

    // MARK: Query generations

    func supportsSnapshots() throws -> Bool {
        // An in-memory store has no file to read an older state from.
        guard snapshotConfiguration != nil else { return false }
        // Only WAL keeps an older state readable while others write.
        let mode = try read { db, _ in try String.fetchOne(db, SQLCatalogStatements.journalMode) } ?? ""
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
