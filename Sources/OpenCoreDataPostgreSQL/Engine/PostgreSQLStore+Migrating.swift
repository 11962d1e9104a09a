import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// Lightweight migration of a PostgreSQL store as it opens: with
/// `NSMigratePersistentStoresAutomaticallyOption` and `NSInferMappingModelAutomaticallyOption`,
/// a store made with another version of the model (found by its version hashes) is
/// migrated by ``SQLMigration`` in the opening transaction. PostgreSQL's DDL is
/// transactional: a migration that fails leaves the old tables, rows and metadata whole,
/// and openers on other hosts wait on the store's lock, then find it migrated.
extension PostgreSQLStore {
    /// The metadata of a store whose model is not `model`: migrated to it when the options
    /// ask for an inferred migration and the model that made the store is found.
    ///
    /// - Throws: `NSPersistentStoreIncompatibleVersionHashError` when it cannot migrate, or
    ///   the migration's error (`NSMigrationError`, a data-loss refusal, a constraint violation).
    static func migrated(
        _ connection: PostgreSQLConnection, metadata: [String: Any], to model: NSManagedObjectModel,
        entities: [NSEntityDescription], schema: SQLSchema, configuration: String?, options: [AnyHashable: Any]?,
        url: URL, settings: PostgreSQLConnectionSettings
    ) throws -> [String: Any] {
        let readOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        guard SourceModelSearch.infersMigration(options), !readOnly,
            let found = SourceModelSearch.sourceModel(
                for: metadata, destination: model, configuration: configuration,
                cachedModel: { try? cachedModel(connection, url: url) })
        else {
            let migrationAsked = NSPersistentStore.isSet(options?[NSMigratePersistentStoresAutomaticallyOption])
            throw CoreDataError.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The model used to open the store is incompatible with the one used to create the store"
                    + (migrationAsked
                        ? " (PostgreSQL stores migrate with an inferred mapping, when the model that made the store is found: set NSInferMappingModelAutomaticallyOption and keep that model version or the store's cached model)"
                        : ""),
                [NSFilePathErrorKey: settings.displayURL, "metadata": metadata])
        }
        let sourceEntities = try found.model.migrationSourceEntities(configuration: configuration)
        let earlier = try earlierVersions(
            metadata, migratingFrom: found.model, sourceEntities: sourceEntities, to: model, entities: entities,
            options: options, settings: settings)
        let sourceSchema = SQLSchema(entities: sourceEntities, dialect: .postgreSQL)
        let database = PostgreSQLDatabaseAdapter(connection: connection)
        for table in sourceSchema.tables.map(\.name) + sourceSchema.joinTables.map(\.name)
        where try !database.tableExists(table) {
            throw CoreDataError.make(
                NSMigrationError,
                "Can't migrate the store at \(settings.displayURL): its tables are not those of the model version its metadata names (no table \(table))"
            )
        }
        // Column by column too: a table someone altered by hand would otherwise fail in the
        // middle of the copy, with PostgreSQL's message instead of this one.
        for table in sourceSchema.tables {
            let present = try database.columnNames(of: table.name)
            // PostgreSQL keeps the first 63 bytes of a longer name, in statements as in its catalog.
            let missing = table.columns.map(\.name).filter {
                !present.contains(String(decoding: $0.uppercased().utf8.prefix(63), as: UTF8.self))
            }
            guard missing.isEmpty else {
                throw CoreDataError.make(
                    NSMigrationError,
                    "Can't migrate the store at \(settings.displayURL): table \(table.name) lacks the column(s) \(missing.joined(separator: ", ")) of the model version its metadata names"
                )
            }
        }
        let mapping = try MappingInference(source: sourceEntities, destination: entities).mappingModel()
        let migration = SQLMigration(
            db: database, source: sourceSchema, destination: schema, mapping: mapping, storeName: settings.displayURL,
            externalValue: nil, allowsDataLoss: MigrationDataLoss.isAllowed(by: options))
        // The last key each source table's sequence handed out, deleted rows' included.
        var handedOut: [String: Int64] = [:]
        for table in sourceSchema.tables.map(\.name) {
            handedOut[table] = try connection.run(PostgreSQLStatements.lastKey(of: table)).integer(0, 0) ?? 0
        }
        try migration.run()
        // Keys keep coming from one sequence per table: each moves past the kept keys and
        // every key the tables its rows came from handed out (a renamed entity's table too).
        let kept = Set(schema.tables.map(\.name))
        for table in sourceSchema.tables.map(\.name) where !kept.contains(table) {
            try connection.run(
                PostgreSQLStatements.drop(kind: "SEQUENCE", name: PostgreSQLStatements.sequence(of: table)))
        }
        for table in schema.tables {
            let sources = table.root.facts.selfAndDescendants.compactMap(migration.sourceEntity(for:))
            let carried = try sources.map { handedOut[try sourceSchema.table(for: $0).name] ?? 0 }.max() ?? 0
            try connection.run(PostgreSQLStatements.createSequence(of: table.name, ifMissing: true))
            try connection.run(PostgreSQLStatements.advanceSequencePastKeys(of: table.name, handedOut: carried))
        }
        var migrated = metadata
        for (key, value) in StoreVersionMetadata.entries(model: model, entities: entities) { migrated[key] = value }
        migrated[earlierVersionsKey] = earlier
        try connection.run(SQLMetadataStatements.update(plist: try SQLStoreMetadata.propertyList(migrated)))
        // The migration emptied the cache of the old version; the new one takes its place.
        if let content = SQLModelCache.content(of: model) {
            try connection.run(SQLMetadataStatements.insertModelCache(content))
        }
        return migrated
    }

    /// The metadata key listing the checksums of the model versions the store was migrated
    /// away from, oldest first.
    static let earlierVersionsKey = "OCDEarlierModelVersionChecksums"

    /// The store's earlier model versions once it is migrated from `source` to `model`.
    ///
    /// Servers of a rolling deploy run the old model beside the new one: an old server
    /// opening a store the new ones migrated would migrate it back, and an inferred migration
    /// back drops the values of every attribute the new version added. A model the store was
    /// migrated away from is therefore refused, unless ``NSPostgreSQLAllowsMigratingBackOption``
    /// is set; migrating back on purpose forgets that version and the ones after it.
    ///
    /// - Throws: `NSPersistentStoreIncompatibleVersionHashError` for a model the store left.
    private static func earlierVersions(
        _ metadata: [String: Any], migratingFrom source: NSManagedObjectModel, sourceEntities: [NSEntityDescription],
        to model: NSManagedObjectModel, entities: [NSEntityDescription], options: [AnyHashable: Any]?,
        settings: PostgreSQLConnectionSettings
    ) throws -> [String] {
        func checksum(_ model: NSManagedObjectModel, _ entities: [NSEntityDescription]) -> String {
            StoreVersionMetadata.entries(model: model, entities: entities)["NSStoreModelVersionChecksumKey"] as? String
                ?? ""
        }
        let earlier = metadata[earlierVersionsKey] as? [String] ?? []
        guard let position = earlier.firstIndex(of: checksum(model, entities)) else {
            return earlier + [checksum(source, sourceEntities)]
        }
        guard NSPersistentStore.isSet(options?[NSPostgreSQLAllowsMigratingBackOption]) else {
            throw CoreDataError.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The PostgreSQL store at \(settings.displayURL) was migrated from this model version to a newer one; migrating it back would drop the values of what the newer version added. Open it with the newer model (a server not yet updated in a rolling deploy), or set NSPostgreSQLAllowsMigratingBackOption to migrate it back",
                [NSFilePathErrorKey: settings.displayURL, "metadata": metadata])
        }
        return Array(earlier[..<position])
    }
}
