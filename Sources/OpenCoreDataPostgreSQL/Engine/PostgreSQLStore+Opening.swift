import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// Opening a store: Core Data's tables created in the schema when it has none, the model
/// checked against the metadata when it has; and what the engine does to a store that is
/// not open (metadata, cached model, destroying).
extension PostgreSQLStore {
    static func open(
        at url: URL, model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?,
        options: [AnyHashable: Any]?
    ) throws -> NSPersistentStore {
        let settings = try PostgreSQLConnectionSettings(url: url, options: options)
        let readOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        let connection = try connect(settings, creatingSchema: !readOnly)
        let schema = SQLSchema(entities: entities, dialect: .postgreSQL)
        let tracksHistory = NSPersistentStore.tracksHistory(options)
        var history: SQLHistory?
        let metadata: [String: Any]
        var keepsUntrackedHistory = false
        do {
            metadata = try connection.transaction {
                try connection.run(PostgreSQLStatements.lockStore)
                var metadata: [String: Any]
                if let existing = try readMetadata(connection, url: url) {
                    metadata =
                        try isCompatible(existing, model: model, configuration: configuration, options: options)
                        ? existing
                        : migrated(
                            connection, metadata: existing, to: model, entities: entities, schema: schema,
                            configuration: configuration, options: options, url: url, settings: settings)
                } else {
                    guard !readOnly else { throw noStore(settings, ", and a read-only store is never created") }
                    metadata = try create(connection, schema: schema, model: model, entities: entities)
                }
                let database = PostgreSQLDatabaseAdapter(connection: connection)
                if tracksHistory {
                    (history, metadata) = try SQLHistory.open(
                        database, schema: schema, metadata: metadata, readOnly: readOnly)
                }
                keepsUntrackedHistory = try !tracksHistory && SQLHistory.exists(database)
                return metadata
            }
        } catch let error as PostgreSQLError {
            throw CoreDataError.make(
                NSPersistentStoreOpenError,
                "Can't open the PostgreSQL store at \(settings.displayURL): \(error.message)",
                [NSUnderlyingErrorKey: error as NSError])
        }
        let backend = PostgreSQLStore(
            connection: connection, settings: settings, schema: schema, history: history, metadata: metadata)
        let store = NSPersistentStore(
            type: NSPostgreSQLStoreType, url: url, configurationName: configuration, options: options,
            identifier: metadata[NSStoreUUIDKey] as? String ?? UUID().uuidString)
        store.isReadOnly = readOnly
        if keepsUntrackedHistory {
            // Saves without history would leave holes that its readers, on any host, could not notice.
            store.isReadOnly = true
            store.readOnlyReason = "it keeps persistent history but was added without NSPersistentHistoryTrackingKey"
        }
        store.backend = backend
        backend.store = store
        return store
    }

    /// A connection to the database `url` names, in the store's schema (created when asked and missing).
    static func connect(_ settings: PostgreSQLConnectionSettings, creatingSchema: Bool) throws -> PostgreSQLConnection {
        do {
            let connection = try PostgreSQLConnection(connectionString: settings.connectionString)
            // Asked first: creating a schema that exists needs a privilege using it does not.
            if creatingSchema, try connection.run(PostgreSQLStatements.schemaExists(settings.schema)).rowCount == 0 {
                try connection.run(PostgreSQLStatements.createSchema(settings.schema))
            }
            try connection.startSessions(with: settings.sessionStatements)
            return connection
        } catch let error as PostgreSQLError {
            throw CoreDataError.make(
                NSPersistentStoreOpenError,
                "Can't connect to the PostgreSQL store at \(settings.displayURL): \(error.message)",
                [NSUnderlyingErrorKey: error as NSError])
        }
    }

    /// Runs `body` on a connection of its own to the store at `url`, for the operations on stores that are not open.
    static func withConnection<T>(
        to url: URL, options: [AnyHashable: Any]?,
        _ body: (PostgreSQLConnection, PostgreSQLConnectionSettings) throws -> T
    ) throws -> T {
        let settings = try PostgreSQLConnectionSettings(url: url, options: options)
        let connection = try connect(settings, creatingSchema: false)
        defer { connection.close() }
        do {
            return try body(connection, settings)
        } catch let error as PostgreSQLError {
            throw operationError(error, settings)
        }
    }

    /// `error`, met working on a store that is not open (or by a tool reading one), as Core
    /// Data's `NSPersistentStoreOperationError` naming the store.
    static func operationError(_ error: PostgreSQLError, _ settings: PostgreSQLConnectionSettings) -> NSError {
        CoreDataError.make(
            NSPersistentStoreOperationError, "The PostgreSQL store at \(settings.displayURL): \(error.message)",
            [NSUnderlyingErrorKey: error as NSError])
    }

    /// Whether `model` (its `configuration`) is the one the store was made with, by Core
    /// Data's version hashes (or the options say not to check).
    private static func isCompatible(
        _ metadata: [String: Any], model: NSManagedObjectModel, configuration: String?, options: [AnyHashable: Any]?
    ) -> Bool {
        if (options?[NSIgnorePersistentStoreVersioningOption] as? Bool) ?? false { return true }
        return model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata)
    }

    /// Creates the store's tables, sequences and metadata in the session's schema.
    private static func create(
        _ connection: PostgreSQLConnection, schema: SQLSchema, model: NSManagedObjectModel,
        entities: [NSEntityDescription]
    ) throws -> [String: Any] {
        for statement in SQLSchemaStatements(schema: schema).create() { try connection.run(statement) }
        try connection.run(PostgreSQLStatements.createUnicodeCollation)
        for table in schema.tables { try connection.run(PostgreSQLStatements.createSequence(of: table.name)) }
        for entity in schema.entities {
            try connection.run(SQLPrimaryKeyStatements.insertEntity(entity, counter: 0))
        }
        let uuid = UUID().uuidString
        var metadata: [String: Any] = [NSStoreUUIDKey: uuid, NSStoreTypeKey: NSPostgreSQLStoreType]
        for (key, value) in StoreVersionMetadata.entries(model: model, entities: entities) { metadata[key] = value }
        try connection.run(SQLMetadataStatements.insert(uuid: uuid, plist: try SQLStoreMetadata.propertyList(metadata)))
        if let content = SQLModelCache.content(of: model) {
            try connection.run(SQLMetadataStatements.insertModelCache(content))
        }
        return metadata
    }

    /// The error for a schema that holds no store (`NSFileReadNoSuchFileError`), `detail` after its words.
    static func noStore(_ settings: PostgreSQLConnectionSettings, _ detail: String = "") -> NSError {
        CoreDataError.make(
            NSFileReadNoSuchFileError,
            "There is no store in schema '\(settings.schema)' of \(settings.displayURL)\(detail)",
            [NSFilePathErrorKey: settings.displayURL])
    }

    /// Whether the session's schema holds a store (its `Z_METADATA` table).
    static func hasStore(_ connection: PostgreSQLConnection) throws -> Bool {
        try PostgreSQLDatabaseAdapter(connection: connection).tableExists("Z_METADATA")
    }

    /// The store's metadata, or `nil` when the schema holds no store.
    static func readMetadata(_ connection: PostgreSQLConnection, url: URL) throws -> [String: Any]? {
        guard try hasStore(connection) else { return nil }
        let result = try connection.run(SQLMetadataStatements.read)
        guard result.rowCount == 1, let plist = result.bytes(0, 1),
            let metadata = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any]
        else {
            throw CoreDataError.make(
                NSFileReadCorruptFileErrorCode,
                "The PostgreSQL store at \(PostgreSQLEngine.redacted(url)) has damaged metadata (Z_METADATA)",
                [NSFilePathErrorKey: PostgreSQLEngine.redacted(url)])
        }
        return metadata
    }

    /// The model cached in `Z_MODELCACHE`, or `nil` when the store caches none.
    static func cachedModel(_ connection: PostgreSQLConnection, url: URL) throws -> NSManagedObjectModel? {
        guard try hasStore(connection) else { return nil }
        let result = try connection.run(SQLMetadataStatements.cachedModel)
        guard result.rowCount > 0, let content = result.bytes(0, 0) else { return nil }
        return try SQLModelCache.model(
            from: content, source: ModelFileSource(url: url.appendingPathComponent("Z_MODELCACHE")))
    }

    /// Drops the store from the session's schema: the tables of the model it caches (entity
    /// and join tables), the bookkeeping and history tables, the key sequences and the
    /// collation, and nothing else the schema holds. A schema without a store is left alone.
    static func dropTables(_ connection: PostgreSQLConnection, url: URL) throws {
        try connection.transaction {
            guard try hasStore(connection) else { return }
            guard let model = try cachedModel(connection, url: url) else {
                throw CoreDataError.make(
                    NSPersistentStoreOperationError,
                    "The PostgreSQL store caches no model (Z_MODELCACHE), so its tables are not known: drop them by hand"
                )
            }
            try model.validateForUse()
            let schema = SQLSchema(entities: model.entities, dialect: .postgreSQL)
            for table in schema.tables {
                try connection.run(PostgreSQLStatements.drop(kind: "TABLE", name: table.name))
                try connection.run(
                    PostgreSQLStatements.drop(kind: "SEQUENCE", name: PostgreSQLStatements.sequence(of: table.name)))
            }
            for joinTable in schema.joinTables {
                try connection.run(PostgreSQLStatements.drop(kind: "TABLE", name: joinTable.name))
            }
            for name in PostgreSQLStatements.bookkeepingTables {
                try connection.run(PostgreSQLStatements.drop(kind: "TABLE", name: name))
            }
            try connection.run(PostgreSQLStatements.drop(kind: "COLLATION", name: "OCD_UNICODE"))
        }
    }
}
