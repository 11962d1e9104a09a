import Dispatch
import OpenCoreData

/// `cdtool migrate`: opens a store with a model, migrating it the way an app's
/// `NSPersistentContainer` would (automatic lightweight migration from the version that
/// wrote it), and says what it did.
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
            guard let sourceVersion else { return "\(store.lastPathComponent): already at the model's version; nothing to migrate" }
            return "\(store.lastPathComponent): migrated from \(sourceVersion) in \(String(format: "%.2f", seconds)) s"
        }
    }

    /// Migrates the store at `store` to `modelURL`'s current version. `progress` is
    /// called from time to time with the fraction done (from this thread).
    public static func migrate(storeAt store: URL, modelAt modelURL: URL, progress: (Double) -> Void) throws -> Outcome {
        guard FileManager.default.fileExists(atPath: store.path) else { throw CDToolError("no store at \(store.path)") }
        let model = try ModelFile.load(at: modelURL)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
        if model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
            return Outcome(sourceVersion: nil, seconds: 0)
        }
        let source = try sourceVersion(of: metadata, modelURL: modelURL, store: store)
        let start = Date()
        let work = Progress(totalUnitCount: 1)
        let outcome = MigrationResult()
        let finished = DispatchSemaphore(value: 0)
        // Progress is current per thread: the migration runs on its own, this one draws.
        let thread = Thread {
            work.becomeCurrent(withPendingUnitCount: 1)
            defer { work.resignCurrent(); finished.signal() }
            do {
                let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
                let options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
                try coordinator.remove(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: options))
            } catch {
                outcome.error = error
            }
        }
        thread.start()
        while finished.wait(timeout: .now() + .milliseconds(100)) == .timedOut { progress(work.fractionCompleted) }
        progress(1)
        if let error = outcome.error { throw CDToolError(wrapping: error) }
        return Outcome(sourceVersion: source, seconds: Date().timeIntervalSince(start))
    }

    /// Which version wrote the store, as the migration will find it: by version hashes
    /// among the bundle's versions, else the model Core Data cached in the store.
    private static func sourceVersion(of metadata: [String: Any], modelURL: URL, store: URL) throws -> String {
        if ["xcdatamodeld", "momd"].contains(modelURL.pathExtension), let versions = try? NSManagedObjectModel.versions(in: modelURL) {
            for name in versions.versionNames.reversed() where versions.modelsByVersionName[name]?.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) == true {
                return "version '\(name)'"
            }
        }
        if let cached = try? NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: store),
           cached.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
            return "the model cached in the store"
        }
        throw CDToolError("no version of \(modelURL.lastPathComponent) has the store's version hashes, and the store caches no model of its own: the store cannot be migrated with this model")
    }

    /// The migration thread's result, read after it signals.
    private final class MigrationResult: @unchecked Sendable {
        var error: Error?
    }
}
