import GRDB

/// The SQLite store: Core Data's file format, through GRDB.
///
/// One GRDB `DatabaseQueue` per store, in WAL mode for files. Every save is one
/// transaction that writes only the changed rows and columns.
final class SQLiteStore: PersistentStoreBackend {
    let database: DatabaseQueue
    let schema: SQLiteSchema
    /// The persistent history writer and reader, when the store tracks history.
    let history: SQLiteHistory?
    /// Watches the file for commits when remote change notifications are asked for.
    private var watcher: SQLiteChangeWatcher?
    let model: NSManagedObjectModel
    let url: URL?
    /// The statements this store runs, for `OPENCOREDATA_SQL_DEBUG` and tests.
    let statementLog: SQLStatementLog
    /// Row layouts by the entities they read (calls are serialized by the coordinator).
    var layouts: [[ObjectIdentifier]: SQLiteRowLayout] = [:]
    /// Per entity number, the layout and SQL that read one row by key (every fault that misses the cache).
    var singleRowReads: [Int: (layout: SQLiteRowLayout, sql: String)] = [:]
    /// Bounds the main connection's statement cache (see `preparedStatement`).
    var statements = StatementCacheBudget()
    /// How a query generation's connection is opened: read-only, with the store's
    /// functions and connection pragmas; `nil` for an in-memory store, which has no file
    /// another connection could open.
    let snapshotConfiguration: Configuration?
    /// The snapshot that reads are served from while the coordinator runs a pinned
    /// context's request (see `reading(at:_:)`); `nil` reads the latest data.
    var readingSnapshot: SQLiteSnapshot?
    /// The metadata, and which setting of it the file holds. Set on the app's thread while
    /// a save may run on another, hence the lock.
    private var metadataValues: [String: Any]
    private var metadataVersion = 0
    private var writtenMetadataVersion = 0
    private let metadataLock = NSLock()

    var metadata: [String: Any] { metadataLock.withLock { metadataValues } }
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

    private init(database: DatabaseQueue, statementLog: SQLStatementLog, schema: SQLiteSchema, history: SQLiteHistory?, model: NSManagedObjectModel, url: URL?, metadata: [String: Any], snapshotConfiguration: Configuration?) {
        self.database = database
        self.snapshotConfiguration = snapshotConfiguration
        self.statementLog = statementLog
        self.schema = schema
        self.history = history
        self.model = model
        self.url = url
        self.metadataValues = metadata
    }

    // MARK: Opening

    static func open(at url: URL, model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?, options: [AnyHashable: Any]?) throws -> NSPersistentStore {
        // Core Data's idiom for a throwaway SQLite store (test suites use it): a store at
        // /dev/null is an SQLite database in memory, still of the SQLite type.
        if isDevNull(url) {
            return try openInMemory(model: model, entities: entities, configuration: configuration, options: options, type: NSSQLiteStoreType)
        }
        let readOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        if !readOnly {
            try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        var settings = Configuration()
        settings.readonly = readOnly
        // Another process may be writing the same file (WAL allows one writer at a time):
        // wait for it, as Core Data does, instead of failing the save at once.
        settings.busyMode = .timeout(SQLiteStore.busyTimeout)
        let pragmas = (options?[NSSQLitePragmasOption] as? [String: Any] ?? [:]).mapValues { "\($0)" }
        for (name, value) in pragmas where !Self.isPlainToken(name) || !Self.isPlainToken(value) {
            throw CoreDataError.make(NSPersistentStoreOpenError, "Invalid SQLite pragma '\(name)' = '\(value)': names and values must be plain words or numbers")
        }
        let log = SQLStatementLog()
        settings.prepareDatabase { db in
            log.prepare(db)
            // Before anything writes: switching to WAL rewrites the file header, and a
            // database that is not a store must be left exactly as it was.
            try rejectForeignDatabase(db, url: url)
            if !readOnly { try db.execute(sql: "PRAGMA journal_mode = WAL") }
            for (name, value) in pragmas { try db.execute(sql: "PRAGMA \(name) = \(value)") }
            try SQLiteFunctions.install(in: db)
        }
        var snapshotSettings = Configuration()
        snapshotSettings.readonly = true
        // The connection keeps its read transaction open from one coordinator call to the next.
        snapshotSettings.allowsUnsafeTransactions = true
        snapshotSettings.busyMode = .timeout(SQLiteStore.busyTimeout)
        snapshotSettings.prepareDatabase { db in
            log.prepare(db)
            // Connection settings (case_sensitive_like, …) shape what reads return; pragmas
            // that write the file were applied by the store's connection and fail here.
            for (name, value) in pragmas { try? db.execute(sql: "PRAGMA \(name) = \(value)") }
            try SQLiteFunctions.install(in: db)
        }
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: url.path, configuration: settings)
        } catch {
            throw wrap(error, url: url, opening: true)
        }
        return try attach(database, log: log, url: url, model: model, entities: entities, configurationName: configuration, options: options, type: NSSQLiteStoreType, snapshotConfiguration: snapshotSettings)
    }

    /// An SQLite database in memory, as the in-memory store type and as an SQLite store at /dev/null.
    /// `copying` fills it with another store's data first (`migratePersistentStore`).
    static func openInMemory(model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?, options: [AnyHashable: Any]?,
                             type: String = NSInMemoryStoreType, copying source: SQLiteStore? = nil) throws -> NSPersistentStore {
        var config = Configuration()
        let log = SQLStatementLog()
        config.prepareDatabase { db in
            log.prepare(db)
            try SQLiteFunctions.install(in: db)
        }
        let database = try DatabaseQueue(configuration: config)
        if let source { try source.copyDatabase(intoMemory: database) }
        return try attach(database, log: log, url: nil, model: model, entities: entities, configurationName: configuration, options: options, type: type, snapshotConfiguration: nil)
    }

    private static func attach(_ database: DatabaseQueue, log: SQLStatementLog, url: URL?, model: NSManagedObjectModel, entities: [NSEntityDescription], configurationName: String?, options: [AnyHashable: Any]?, type: String, snapshotConfiguration: Configuration?) throws -> NSPersistentStore {
        let schema = SQLiteSchema(entities: entities)
        let history = tracksHistory(options) ? SQLiteHistory(schema: schema) : nil
        let readOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        let metadata: [String: Any]
        var keepsUntrackedHistory = false
        do {
            metadata = try database.write { db -> [String: Any] in
                var metadata: [String: Any]
                if try db.tableExists("Z_METADATA") {
                    metadata = try readMetadata(db, url: url)
                    metadata = try adopt(db, metadata: metadata, model: model, entities: entities, schema: schema, configuration: configurationName, options: options, url: url)
                } else {
                    // Empty: `open` already refused a database holding other tables.
                    metadata = try createStore(db, schema: schema, model: model, entities: entities, type: type)
                }
                if let history, !readOnly { try history.install(db) }
                keepsUntrackedHistory = try history == nil && SQLiteHistory.exists(db)
                return metadata
            }
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw wrap(error, url: url, opening: true)
        }
        let identifier = metadata[NSStoreUUIDKey] as? String ?? UUID().uuidString
        let backend = SQLiteStore(database: database, statementLog: log, schema: schema, history: history, model: model, url: url, metadata: metadata, snapshotConfiguration: snapshotConfiguration)
        let store = NSPersistentStore(type: type, url: url ?? URL(fileURLWithPath: "/dev/null"), configurationName: configurationName, options: options, identifier: identifier)
        if keepsUntrackedHistory {
            // Saves without history would leave holes that its readers could not notice.
            store.isReadOnly = true
            store.readOnlyReason = "it keeps persistent history but was added without NSPersistentHistoryTrackingKey"
        }
        store.backend = backend
        backend.store = store
        return store
    }

    /// Whether the options ask for persistent history: `true`, or a dictionary of
    /// tracking settings (which Core Data also accepts).
    private static func tracksHistory(_ options: [AnyHashable: Any]?) -> Bool {
        let value = options?[NSPersistentHistoryTrackingKey]
        return value is [AnyHashable: Any] || value is NSDictionary || NSPersistentStore.isSet(value)
    }

    /// Throws when the database has tables but no `Z_METADATA`: another program's
    /// database, which a store must neither adopt nor change.
    private static func rejectForeignDatabase(_ db: Database, url: URL?) throws {
        guard try !db.tableExists("Z_METADATA"),
              try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table')") == true
        else { return }
        throw CoreDataError.make(NSFileReadCorruptFileErrorCode, "The file at \(url?.path ?? "?") is an SQLite database but not a Core Data store (it has no Z_METADATA table)", [NSFilePathErrorKey: url?.path ?? ""])
    }

    private static func createStore(_ db: Database, schema: SQLiteSchema, model: NSManagedObjectModel, entities: [NSEntityDescription], type: String) throws -> [String: Any] {
        for statement in schema.createStatements() { try db.execute(sql: statement) }
        for entity in schema.entities {
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                arguments: [entity.facts.entityNumber, entity.name, entity.superentity?.facts.entityNumber ?? 0]
            )
        }
        let uuid = UUID().uuidString
        // Core Data keeps the UUID both in its own column and in the plist.
        var plist: [String: Any] = [
            NSStoreUUIDKey: uuid,
            NSStoreTypeKey: NSSQLiteStoreType,
            // Core Data records its framework build; a recent one, so devices treat the store as current.
            "NSPersistenceFrameworkVersion": 1518,
            "NSPersistenceMaximumFrameworkVersion": 1518,
            "_NSAutoVacuumLevel": "2",
            createdByOpenCoreDataKey: 1,
        ]
        for (key, value) in versionMetadata(model: model, entities: entities) { plist[key] = value }
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        try db.execute(sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", arguments: [uuid, data])
        var result = plist
        result[NSStoreTypeKey] = type
        return result
    }

    static func readMetadata(_ db: Database, url: URL?) throws -> [String: Any] {
        guard let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1") else {
            throw CoreDataError.make(NSFileReadCorruptFileErrorCode, "The store at \(url?.path ?? "?") has no metadata row")
        }
        var metadata: [String: Any] = [:]
        if let data = Data.fromDatabaseValue(row["Z_PLIST"] as DatabaseValue),
           let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any] {
            metadata = plist
        }
        metadata[NSStoreUUIDKey] = String.fromDatabaseValue(row["Z_UUID"] as DatabaseValue)
        return metadata
    }

    /// Reads a store file's metadata without opening it as a store.
    static func readMetadata(at url: URL) throws -> [String: Any] {
        try readFile(at: url) { db in
            guard try db.tableExists("Z_METADATA") else {
                throw CoreDataError.make(NSFileReadCorruptFileErrorCode, "The file at \(url.path) is not a Core Data store")
            }
            return try readMetadata(db, url: url)
        }
    }

    /// Runs `body` on a read-only connection to the file at `url`, closed afterwards.
    /// A missing file, or one that is not SQLite, throws a Cocoa file error naming it.
    static func readFile<T>(at url: URL, _ body: (Database) throws -> T) throws -> T {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "No store file at \(url.path)", [NSFilePathErrorKey: url.path])
        }
        var configuration = Configuration()
        configuration.readonly = true
        do {
            let database = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? database.close() }
            return try database.read(body)
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw wrap(error, url: url, opening: true)
        }
    }

    /// Removes a store's database, journal files and external data folder.
    static func destroyFiles(at url: URL) throws {
        // A /dev/null store lives in memory; the device itself is never removed.
        guard !isDevNull(url) else { return }
        let manager = FileManager.default
        for suffix in ["", "-wal", "-shm"] {
            let path = url.path + suffix
            if manager.fileExists(atPath: path) { try manager.removeItem(atPath: path) }
        }
        let support = supportDirectory(for: url)
        if manager.fileExists(atPath: support.path) { try manager.removeItem(at: support) }
    }

    /// Makes the store at `destination` a copy of the store at `source` (created when
    /// missing), with SQLite's online backup so a source in use by another connection is
    /// copied consistently; the destination's external data is replaced by the source's.
    static func replaceFiles(at destination: URL, from source: URL) throws {
        guard !isDevNull(source) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "A /dev/null store lives in memory; there is no file to copy from")
        }
        guard !isDevNull(destination) else { return }
        _ = try readMetadata(at: source)  // a missing file or one that is not a store throws here, naming it
        let manager = FileManager.default
        try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        var readOnly = Configuration()
        readOnly.readonly = true
        do {
            let from = try DatabaseQueue(path: source.path, configuration: readOnly)
            defer { try? from.close() }
            let to = try DatabaseQueue(path: destination.path)
            defer { try? to.close() }
            try from.backup(to: to)
        } catch {
            throw wrap(error, url: destination, opening: false)
        }
        let (sourceSupport, destinationSupport) = (supportDirectory(for: source), supportDirectory(for: destination))
        if manager.fileExists(atPath: destinationSupport.path) { try manager.removeItem(at: destinationSupport) }
        if manager.fileExists(atPath: sourceSupport.path) { try manager.copyItem(at: sourceSupport, to: destinationSupport) }
    }

    /// Whether `url` is /dev/null, Core Data's name for an SQLite store kept in memory.
    static func isDevNull(_ url: URL) -> Bool {
        url.isFileURL && url.standardizedFileURL.path == "/dev/null"
    }

    /// Whether a pragma name or value is a bare word or number (no SQL can hide in it).
    static func isPlainToken(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
    }

    static func supportDirectory(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent("." + url.deletingPathExtension().lastPathComponent + "_SUPPORT")
    }

    static func wrap(_ error: Error, url: URL?, opening: Bool) -> NSError {
        if let error = error as? DatabaseError {
            let code = error.resultCode.primaryResultCode
            if code == .SQLITE_NOTADB || code == .SQLITE_CORRUPT {
                return CoreDataError.make(NSFileReadCorruptFileErrorCode, "The file at \(url?.path ?? "?") couldn't be opened because it isn't in the correct format (not an SQLite database)",
                                          [NSSQLiteErrorDomain: Int(code.rawValue), NSFilePathErrorKey: url?.path ?? "", NSUnderlyingErrorKey: error as NSError])
            }
            return CoreDataError.sqlite(code.rawValue, "SQLite error \(code.rawValue): \(error.message ?? "unknown") (\(url?.path ?? "in-memory store"))", url: url)
        }
        return error as NSError
    }

    func setMetadata(_ metadata: [String: Any]) {
        metadataLock.withLock {
            // The store's UUID is not the caller's to change: both copies keep the original.
            var merged = metadata
            merged[NSStoreUUIDKey] = metadataValues[NSStoreUUIDKey]
            metadataValues = merged
            metadataVersion += 1
        }
    }

    /// Writes the metadata set since the last save into `Z_METADATA`, inside the save's
    /// transaction, so a value that is not a property list fails that save. Returns the
    /// version written, for the caller to record once the transaction commits.
    func saveMetadata() throws {
        guard metadataLock.withLock({ metadataVersion != writtenMetadataVersion }) else { return }
        do {
            let written = try database.write(writeMetadataIfNeeded)
            if let written { metadataLock.withLock { writtenMetadataVersion = max(writtenMetadataVersion, written) } }
        } catch let error as DatabaseError {
            throw Self.wrap(error, url: url, opening: false)
        }
    }

    private func writeMetadataIfNeeded(_ db: Database) throws -> Int? {
        let (values, version, written) = metadataLock.withLock { (metadataValues, metadataVersion, writtenMetadataVersion) }
        guard version != written else { return nil }
        let data: Data
        do {
            data = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
        } catch {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The store's metadata can't be saved: every value must be a property-list type (String, number, Date, Data, array, dictionary)", [NSUnderlyingErrorKey: error as NSError])
        }
        try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", arguments: [data])
        return version
    }

    // MARK: Persistent history

    var tracksHistory: Bool { history != nil }

    func historyTransactions(in range: StoreHistoryRange, withChanges: Bool) throws -> [NSPersistentHistoryTransaction] {
        guard let history, let store else { return [] }
        return try read { db in
            try history.transactions(db, in: range, withChanges: withChanges, store: store, decode: decodeAttribute)
        }
    }

    func deleteHistory(in range: StoreHistoryRange) throws -> Int {
        do {
            return try database.write { db in try SQLiteHistory.delete(db, in: range) }
        } catch let error as DatabaseError {
            throw Self.wrap(error, url: url, opening: false)
        }
    }

    func historyBounds() throws -> (last: Int64, deletedThrough: Int64) {
        try read { db in
            guard try SQLiteHistory.exists(db) else { return (0, 0) }
            return (try SQLiteHistory.lastTransactionNumber(db), try SQLiteHistory.deletedThrough(db))
        }
    }

    func observeChanges(_ changed: @escaping @Sendable () -> Void) throws {
        guard let url, watcher == nil else { return }
        watcher = try SQLiteChangeWatcher(url: url, changed: changed)
    }

    func close() {
        watcher?.cancel()
        watcher = nil
        try? database.close()
    }

    // MARK: Reading

    func decodeAttribute(_ value: DatabaseValue, _ attribute: NSAttributeDescription) throws -> Any? {
        if attribute.allowsExternalBinaryDataStorage, case let .blob(data) = value.storage {
            guard let marked = try ExternalBinaryStorage(url: url).read(data) else { return nil }
            if attribute.attributeType == .transformableAttributeType {
                return ValueTransformerRegistry.decode(marked, transformerName: attribute.valueTransformerName)
            }
            return marked
        }
        return SQLiteValueCoding.value(value, type: attribute.attributeType, transformerName: attribute.valueTransformerName, coordinator: store?.persistentStoreCoordinator)
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
        let mode = try read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } ?? ""
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
        guard let snapshot = snapshot as? SQLiteSnapshot, snapshot.store === self else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "A query generation's snapshot was used with a store that did not take it")
        }
        let outer = readingSnapshot
        readingSnapshot = snapshot
        defer { readingSnapshot = outer }
        return try body()
    }

    // MARK: Writing

    func reservePrimaryKeys(for entities: [NSEntityDescription]) throws -> [Int64] {
        try database.write { db in
            var allocator = SQLiteKeyAllocator(db: db, schema: schema)
            let keys = try entities.map { try allocator.nextKey(for: $0) }
            try allocator.flush()
            return keys
        }
    }

    func save(_ build: (inout any PrimaryKeyAllocator) throws -> StoreSaveRequest) throws {
        let external = ExternalBinaryStorage(url: url)
        // Files are tracked as they are written, so a failed save removes them all.
        var writer: SQLiteSaveWriter?
        var metadataWritten: Int?
        do {
            try database.write { db in
                // The builder may read the rows it is about to change (conflict checks) on this connection.
                var allocator: any PrimaryKeyAllocator = SQLiteSaveTransaction(store: self, db: db)
                let request = try build(&allocator)
                try (allocator as! SQLiteSaveTransaction).flush()
                let current = SQLiteSaveWriter(db: db, schema: schema, external: external)
                writer = current
                let tombstones = try history?.tombstones(db, of: request.deletes.map { ($0.row.entity, $0.row.primaryKey) }) ?? [:]
                try current.write(request)
                try history?.record(db, origin: request.origin, changes: request.historyChanges, tombstones: tombstones)
                metadataWritten = try writeMetadataIfNeeded(db)
            }
            // A value set while the save ran stays pending for the next save.
            if let metadataWritten { metadataLock.withLock { writtenMetadataVersion = max(writtenMetadataVersion, metadataWritten) } }
        } catch {
            for file in writer?.writtenFiles ?? [] { try? FileManager.default.removeItem(at: file) }
            if let error = error as? DatabaseError { throw Self.wrap(error, url: url, opening: false) }
            throw error
        }
        for file in writer?.obsoleteFiles ?? [] { try? FileManager.default.removeItem(at: file) }
    }
}

/// Hands out primary keys for each inheritance tree (one table, one key sequence),
/// inside the save's transaction.
///
/// The next key is past both the largest `Z_MAX` of the tree's entities and the largest
/// `Z_PK` in its table, and every entity of the tree records the new maximum: whether a
/// store's other writer (Core Data on a device) keeps the counter on the root entity or on
/// each entity, neither can hand out a key that is already taken.
struct SQLiteKeyAllocator: PrimaryKeyAllocator {
    let db: Database
    let schema: SQLiteSchema
    private var next: [Int: Int64] = [:]

    init(db: Database, schema: SQLiteSchema) {
        self.db = db
        self.schema = schema
    }

    mutating func nextKey(for entity: NSEntityDescription) throws -> Int64 {
        let root = entity.facts.root
        let number = root.facts.entityNumber
        let current: Int64
        if let known = next[number] {
            current = known
        } else {
            let tree = treeNumbers(root)
            let counter = try Int64.fetchOne(db, sql: "SELECT MAX(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(tree))") ?? 0
            let table = try schema.table(for: root).name
            let used = try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(table)") ?? 0
            current = max(counter, used)
        }
        guard current < Int64.max else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The store has used up the primary keys of entity '\(root.name ?? "?")' (Z_MAX is \(current))")
        }
        next[number] = current + 1
        return current + 1
    }

    func flush() throws {
        for (number, max) in next {
            guard let root = schema.entities.first(where: { $0.facts.entityNumber == number }) else { continue }
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT IN (\(treeNumbers(root))) AND Z_MAX < ?", arguments: [max, max])
        }
    }

    private func treeNumbers(_ root: NSEntityDescription) -> String {
        root.facts.selfAndDescendants.map { String($0.facts.entityNumber) }.joined(separator: ", ")
    }
}
