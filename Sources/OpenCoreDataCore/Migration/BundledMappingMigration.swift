/// Automatic migration with a mapping model file: before it infers a mapping, Core Data
/// looks for a mapping model from the store's version to the model opening it, and
/// migrates by objects when it finds one (heavyweight migration at open).
enum BundledMappingMigration {
    /// Migrates the store at `url` to `model` with the mapping model that maps its
    /// version, when automatic migration is on and one is found beside the model's
    /// bundle or among the app's bundles. Does nothing otherwise: opening the store then
    /// infers a mapping or reports why it cannot.
    /// The migration runs in place (``NSMigrationManager/migrateStoreInPlace(at:from:to:mapping:)``).
    static func migrateIfMapped(storeAt url: URL, to model: NSManagedObjectModel, configuration: String?, options: [AnyHashable: Any]?) throws {
        guard NSPersistentStore.isSet(options?[NSMigratePersistentStoresAutomaticallyOption]),
              !((options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false),
              !((options?[NSIgnorePersistentStoreVersioningOption] as? Bool) ?? false),
              FileManager.default.fileExists(atPath: url.path),
              // A file that is not a store is reported by the open that follows.
              let engine = try? StoreEngines.sqlite(),
              let metadata = try? engine.metadata(ofStoreAt: url),
              !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata),
              let found = SourceModelSearch.sourceModel(for: metadata, destination: model, configuration: configuration,
                                                        cachedModel: { try? engine.cachedModel(inStoreAt: url) })
        else { return }
        let neighbours = model.bundleURL.map { MappingModelSearch.files(inFolder: $0.deletingLastPathComponent()) } ?? []
        let files = neighbours + MappingModelSearch.files(in: ModelResourceSearch.searchedBundles())
        guard let mapping = NSMappingModel.find(in: files, from: found.model, to: model) else { return }
        StoreDebugLog.annotate("\(url.path): migrating by a mapping model file from the model version found by its version hashes \(found.origin)")
        try NSMigrationManager.migrateStoreInPlace(at: url, from: found.model, to: model, mapping: mapping)
    }
}

extension NSMigrationManager {
    /// Migrates the SQLite store at `url` from `source` to `destination` by `mapping`, in
    /// place: into a new store beside it (`<name>.migrating`, a leftover of an interrupted
    /// run removed first), whose contents then replace the store's in one SQLite
    /// transaction; until then the store is untouched. The manager's progress becomes a
    /// child of the current `Progress`. For opening a store and for `cdtool migrate`.
    package static func migrateStoreInPlace(at url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel, mapping: NSMappingModel) throws {
        let work = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".migrating")
        let engine = try StoreEngines.sqlite()
        try? engine.destroyStoreFiles(at: work)
        defer { try? engine.destroyStoreFiles(at: work) }
        let manager = NSMigrationManager(sourceModel: source, destinationModel: destination)
        try manager.migrateStore(from: url, type: .sqlite, mapping: mapping, to: work, type: .sqlite)
        try engine.replaceStoreFiles(at: url, from: work)
    }
}
