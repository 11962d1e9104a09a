import Dispatch
import OpenCoreData
import OpenCoreDataCore
import OpenCoreDataSQLite

/// `cdtool migrate`: opens a store with a model, migrating it the way an app's
/// `NSPersistentContainer` would (automatic lightweight migration from the version that
/// wrote it), or by a mapping model file, and says what it did.
public enum StoreMigration {
    /// What a migration found and did.
    public struct Outcome: Equatable, Sendable {
        /// The version the store was written with: a version name of the model's bundle,
        /// "the model cached in the store", or `nil` when the store was already current.
        public let sourceVersion: String?
        /// How long opening (and migrating) took.
        public let seconds: Double

        /// One line for the terminal.
        public func summary(store: URL) -> String {
            guard let sourceVersion else {
                return "\(store.lastPathComponent): already at the model's version; nothing to migrate"
            }
            return "\(store.lastPathComponent): migrated from \(sourceVersion) in \(String(format: "%.2f", seconds)) s"
        }
    }

    /// Migrates the store at `store` to `modelURL`'s current version: with the mapping
    /// model at `mappingURL` (a `.xcmappingmodel` or compiled `.cdm`) by objects, else by
    /// automatic lightweight migration. `progress` is called from time to time with the
    /// fraction done (from this thread).
    ///
    /// A migration that would delete rows (of an entity the model does not have and no
    /// mapping removes, or of no entity of the store's model) fails naming them, the store
    /// unchanged, unless `allowingDataLoss` (`--allow-data-loss`).
    public static func migrate(
        storeAt store: URL, modelAt modelURL: URL, mappingAt mappingURL: URL? = nil, allowingDataLoss: Bool = false,
        progress: (Double) -> Void
    ) throws -> Outcome {
        guard FileManager.default.fileExists(atPath: store.path) else { throw CDToolError("no store at \(store.path)") }
        let model = try ModelFile.load(at: modelURL)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
        if model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
            return Outcome(sourceVersion: nil, seconds: 0)
        }
        let source = try sourceVersion(of: metadata, modelURL: modelURL, store: store)
        let mapping = try mappingURL.map { try mappingModel(at: $0, from: source, to: model) }
        let start = Date()
        let work = Progress(totalUnitCount: 1)
        let outcome = MigrationResult()
        let finished = DispatchSemaphore(value: 0)
        // Progress is current per thread: the migration runs on its own, this one draws.
        let thread = Thread {
            work.becomeCurrent(withPendingUnitCount: 1)
            defer { work.resignCurrent(); finished.signal() }
            do {
                if let mapping {
                    try NSMigrationManager.migrateStoreInPlace(
                        at: store, from: source.model, to: model, mapping: mapping, allowingDataLoss: allowingDataLoss)
                } else {
                    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
                    var options: [AnyHashable: Any] = [
                        NSMigratePersistentStoresAutomaticallyOption: true,
                        NSInferMappingModelAutomaticallyOption: true,
                    ]
                    if allowingDataLoss { options[OpenCoreDataMigrationAllowsDataLossOption] = true }
                    try coordinator.remove(
                        try coordinator.addPersistentStore(
                            ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: options))
                }
            } catch {
                outcome.error = error
            }
        }
        thread.start()
        while finished.wait(timeout: .now() + .milliseconds(100)) == .timedOut { progress(work.fractionCompleted) }
        progress(1)
        if let error = outcome.error { throw CDToolError(wrapping: error) }
        return Outcome(
            sourceVersion: source.name + (mappingURL.map { " with \($0.lastPathComponent)" } ?? ""),
            seconds: Date().timeIntervalSince(start))
    }

    /// The mapping model at `url`, checked to map the store's version to the model's.
    private static func mappingModel(
        at url: URL, from source: (name: String, model: NSManagedObjectModel), to model: NSManagedObjectModel
    ) throws -> NSMappingModel {
        let mapping: NSMappingModel
        do {
            mapping = try NSMappingModel.load(contentsOf: url, sourceModel: source.model, destinationModel: model)
        } catch {
            throw CDToolError("\(error)")
        }
        if let mismatch = mapping.firstMismatch(from: source.model, to: model) {
            let side = mismatch.isSource ? "from \(source.name)" : "to the model's current version"
            throw CDToolError(
                "\(url.lastPathComponent) does not map \(side): its entity mapping '\(mismatch.mappingName)' was made for another version of \(mismatch.entityName)"
            )
        }
        return mapping
    }

    /// Which version wrote the store, as the migration will find it: by version hashes
    /// among the bundle's versions, else the model Core Data cached in the store.
    private static func sourceVersion(
        of metadata: [String: Any], modelURL: URL, store: URL
    ) throws -> (name: String, model: NSManagedObjectModel) {
        if ["xcdatamodeld", "momd"].contains(modelURL.pathExtension),
            let versions = try? NSManagedObjectModel.versions(in: modelURL)
        {
            for name in versions.versionNames.reversed() {
                if let model = versions.modelsByVersionName[name],
                    model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
                {
                    return ("version '\(name)'", model)
                }
            }
        }
        if let cached = try? NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: store),
            cached.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
        {
            return ("the model cached in the store", cached)
        }
        throw CDToolError(
            "no version of \(modelURL.lastPathComponent) has the store's version hashes, and the store caches no model of its own: the store cannot be migrated with this model"
        )
    }

    /// The migration thread's result, read after it signals.
    private final class MigrationResult: @unchecked Sendable {
        var error: Error?
    }
}
