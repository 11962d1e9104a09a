/// The option (`NSPersistentStoreDescription.setOption(_:forKey:)` or the options of
/// `addPersistentStore`) that gives a store an ``NSStagedMigrationManager``.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

/// Migrates a store through a sequence of model versions in one open: each step is a
/// lightweight migration, and custom stages run the app's code before and after theirs.
///
/// Give it to a store with ``NSPersistentStoreStagedMigrationManagerOptionKey``. When the
/// store is added, its version (the checksum of its entity hashes) is found among the
/// stages' versions, and every step from there to the coordinator's model runs in order
/// (to the stages' last version when the coordinator's model is none of them); each
/// step is one transaction, so a crash leaves the store at the last finished version,
/// from which the next open goes on.
open class NSStagedMigrationManager: NSObject, @unchecked Sendable {
    /// The stages, in migration order.
    public let stages: [NSMigrationStage]
    /// A container on the store while a custom stage's handler runs (under the stage's
    /// old model in the will handler, its new model in the did handler); `nil` otherwise.
    open private(set) var container: NSPersistentContainer?

    /// A manager for these stages, oldest first.
    ///
    /// - Parameter stages: Lightweight and custom stages, oldest version first.
    public init(_ stages: [NSMigrationStage]) {
        self.stages = stages
        super.init()
    }

    /// One step: a version to the next, with the custom stage that owns it, if any.
    private struct Step {
        let from: String
        let to: String
        let stage: NSCustomMigrationStage?
    }

    /// The steps the stages describe, in order.
    private var steps: [Step] {
        var steps: [Step] = []
        var last: String?
        func move(to checksum: String, stage: NSCustomMigrationStage?) {
            if let from = last, from != checksum { steps.append(Step(from: from, to: checksum, stage: stage)) }
            last = checksum
        }
        for stage in stages {
            if let custom = stage as? NSCustomMigrationStage {
                move(to: custom.currentModel.versionChecksum, stage: nil)
                move(to: custom.nextModel.versionChecksum, stage: custom)
            } else if let lightweight = stage as? NSLightweightMigrationStage {
                for checksum in lightweight.versionChecksums { move(to: checksum, stage: nil) }
            }
        }
        return steps
    }

    /// Brings the store at `url` from its version to `destination`'s, or to the last version
    /// of the stages when `destination` is none of them, before it is added with
    /// `destination`. Later stages wait for an app that uses their models. A missing store, or
    /// one already of the destination's version, is left alone.
    func migrateStore(
        at url: URL, to destination: NSManagedObjectModel, configuration: String?, options: [AnyHashable: Any]?
    ) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let metadata = try StoreEngines.sqlite().metadata(ofStoreAt: url)
        guard !destination.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) else {
            return
        }
        let stored = (metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.compactMapValues { $0 as? Data } ?? [:]
        let current = VersionHasher.checksum(of: stored)
        let steps = steps
        guard let first = steps.firstIndex(where: { $0.from == current }) else {
            if steps.contains(where: { $0.to == current }) { return }
            throw CoreDataError.make(
                NSMigrationMissingSourceModelError,
                "The store at \(url.path) has version \(current), which no stage of the staged migration names",
                [NSFilePathErrorKey: url.path])
        }
        let models = knownModels(destination: destination)
        func model(_ checksum: String) throws -> NSManagedObjectModel {
            guard let model = models[checksum] else {
                throw CoreDataError.make(
                    NSMigrationMissingSourceModelError,
                    "No model version with checksum \(checksum) was found for the staged migration")
            }
            return model
        }
        var run = steps[first...]
        if let end = run.firstIndex(where: { $0.to == destination.versionChecksum }) { run = run[...end] }
        for step in run {
            let (from, to) = (try model(step.from), try model(step.to))
            if let stage = step.stage, let handler = stage.willMigrateHandler {
                try withContainer(model: from, at: url, options: options) { try handler(self, stage) }
            }
            StoreDebugLog.annotate("\(url.path): staged migration from version \(step.from) to \(step.to)")
            try StoreEngines.sqlite().migrateStoreFile(
                at: url, from: from, to: to, configuration: configuration,
                allowingDataLoss: MigrationDataLoss.isAllowed(by: options))
            if let stage = step.stage, let handler = stage.didMigrateHandler {
                try withContainer(model: to, at: url, options: options) { try handler(self, stage) }
            }
        }
    }

    /// Models by checksum: the custom stages' own, then the versions of the destination's
    /// bundle and of the app's bundles.
    private func knownModels(destination: NSManagedObjectModel) -> [String: NSManagedObjectModel] {
        var models: [String: NSManagedObjectModel] = [:]
        func add(_ model: NSManagedObjectModel) {
            models[model.versionChecksum] = models[model.versionChecksum] ?? model
        }
        for case let stage as NSCustomMigrationStage in stages {
            add(stage.currentModel.resolvedModel)
            add(stage.nextModel.resolvedModel)
        }
        add(destination)
        if let bundle = destination.bundleURL, let versions = try? NSManagedObjectModel.versions(in: bundle) {
            versions.modelsByVersionName.values.forEach(add)
        }
        for (_, model) in ModelResourceSearch.allVersions(in: ModelResourceSearch.searchedBundles()) { add(model) }
        return models
    }

    /// Runs `body` with ``container`` open on the store under `model` (with the store's
    /// own options, such as history tracking, but no migration), closed afterwards.
    private func withContainer(
        model: NSManagedObjectModel, at url: URL, options: [AnyHashable: Any]?, _ body: () throws -> Void
    ) throws {
        let container = NSPersistentContainer(
            name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        for (key, value) in options ?? [:] {
            guard let name = key.base as? String, name != NSPersistentStoreStagedMigrationManagerOptionKey else {
                continue
            }
            let object: NSObject? =
                (value as? Bool).map { NSNumber(value: $0) } ?? (value as? Int).map { NSNumber(value: $0) }
                ?? (value as? String).map { NSString(string: $0) } ?? (value as? NSObject)
            description.setOption(object, forKey: name)
        }
        description.shouldMigrateStoreAutomatically = false
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        self.container = container
        defer {
            self.container = nil
            for store in container.persistentStoreCoordinator.persistentStores {
                try? container.persistentStoreCoordinator.remove(store)
            }
        }
        try body()
    }
}
