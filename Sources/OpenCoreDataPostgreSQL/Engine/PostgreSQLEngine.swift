import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// The PostgreSQL engine as the coordinator sees it: stores in a database schema, named by
/// a `postgres://` URL, in Core Data's tables.
///
/// The core finds it through its typed hook, which this module fills in (below), so linking
/// OpenCoreDataPostgreSQL is all it takes for `NSPostgreSQLStoreType` to open stores.
/// Operations on store files that have no meaning for a database, or that this engine does
/// not run yet, throw `NSPersistentStoreOperationError` with the reason.
package enum PostgreSQLEngine: PersistentStoreEngine {
    package static func openStore(
        at url: URL, model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?,
        options: [AnyHashable: Any]?
    ) throws -> NSPersistentStore {
        try PostgreSQLStore.open(
            at: url, model: model, entities: entities, configuration: configuration, options: options)
    }

    package static func openInMemoryStore(
        model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?,
        options: [AnyHashable: Any]?, type: String, copying source: (any PersistentStoreBackend)?
    ) throws -> NSPersistentStore {
        throw unsupported("A PostgreSQL store lives in a database: give it a postgres:// URL")
    }

    package static func canCopy(_ backend: any PersistentStoreBackend) -> Bool { false }

    package static func copyStore(_ source: any PersistentStoreBackend, toFileAt url: URL) throws {
        throw unsupported("Copying a PostgreSQL store is not supported yet")
    }

    package static func metadata(ofStoreAt url: URL) throws -> [String: Any] {
        try metadata(ofStoreAt: url, options: nil)
    }

    package static func metadata(ofStoreAt url: URL, options: [AnyHashable: Any]?) throws -> [String: Any] {
        try PostgreSQLStore.withConnection(to: url, options: options) { connection, settings in
            guard let metadata = try PostgreSQLStore.readMetadata(connection, url: url) else {
                throw PostgreSQLStore.noStore(settings)
            }
            return metadata
        }
    }

    package static func cachedModel(inStoreAt url: URL) throws -> NSManagedObjectModel? {
        try PostgreSQLStore.withConnection(to: url, options: nil) { connection, _ in
            try PostgreSQLStore.cachedModel(connection, url: url)
        }
    }

    package static func destroyStoreFiles(at url: URL) throws {
        try destroyStore(at: url, options: nil)
    }

    package static func destroyStore(at url: URL) throws {
        try destroyStore(at: url, options: nil)
    }

    /// Drops the store in the schema the options name (`public` by default).
    package static func destroyStore(at url: URL, options: [AnyHashable: Any]?) throws {
        try PostgreSQLStore.withConnection(to: url, options: options) { connection, _ in
            try PostgreSQLStore.dropTables(connection, url: url)
        }
    }

    package static func replaceStoreFiles(at destination: URL, from source: URL) throws {
        throw unsupported("Replacing a PostgreSQL store is not supported yet")
    }

    /// Stores migrate as they open (see `PostgreSQLStore.migrated`), in the opening transaction.
    package static func migrateStoreFile(
        at url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel, configuration: String?,
        allowingDataLoss: Bool
    ) throws {
        throw unsupported(
            "A PostgreSQL store migrates as it opens: add it with NSMigratePersistentStoresAutomaticallyOption and NSInferMappingModelAutomaticallyOption"
        )
    }

    package static func rowCounts(inStoreAt url: URL, entities: [NSEntityDescription]) throws -> StoreRowCounts {
        throw unsupported("Counting a PostgreSQL store's rows outside the store is not supported yet")
    }

    private static func unsupported(_ reason: String) -> NSError {
        CoreDataError.make(NSPersistentStoreOperationError, reason)
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "?" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "?"
    }
}

extension StoreEngines {
    /// This module's engine, for the core's hook.
    @_dynamicReplacement(for:linkedPostgreSQLEngine())
    package static func linkedPostgreSQLEngineFromPostgreSQLModule() -> (any PersistentStoreEngine.Type)? {
        PostgreSQLEngine.self
    }
}
