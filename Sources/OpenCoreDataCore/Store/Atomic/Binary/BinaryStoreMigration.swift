/// Lightweight migration of a Binary store file when it opens with automatic migration
/// and inference on (`NSMigratePersistentStoresAutomaticallyOption`,
/// `NSInferMappingModelAutomaticallyOption`), through the SQLite engine's migration.
///
/// The file is read with the model version that wrote it (found by its version hashes,
/// as for SQLite stores, the model cached in the file being the last resort), copied into a temporary SQLite store, migrated there by the
/// inferred mapping, and written back as a Binary file that replaces the original in one
/// rename: a migration that fails leaves the file as it was. The store keeps its UUID.
enum BinaryStoreMigration {
    static func migrateBeforeOpening(
        storeAt url: URL, to model: NSManagedObjectModel, configuration: String?, options: [AnyHashable: Any]?
    ) throws {
        guard NSPersistentStore.isSet(options?[NSMigratePersistentStoresAutomaticallyOption]),
            !NSPersistentStore.isSet(options?[NSReadOnlyPersistentStoreOption]),
            !NSPersistentStore.isSet(options?[NSIgnorePersistentStoreVersioningOption])
        else { return }
        let metadata = try BinaryStoreFile.metadata(at: url)
        guard !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) else { return }
        guard
            let found = SourceModelSearch.sourceModel(
                for: metadata, destination: model, configuration: configuration,
                cachedModel: { try? BinaryStoreFile.cachedModel(at: url) })
        else {
            throw CoreDataError.make(
                NSMigrationMissingSourceModelError,
                "Can't find the model the Binary store at \(url.path) was made with, so it cannot be migrated: no model version in the destination model's bundle, among the app's models or cached in the file has its version hashes",
                [NSFilePathErrorKey: url.path, "metadata": metadata]
            )
        }
        guard SourceModelSearch.infersMigration(options) else {
            throw CoreDataError.make(
                NSMigrationMissingMappingModelError,
                "Can't migrate the Binary store at \(url.path) from its model version \(found.origin) without NSInferMappingModelAutomaticallyOption: Binary stores migrate by the inferred mapping only",
                [NSFilePathErrorKey: url.path]
            )
        }
        StoreDebugLog.annotate(
            "\(url.path): migrating the Binary store from the model version found by its version hashes \(found.origin)"
        )
        let engine = try StoreEngines.sqlite()
        let folder = url.deletingLastPathComponent()
        let token = UUID().uuidString
        let work = folder.appendingPathComponent(".\(url.lastPathComponent).\(token).migrating.sqlite")
        let written = folder.appendingPathComponent(".\(url.lastPathComponent).\(token).migrated")
        defer {
            try? engine.destroyStoreFiles(at: work)
            try? FileManager.default.removeItem(at: written)
        }

        // The file as its own model version reads it, copied into an SQLite store.
        let sourceCoordinator = NSPersistentStoreCoordinator(managedObjectModel: found.model)
        let source = try sourceCoordinator.addPersistentStore(
            ofType: NSBinaryStoreType, configurationName: configuration, at: url,
            options: [NSReadOnlyPersistentStoreOption: true])
        guard let database = try NSPersistentStoreCoordinator.copyableBackend(of: source) else {
            throw CoreDataError.make(NSMigrationError, "Can't migrate the Binary store at \(url.path): it did not load")
        }
        try engine.copyStore(database, toFileAt: work)
        try sourceCoordinator.remove(source)

        try engine.migrateStoreFile(
            at: work, from: found.model, to: model, configuration: configuration,
            allowingDataLoss: MigrationDataLoss.isAllowed(by: options))

        // Back to a Binary file, which then takes the original's place.
        let entities = model.entities(forConfigurationName: configuration) ?? model.entities
        let destinationCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let migrated = try destinationCoordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: configuration, at: work, options: nil)
        let binary = BinaryStore(
            persistentStoreCoordinator: destinationCoordinator, configurationName: configuration, at: written,
            options: nil)
        binary.type = NSBinaryStoreType
        try binary.open(model: model, entities: entities, copying: migrated.backend, metadata: metadata)
        binary.backend?.close()
        try destinationCoordinator.remove(migrated)
        guard rename(written.path, url.path) == 0 else {
            let code = errno
            throw CoreDataError.make(
                NSMigrationError,
                "Can't replace the Binary store at \(url.path) with its migrated copy: \(String(cString: strerror(code)))",
                [NSFilePathErrorKey: url.path])
        }
    }
}
