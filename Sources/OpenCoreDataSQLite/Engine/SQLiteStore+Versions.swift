import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Which model version a store was written with, and what opening it under another one does.
extension SQLiteStore {
    /// Metadata key marking a store this library created: its version hashes were
    /// computed here, so a difference means the model changed.
    static let createdByOpenCoreDataKey = "OpenCoreDataStoreFormat"

    /// Decides whether `entities` can use the existing store in `db`, migrating it first
    /// when it was written with another version of the model; returns the metadata to use.
    ///
    /// The rules, in order (the one that decides is written to the SQL debug log):
    /// 1. `NSIgnorePersistentStoreVersioningOption`: the layout alone decides.
    /// 2. Version hashes equal to the model's: opens, after checking the layout.
    /// 3. With automatic migration and inference, a source model found by the store's
    ///    hashes (the bundle's versions, the app's models, then the model Core Data cached
    ///    in the store): migrates in this transaction. (The coordinator migrates a store file
    ///    before it opens it, on a connection that keeps its journal mode, so this is for
    ///    stores that changed in between.) Without inference, the mapping model is missing
    ///    (`NSMigrationMissingMappingModelError`): a mapping model file that maps the
    ///    version migrated the store before it was opened (`AutomaticMigration`).
    /// 4. A store Core Data wrote whose tables are exactly what the model maps to: opens
    ///    (a model edited by hand after the store was written; see docs/DEVIATIONS.md).
    /// 5. Otherwise `NSPersistentStoreIncompatibleVersionHashError`, the file untouched.
    static func adopt(
        _ db: Database, metadata: [String: Any], model: NSManagedObjectModel, entities: [NSEntityDescription],
        schema: SQLSchema,
        configuration: String?, options: [AnyHashable: Any]?, url: URL?
    ) throws -> [String: Any] {
        let path = url?.path ?? "memory"
        if (options?[NSIgnorePersistentStoreVersioningOption] as? Bool) ?? false {
            try SQLiteSchemaCheck.verify(db, schema: schema, url: url)
            StoreDebugLog.annotate(
                "\(path): opened ignoring version hashes (NSIgnorePersistentStoreVersioningOption); its layout matches the model"
            )
            return metadata
        }
        let incompatible = { (detail: String) in
            CoreDataError.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The model used to open the store is incompatible with the one used to create the store\(detail)",
                [NSFilePathErrorKey: url?.path ?? "", "metadata": metadata]
            )
        }
        if versionHashesMatch(metadata, entities: entities) {
            try SQLiteSchemaCheck.verify(db, schema: schema, url: url)
            return metadata
        }
        let readOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        let migrates = !readOnly && NSPersistentStore.isSet(options?[NSMigratePersistentStoresAutomaticallyOption])
        if migrates,
            let found = SourceModelSearch.sourceModel(
                for: metadata, destination: model, configuration: configuration,
                cachedModel: { SQLiteModelCache.model(in: db) })
        {
            guard SourceModelSearch.infersMigration(options) else {
                throw CoreDataError.make(
                    NSMigrationMissingMappingModelError,
                    "Can't find a mapping model for the migration of the store at \(path) from its model version \(found.origin): without NSInferMappingModelAutomaticallyOption a mapping model file (.cdm or .xcmappingmodel, beside the model or among the app's bundles) must map that version to this one",
                    [NSFilePathErrorKey: url?.path ?? ""]
                )
            }
            StoreDebugLog.annotate(
                "\(path): migrating from the model version found by its version hashes \(found.origin)")
            return try migrate(
                db, metadata: metadata, from: found.model, to: model, entities: entities, schema: schema,
                configuration: configuration, url: url,
                allowingDataLoss: MigrationDataLoss.isAllowed(by: options))
        }
        // Asked to migrate, the missing piece is the source model, as Core Data reports it.
        let failure = { (detail: String) in
            migrates
                ? CoreDataError.make(
                    NSMigrationMissingSourceModelError,
                    "Can't find the model the store at \(path) was made with, so it cannot be migrated: no model version in the destination model's bundle, among the app's models or cached in the store has its version hashes\(detail)",
                    [NSFilePathErrorKey: url?.path ?? "", "metadata": metadata]
                ) : incompatible(detail)
        }
        guard metadata[createdByOpenCoreDataKey] == nil else { throw failure("") }
        do {
            try SQLiteSchemaCheck.verify(db, schema: schema, url: url)
        } catch let error as NSError {
            throw failure(": \(error.localizedDescription)")
        }
        StoreDebugLog.annotate(
            "\(path): version hashes differ from the model's, opened by the layout rule (its tables are exactly what the model maps to)"
        )
        return metadata
    }

    /// Migrates the closed store file at `url` from `source` to `destination` with an
    /// inferred mapping, in one transaction (automatic migration before a store opens, a
    /// step of a staged migration).
    ///
    /// The connection keeps the file's journal mode (a store's own connection switches it
    /// to WAL, which rewrites the file's header): a migration that fails leaves the file's
    /// bytes as they were. A store another process migrated meanwhile is left alone.
    static func migrateFile(
        at url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel, configuration: String?,
        allowingDataLoss: Bool
    ) throws {
        try destination.validateForUse()
        let entities = destination.entities(forConfigurationName: configuration) ?? destination.entities
        var settings = Configuration()
        settings.busyMode = .timeout(busyTimeout)
        settings.prepareDatabase { db in try SQLiteFunctions.install(in: db) }
        do {
            let database = try DatabaseQueue(path: url.path, configuration: settings)
            defer { try? database.close() }
            // Immediate: a second process waits for the first one's migration, then finds
            // the store already migrated.
            try database.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    let metadata = try readMetadata(db, url: url)
                    guard !destination.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata)
                    else { return .commit }
                    _ = try migrate(
                        db, metadata: metadata, from: source, to: destination, entities: entities,
                        schema: SQLSchema(entities: entities),
                        configuration: configuration, url: url, allowingDataLoss: allowingDataLoss)
                    return .commit
                }
            }
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw wrap(error, url: url, opening: true)
        }
    }

    /// Migrates the store in `db` from `sourceModel` to `entities` of `model` with an
    /// inferred mapping, in the open transaction, and returns the new metadata.
    private static func migrate(
        _ db: Database, metadata: [String: Any], from sourceModel: NSManagedObjectModel, to model: NSManagedObjectModel,
        entities: [NSEntityDescription], schema: SQLSchema, configuration: String?, url: URL?,
        allowingDataLoss: Bool
    ) throws -> [String: Any] {
        let sourceEntities = try sourceModel.migrationSourceEntities(configuration: configuration)
        let sourceSchema = SQLSchema(entities: sourceEntities)
        do {
            try SQLiteSchemaCheck.verify(db, schema: sourceSchema, url: url)
        } catch let error as NSError {
            throw CoreDataError.make(
                NSMigrationError,
                "Can't migrate the store at \(url?.path ?? "?"): its tables are not those of the model version its metadata names (\(error.localizedDescription))",
                [NSUnderlyingErrorKey: error])
        }
        let mapping = try MappingInference(source: sourceEntities, destination: entities).mappingModel()
        try SQLiteMigration(
            db: db, source: sourceSchema, destination: schema, mapping: mapping, url: url,
            allowsDataLoss: allowingDataLoss
        ).run()
        var migrated = metadata
        for (key, value) in StoreVersionMetadata.entries(model: model, entities: entities) { migrated[key] = value }
        var plist = migrated
        plist[NSStoreUUIDKey] = metadata[NSStoreUUIDKey]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        try db.execute(SQLMetadataStatements.update(plist: data))
        // The migration emptied the cache of the old version; the new one takes its place.
        if url != nil { try SQLiteModelCache.write(model, in: db) }
        return migrated
    }

    private static func versionHashesMatch(_ metadata: [String: Any], entities: [NSEntityDescription]) -> Bool {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return true }
        let hashes = Dictionary(
            uniqueKeysWithValues: entities.compactMap { entity in entity.name.map { ($0, entity.versionHash) } })
        return stored.compactMapValues({ $0 as? Data }) == hashes
    }
}
