/// Automatic migration (`NSMigratePersistentStoresAutomaticallyOption`) of a store file
/// before the store opens: by a mapping model file that maps the store's version (Core
/// Data looks for one before it infers a mapping: heavyweight migration at open), else by
/// the inferred mapping when `NSInferMappingModelAutomaticallyOption` allows it.
///
/// Both run on connections of their own, before the store's: opening a store switches
/// it to WAL, which rewrites the file's header, and a migration that fails must leave the
/// file exactly as it was.
enum AutomaticMigration {
    /// Migrates the store at `url` to `model` when automatic migration is on and the
    /// model that wrote it is found. Does nothing otherwise: opening the store then
    /// reports why it cannot (a missing source or mapping model, incompatible hashes).
    static func migrateBeforeOpening(
        storeAt url: URL, to model: NSManagedObjectModel, configuration: String?, options: [AnyHashable: Any]?
    ) throws {
        guard NSPersistentStore.isSet(options?[NSMigratePersistentStoresAutomaticallyOption]),
            !((options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false),
            !((options?[NSIgnorePersistentStoreVersioningOption] as? Bool) ?? false),
            FileManager.default.fileExists(atPath: url.path),
            // A file that is not a store is reported by the open that follows.
            let engine = try? StoreEngines.sqlite(),
            let metadata = try? engine.metadata(ofStoreAt: url),
            !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata),
            let found = SourceModelSearch.sourceModel(
                for: metadata, destination: model, configuration: configuration,
                cachedModel: { try? engine.cachedModel(inStoreAt: url) })
        else { return }
        let allowsDataLoss = MigrationDataLoss.isAllowed(by: options)
        let neighbours =
            model.bundleURL.map { MappingModelSearch.files(inFolder: $0.deletingLastPathComponent()) } ?? []
        let files = neighbours + MappingModelSearch.files(in: ModelResourceSearch.searchedBundles())
        if let mapping = NSMappingModel.find(in: files, from: found.model, to: model) {
            StoreDebugLog.annotate(
                "\(url.path): migrating by a mapping model file from the model version found by its version hashes \(found.origin)"
            )
            try NSMigrationManager.migrateStoreInPlace(
                at: url, from: found.model, to: model, mapping: mapping, allowingDataLoss: allowsDataLoss)
            return
        }
        // Without inference, opening reports the missing mapping model.
        guard SourceModelSearch.infersMigration(options) else { return }
        StoreDebugLog.annotate(
            "\(url.path): migrating from the model version found by its version hashes \(found.origin)")
        try engine.migrateStoreFile(
            at: url, from: found.model, to: model, configuration: configuration, allowingDataLoss: allowsDataLoss)
    }
}

extension NSMigrationManager {
    /// Migrates the SQLite store at `url` from `source` to `destination` by `mapping`, in
    /// place: into a new store beside it (`<name>.migrating`, a leftover of an interrupted
    /// run removed first), whose contents then replace the store's in one SQLite
    /// transaction; until then the store is untouched (it is read on a read-only
    /// connection). The manager's progress becomes a child of the current `Progress`. For
    /// opening a store and for `cdtool migrate`; rows the mapping would drop without
    /// saying so stop it unless `allowingDataLoss` (``OpenCoreDataMigrationAllowsDataLossOption``).
    package static func migrateStoreInPlace(
        at url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel, mapping: NSMappingModel,
        allowingDataLoss: Bool = false
    ) throws {
        let work = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".migrating")
        let engine = try StoreEngines.sqlite()
        try? engine.destroyStoreFiles(at: work)
        defer { try? engine.destroyStoreFiles(at: work) }
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        let options: [AnyHashable: Any]? = allowingDataLoss ? [OpenCoreDataMigrationAllowsDataLossOption: true] : nil
        try manager.migrateStore(from: url, type: .sqlite, options: options, mapping: mapping, to: work, type: .sqlite)
        try engine.replaceStoreFiles(at: url, from: work)
    }
}
