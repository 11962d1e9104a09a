import OpenCoreDataCore
import OpenCoreDataSQL
/// The SQLite engine as the coordinator sees it: SQLite files, `/dev/null` and in-memory
/// databases in Core Data's schema.
///
/// The core reaches it through its typed hook, which this module fills in (below).
package enum SQLiteEngine: PersistentStoreEngine {
    package static func openStore(
        at url: URL, model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?,
        options: [AnyHashable: Any]?
    ) throws -> NSPersistentStore {
        try SQLiteStore.open(at: url, model: model, entities: entities, configuration: configuration, options: options)
    }

    package static func openInMemoryStore(
        model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?,
        options: [AnyHashable: Any]?, type: String, copying source: (any PersistentStoreBackend)?
    ) throws -> NSPersistentStore {
        try SQLiteStore.openInMemory(
            model: model, entities: entities, configuration: configuration, options: options, type: type,
            copying: source.map(sqliteStore))
    }

    package static func canCopy(_ backend: any PersistentStoreBackend) -> Bool { backend is SQLiteStore }

    package static func copyStore(_ source: any PersistentStoreBackend, toFileAt url: URL) throws {
        try sqliteStore(source).copyDatabase(toFileAt: url)
    }

    package static func metadata(ofStoreAt url: URL) throws -> [String: Any] { try SQLiteStore.readMetadata(at: url) }

    package static func cachedModel(inStoreAt url: URL) throws -> NSManagedObjectModel? {
        try SQLiteModelCache.model(inStoreAt: url)
    }

    package static func destroyStoreFiles(at url: URL) throws { try SQLiteStore.destroyFiles(at: url) }

    package static func destroyStore(at url: URL) throws { try SQLiteStore.truncateStore(at: url) }

    package static func setMetadata(_ metadata: [String: Any], ofStoreAt url: URL) throws {
        try SQLiteStore.writeMetadata(metadata, toStoreAt: url)
    }

    package static func replaceStoreFiles(at destination: URL, from source: URL) throws {
        try SQLiteStore.replaceFiles(at: destination, from: source)
    }

    package static func migrateStoreFile(
        at url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel, configuration: String?,
        allowingDataLoss: Bool
    ) throws {
        try SQLiteStore.migrateFile(
            at: url, from: source, to: destination, configuration: configuration, allowingDataLoss: allowingDataLoss)
    }

    package static func rowCounts(inStoreAt url: URL, entities: [NSEntityDescription]) throws -> StoreRowCounts {
        try SQLiteStore.readFile(at: url) { db in
            try SQLiteMigration.rowCounts(db, schema: SQLSchema(entities: entities))
        }
    }

    /// The coordinator hands back only stores this engine opened (see ``canCopy(_:)``).
    private static func sqliteStore(_ backend: any PersistentStoreBackend) -> SQLiteStore {
        backend as! SQLiteStore
    }
}

extension StoreEngines {
    /// Fills in the core's hook for the SQLite engine: linking this module is what makes
    /// SQLite stores available.
    @_dynamicReplacement(for:linkedSQLiteEngine())
    package static func linkedSQLiteEngineFromSQLiteModule() -> (any PersistentStoreEngine.Type)? { SQLiteEngine.self }
}
