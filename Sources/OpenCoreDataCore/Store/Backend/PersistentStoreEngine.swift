/// What a store type offers before any of its stores is open: opening one, and the
/// operations on store files the coordinator, migration and tools run without an open
/// store. The SQLite engine (module OpenCoreDataSQLite) serves `NSSQLiteStoreType` and
/// `NSInMemoryStoreType`; a PostgreSQL or incremental store would be another engine.
///
/// An engine's open stores are ``PersistentStoreBackend``s.
///
/// Its metatype is shared by every coordinator on every thread, hence `SendableMetatype`.
package protocol PersistentStoreEngine: SendableMetatype {
    /// Opens the store file at `url` (created when missing) for `entities` of `model`.
    /// Throws when the file is not a store or holds an incompatible one.
    static func openStore(
        at url: URL, model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?,
        options: [AnyHashable: Any]?
    ) throws -> NSPersistentStore

    /// Opens a store that lives in memory, of store type `type`; a copy of `source` when given.
    static func openInMemoryStore(
        model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?,
        options: [AnyHashable: Any]?, type: String, copying source: (any PersistentStoreBackend)?
    ) throws -> NSPersistentStore

    /// Whether ``copyStore(_:toFileAt:)`` and ``openInMemoryStore(model:entities:configuration:options:type:copying:)``
    /// can copy `backend` (one of this engine's stores).
    static func canCopy(_ backend: any PersistentStoreBackend) -> Bool

    /// Writes a consistent copy of the open store `source` to a new file at `url`.
    static func copyStore(_ source: any PersistentStoreBackend, toFileAt url: URL) throws

    /// The metadata of the store file at `url`, read without opening the store for use.
    static func metadata(ofStoreAt url: URL) throws -> [String: Any]

    /// ``metadata(ofStoreAt:)`` of the store `url` and `options` locate together (a
    /// PostgreSQL store's schema); engines whose stores a URL names alone ignore `options`.
    static func metadata(ofStoreAt url: URL, options: [AnyHashable: Any]?) throws -> [String: Any]

    /// The model Core Data cached in the store file at `url`, or `nil` when it caches none.
    static func cachedModel(inStoreAt url: URL) throws -> NSManagedObjectModel?

    /// Deletes the store's files (database, journals, external data); a missing store is no error.
    static func destroyStoreFiles(at url: URL) throws

    /// Destroys the store at `url` for ``NSPersistentStoreCoordinator/destroyPersistentStore(at:ofType:options:)``,
    /// leaving what Core Data leaves (an SQLite store stays, truncated to an empty database),
    /// and throws for anything at `url` that is not one of this engine's stores. A missing
    /// store is no error. Engines that do not say otherwise delete the store's files.
    static func destroyStore(at url: URL) throws

    /// ``destroyStore(at:)`` of the store `url` and `options` locate together; engines
    /// whose stores a URL names alone ignore `options`.
    static func destroyStore(at url: URL, options: [AnyHashable: Any]?) throws

    /// Replaces the metadata of the store file at `url`, which is not open, with `metadata`
    /// (the store's UUID and type stay when `metadata` lacks them).
    static func setMetadata(_ metadata: [String: Any], ofStoreAt url: URL) throws

    /// Replaces the store at `destination` with a copy of the store at `source`.
    static func replaceStoreFiles(at destination: URL, from source: URL) throws

    /// Changes the store file at `url` from `source`'s schema to `destination`'s in place,
    /// by the inferred (lightweight) mapping, in one transaction on a connection that
    /// keeps the file's journal mode, so a failure leaves the file as it was. Does nothing
    /// when the store is already of `destination`'s version. Refuses to drop rows (see
    /// ``MigrationDataLoss``) unless `allowingDataLoss`.
    static func migrateStoreFile(
        at url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel, configuration: String?,
        allowingDataLoss: Bool) throws

    /// The rows of the store file at `url` by entity of `entities` (the model it was
    /// written with), and those of no entity of theirs, read without writing the file.
    static func rowCounts(inStoreAt url: URL, entities: [NSEntityDescription]) throws -> StoreRowCounts
}

extension PersistentStoreEngine {
    /// A URL alone names the store.
    package static func metadata(ofStoreAt url: URL, options: [AnyHashable: Any]?) throws -> [String: Any] {
        try metadata(ofStoreAt: url)
    }

    /// A URL alone names the store.
    package static func destroyStore(at url: URL, options: [AnyHashable: Any]?) throws {
        try destroyStore(at: url)
    }

    /// Deletes the store's files: a store type whose files hold nothing else to keep.
    package static func destroyStore(at url: URL) throws { try destroyStoreFiles(at: url) }

    /// Store types whose files cannot be written without opening them refuse.
    package static func setMetadata(_ metadata: [String: Any], ofStoreAt url: URL) throws {
        throw CoreDataError.make(
            NSPersistentStoreOperationError,
            "This store type can't write metadata to a store that is not open; add the store and use setMetadata(_:for:)",
            [NSFilePathErrorKey: url.path])
    }
}

/// Where the coordinator finds the engines of its store types.
///
/// The SQLite engine lives in a module above this one. This module declares a typed hook
/// for it, ``linkedSQLiteEngine()``, which answers `nil`; the SQLite module replaces it
/// (`@_dynamicReplacement`) with its engine, so a program that links the SQLite module (every
/// program that depends on the OpenCoreData library) finds it, checked by the compiler on
/// both sides.
package enum StoreEngines {
    /// The engine of SQLite and in-memory stores.
    package static func sqlite() throws -> any PersistentStoreEngine.Type {
        try linked(
            linkedSQLiteEngine(), "SQLite", advice: "depend on the OpenCoreData library, not on OpenCoreDataCore alone")
    }

    /// The SQLite engine when its module is linked in: the SQLite module replaces this
    /// function's body with one that answers its engine.
    package dynamic static func linkedSQLiteEngine() -> (any PersistentStoreEngine.Type)? { nil }

    /// The type string of PostgreSQL stores (`NSPostgreSQLStoreType` in OpenCoreDataPostgreSQL).
    package static let postgreSQLStoreType = "PostgreSQL"
    /// The option naming a PostgreSQL store's schema (`NSPostgreSQLSchemaNameOption`): with the
    /// URL, what locates the store.
    package static let postgreSQLSchemaOption = "NSPostgreSQLSchemaNameOption"

    /// The engine of PostgreSQL stores; throws when OpenCoreDataPostgreSQL is not linked in.
    package static func postgreSQL() throws -> any PersistentStoreEngine.Type {
        try linked(
            linkedPostgreSQLEngine(), "PostgreSQL",
            advice: "depend on the OpenCoreDataPostgreSQL library and import OpenCoreDataPostgreSQL")
    }

    /// The PostgreSQL engine when its module is linked in, filled in as ``linkedSQLiteEngine()`` is.
    package dynamic static func linkedPostgreSQLEngine() -> (any PersistentStoreEngine.Type)? { nil }

    /// `engine`, or the error saying which module to link when its hook found none.
    private static func linked(
        _ engine: (any PersistentStoreEngine.Type)?, _ name: String, advice: String
    ) throws -> any PersistentStoreEngine.Type {
        guard let engine else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError, "The \(name) store engine is not linked into this program: \(advice)"
            )
        }
        return engine
    }
}

/// Store locations every engine understands.
package enum StoreLocation {
    /// Core Data's idiom for a throwaway SQLite store (test suites use it): a store at
    /// `/dev/null` lives in memory, still of the SQLite type.
    package static func isDevNull(_ url: URL) -> Bool {
        url.isFileURL && url.standardizedFileURL.path == "/dev/null"
    }
}
