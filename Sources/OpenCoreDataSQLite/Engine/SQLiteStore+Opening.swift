import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Opening a store: a file (created with Core Data's schema when new, checked when not) or
/// an in-memory database, and the operations on store files that need no open store.
extension SQLiteStore {
    static func open(
        at url: URL, model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?,
        options: [AnyHashable: Any]?
    ) throws -> NSPersistentStore {
        // Core Data's idiom for a throwaway SQLite store (test suites use it): a store at
        // /dev/null is an SQLite database in memory, still of the SQLite type.
        if StoreLocation.isDevNull(url) {
            return try openInMemory(
                model: model, entities: entities, configuration: configuration, options: options,
                type: NSSQLiteStoreType)
        }
        let readOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        // Before SQLite sees the path: it would block on a FIFO, and name neither a directory
        // nor a folder it cannot write.
        let location: (path: String, immutable: Bool)
        if readOnly {
            location = try SQLiteStoreFile.readOnlyLocation(of: url)
        } else {
            try SQLiteStoreFile.checkKind(url, mayBeMissing: true)
            try? FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try SQLiteStoreFile.prepareForWriting(url)
            location = (url.path, false)
        }
        var settings = Configuration()
        settings.readonly = readOnly
        // Another process may be writing the same file (WAL allows one writer at a time):
        // wait for it, as Core Data does, instead of failing the save at once.
        settings.busyMode = .timeout(SQLiteStore.busyTimeout)
        let pragmas = (options?[NSSQLitePragmasOption] as? [String: Any] ?? [:]).mapValues { "\($0)" }
        for (name, value) in pragmas where !Self.isPlainToken(name) || !Self.isPlainToken(value) {
            throw CoreDataError.make(
                NSPersistentStoreOpenError,
                "Invalid SQLite pragma '\(name)' = '\(value)': names and values must be plain words or numbers")
        }
        let log = SQLStatementLog()
        settings.prepareDatabase { db in
            log.prepare(db)
            // Before anything writes: switching to WAL rewrites the file header, and a
            // database that is not a store must be left exactly as it was.
            try rejectForeignDatabase(db, url: url)
            if !readOnly { try switchToWriteAheadLog(db) }
            for (name, value) in pragmas {
                // A read-only connection cannot apply pragmas that rewrite the file
                // (`journal_mode`, given for the store's writable opens): they are skipped.
                if readOnly {
                    try? db.execute(SQLCatalogStatements.pragma(name, value))
                } else {
                    try db.execute(SQLCatalogStatements.pragma(name, value))
                }
            }
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
            for (name, value) in pragmas { try? db.execute(SQLCatalogStatements.pragma(name, value)) }
            try SQLiteFunctions.install(in: db)
        }
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: location.path, configuration: settings)
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw wrap(error, url: url, opening: true)
        }
        // An immutable file never changes, so query generations need no snapshot of it.
        return try attach(
            database, log: log, url: url, model: model, entities: entities, configurationName: configuration,
            options: options, type: NSSQLiteStoreType,
            snapshotConfiguration: location.immutable ? nil : snapshotSettings)
    }

    /// Puts the file in WAL mode. The switch needs the file to itself for a moment, and SQLite
    /// does not wait for that as it waits for its other locks (no busy handler is called):
    /// processes making the same new store at once retry here, within the store's busy timeout.
    private static func switchToWriteAheadLog(_ db: Database) throws {
        let deadline = Date().addingTimeInterval(busyTimeout)
        while true {
            do {
                try db.execute(SQLCatalogStatements.useWriteAheadLog)
                return
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    /// An SQLite database in memory, as the in-memory store type and as an SQLite store at /dev/null.
    /// `copying` fills it with another store's data first (`migratePersistentStore`).
    static func openInMemory(
        model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?,
        options: [AnyHashable: Any]?,
        type: String = NSInMemoryStoreType, copying source: SQLiteStore? = nil
    ) throws -> NSPersistentStore {
        var config = Configuration()
        let log = SQLStatementLog()
        config.prepareDatabase { db in
            log.prepare(db)
            try SQLiteFunctions.install(in: db)
        }
        let database = try DatabaseQueue(configuration: config)
        if let source { try source.copyDatabase(intoMemory: database) }
        return try attach(
            database, log: log, url: nil, model: model, entities: entities, configurationName: configuration,
            options: options, type: type, snapshotConfiguration: nil)
    }

    private static func attach(
        _ database: DatabaseQueue, log: SQLStatementLog, url: URL?, model: NSManagedObjectModel,
        entities: [NSEntityDescription], configurationName: String?, options: [AnyHashable: Any]?, type: String,
        snapshotConfiguration: Configuration?
    ) throws -> NSPersistentStore {
        let schema = SQLSchema(entities: entities)
        let tracksHistory = NSPersistentStore.tracksHistory(options)
        var history: SQLHistory?
        let readOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        let metadata: [String: Any]
        var keepsUntrackedHistory = false
        func openInTransaction(_ db: Database) throws -> [String: Any] {
            // GRDB caches what it read of the schema, and another process may have changed
            // it since (made the store this connection found empty).
            db.clearSchemaCache()
            var metadata: [String: Any]
            if try db.tableExists("Z_METADATA") {
                metadata = try readMetadata(db, url: url)
                metadata = try adopt(
                    db, metadata: metadata, model: model, entities: entities, schema: schema,
                    configuration: configurationName, options: options, url: url)
            } else {
                // Empty: `open` already refused a database holding other tables.
                metadata = try createStore(
                    db, schema: schema, model: model, entities: entities, type: type, cachesModel: url != nil)
            }
            let adapter = SQLiteDatabaseAdapter(db)
            if tracksHistory {
                (history, metadata) = try SQLHistory.open(
                    adapter, schema: schema, metadata: metadata, readOnly: readOnly)
            }
            keepsUntrackedHistory = try !tracksHistory && SQLHistory.exists(adapter)
            return metadata
        }
        do {
            metadata = try database.writeWithoutTransaction { db -> [String: Any] in
                var metadata: [String: Any] = [:]
                // Writable: the write lock comes first, so of several processes creating
                // one new store, one creates it while the others wait, then find it made.
                // (A read-only connection cannot take it, and never creates a store.)
                try db.inTransaction(readOnly ? .deferred : .immediate) {
                    metadata = try openInTransaction(db)
                    return .commit
                }
                return metadata
            }
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw wrap(error, url: url, opening: true)
        }
        let identifier = metadata[NSStoreUUIDKey] as? String ?? UUID().uuidString
        let backend = SQLiteStore(
            database: database, statementLog: log, schema: schema, history: history, model: model, url: url,
            metadata: metadata, snapshotConfiguration: snapshotConfiguration,
            connectionPoolSize: (options?[NSPersistentStoreConnectionPoolMaxSizeKey] as? NSNumber)?.intValue)
        let store = NSPersistentStore(
            type: type, url: url ?? URL(fileURLWithPath: "/dev/null"), configurationName: configurationName,
            options: options, identifier: identifier)
        if keepsUntrackedHistory {
            // Saves without history would leave holes that its readers could not notice.
            store.isReadOnly = true
            store.readOnlyReason = "it keeps persistent history but was added without NSPersistentHistoryTrackingKey"
        }
        store.backend = backend
        backend.store = store
        return store
    }

    /// Throws when the database has tables but no `Z_METADATA`: another program's
    /// database, which a store must neither adopt nor change.
    private static func rejectForeignDatabase(_ db: Database, url: URL?) throws {
        // One statement, so one moment: between two, another process may create a store.
        guard try Bool.fetchOne(db, SQLCatalogStatements.hasTablesButNoMetadata) == true else { return }
        throw CoreDataError.make(
            NSFileReadCorruptFileErrorCode,
            "The file at \(url?.path ?? "?") is an SQLite database but not a Core Data store (it has no Z_METADATA table)",
            [NSFilePathErrorKey: url?.path ?? ""])
    }

    /// Creates the tables and metadata of a new store in the empty database `db`, and, for a
    /// store in a file (`cachesModel`), caches its model in `Z_MODELCACHE` as Core Data does.
    private static func createStore(
        _ db: Database, schema: SQLSchema, model: NSManagedObjectModel, entities: [NSEntityDescription],
        type: String,
        cachesModel: Bool
    ) throws -> [String: Any] {
        for statement in SQLSchemaStatements(schema: schema).create() { try db.execute(statement) }
        for entity in schema.entities { try db.execute(SQLPrimaryKeyStatements.insertEntity(entity, counter: 0)) }
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
        for (key, value) in StoreVersionMetadata.entries(model: model, entities: entities) { plist[key] = value }
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        try db.execute(SQLMetadataStatements.insert(uuid: uuid, plist: data))
        if cachesModel { try SQLiteModelCache.write(model, in: db) }
        var result = plist
        result[NSStoreTypeKey] = type
        return result
    }

    /// The store's metadata; throws when its property list is damaged, rather than
    /// passing off what is left (the UUID) as the whole of it.
    static func readMetadata(_ db: Database, url: URL?) throws -> [String: Any] {
        try undamaged(readMetadataNotingDamage(db, url: url), url: url)
    }

    /// The metadata read, or the error naming its damage.
    private static func undamaged(_ read: (metadata: [String: Any], damage: String?), url: URL?) throws -> [String: Any]
    {
        let (metadata, damage) = read
        if let damage {
            throw CoreDataError.make(
                NSFileReadCorruptFileErrorCode,
                "The metadata of the store at \(url?.path ?? "?") is damaged: \(damage)",
                [NSFilePathErrorKey: url?.path ?? ""])
        }
        return metadata
    }

    /// The store's metadata, and why its property list could not be read when it could
    /// not (the metadata then holds only the UUID kept in its own column).
    static func readMetadataNotingDamage(_ db: Database, url: URL?) throws -> (metadata: [String: Any], damage: String?)
    {
        guard let row = try Row.fetchOne(db, SQLMetadataStatements.read) else {
            throw CoreDataError.make(
                NSFileReadCorruptFileErrorCode, "The store at \(url?.path ?? "?") has no metadata row")
        }
        var metadata: [String: Any] = [:]
        var damage: String?
        let stored = row["Z_PLIST"] as DatabaseValue
        // GRDB's Data reads a blob, or a property list stored as text (an XML plist), as bytes.
        if stored.isNull {
            damage = "it has no Z_PLIST property list"
        } else if let data = Data.fromDatabaseValue(stored) {
            do {
                let plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                if let dictionary = plist as? [String: Any] {
                    metadata = dictionary
                } else {
                    damage = "its Z_PLIST property list is a \(type(of: plist)), not a dictionary"
                }
            } catch {
                damage = "its Z_PLIST property list can't be read (\(data.count) bytes)"
            }
        } else {
            damage = "its Z_PLIST is not a property list"
        }
        metadata[NSStoreUUIDKey] = String.fromDatabaseValue(row["Z_UUID"] as DatabaseValue)
        return (metadata, damage)
    }

    /// Reads a store file's metadata without opening it as a store.
    static func readMetadata(at url: URL) throws -> [String: Any] {
        try readFile(at: url) { db in try undamaged(SQLiteStoreFile.metadata(in: db, url: url), url: url) }
    }

    /// Runs `body` on a read-only connection to the file at `url`, closed afterwards.
    /// A missing file, or one that is not SQLite, throws a Cocoa file error naming it.
    static func readFile<T>(at url: URL, _ body: (Database) throws -> T) throws -> T {
        let database = try SQLiteStoreFile.openReadOnly(url)
        defer { try? database.close() }
        do {
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
        guard !StoreLocation.isDevNull(url) else { return }
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
        guard !StoreLocation.isDevNull(source) else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "A /dev/null store lives in memory; there is no file to copy from")
        }
        guard !StoreLocation.isDevNull(destination) else { return }
        _ = try readMetadata(at: source)  // a missing file or one that is not a store throws here, naming it
        try SQLiteStoreFile.checkKind(destination, mayBeMissing: true)
        let manager = FileManager.default
        try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let from = try SQLiteStoreFile.openReadOnly(source)
        defer { try? from.close() }
        do {
            let to = try DatabaseQueue(path: destination.path)
            defer { try? to.close() }
            try from.backup(to: to)
        } catch {
            throw wrap(error, url: destination, opening: false)
        }
        let (sourceSupport, destinationSupport) = (supportDirectory(for: source), supportDirectory(for: destination))
        if manager.fileExists(atPath: destinationSupport.path) { try manager.removeItem(at: destinationSupport) }
        if manager.fileExists(atPath: sourceSupport.path) {
            try manager.copyItem(at: sourceSupport, to: destinationSupport)
        }
    }

    /// Whether a pragma name or value is a bare word or number (no SQL can hide in it).
    static func isPlainToken(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
    }

    static func supportDirectory(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(
            "." + url.deletingPathExtension().lastPathComponent + "_SUPPORT")
    }

    static func wrap(_ error: Error, url: URL?, opening: Bool) -> NSError {
        if let error = error as? DatabaseError {
            let code = error.resultCode.primaryResultCode
            if code == .SQLITE_NOTADB || code == .SQLITE_CORRUPT {
                return CoreDataError.make(
                    NSFileReadCorruptFileErrorCode,
                    "The file at \(url?.path ?? "?") couldn't be opened because it isn't in the correct format (not an SQLite database)",
                    [
                        NSSQLiteErrorDomain: Int(code.rawValue), NSFilePathErrorKey: url?.path ?? "",
                        NSUnderlyingErrorKey: error as NSError,
                    ])
            }
            return CoreDataError.sqlite(
                code.rawValue,
                "SQLite error \(code.rawValue): \(error.message ?? "unknown") (\(url?.path ?? "in-memory store"))",
                url: url)
        }
        return error as NSError
    }
}
