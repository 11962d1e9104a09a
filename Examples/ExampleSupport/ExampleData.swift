import Foundation
import OpenCoreData

/// Where the seed apps keep their data on Linux: a folder per app in the XDG data directory
/// (`$XDG_DATA_HOME`, else `~/.local/share`), as `NSPersistentContainer` puts stores, unless
/// the user names another folder.
public enum ExampleData {
    /// The app's data folder, created when missing: `folder` when given, else
    /// `<XDG data directory>/<app>`. Throws an ``ExampleFailure`` saying why a folder cannot
    /// be made (a file in its path, a folder that may not be written).
    public static func directory(for app: String, in folder: String? = nil) throws -> URL {
        let url =
            folder.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? NSPersistentContainer.defaultDirectoryURL().appendingPathComponent(app, isDirectory: true)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw ExampleFailure("\(url.path) is a file, not a folder; choose a folder with --data.")
            }
            return url
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            // Another launch may have made it meanwhile.
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
                return url
            }
            throw ExampleFailure(
                FileProblem.blocked(url.path)
                    ?? "cannot make the folder \(url.path): \(ExampleFailure.oneLine(error.localizedDescription))")
        }
        return url
    }

    /// A container named `name` (its model found by that name among the app's resources,
    /// unless `model` is given) with its SQLite store at `url`, loaded: an app's Core Data
    /// stack. It migrates a store made with another model version automatically, as
    /// containers do, unless `migrates` is false. With `tracksHistory` the store keeps
    /// persistent history, as SwiftData's stores do: a store SwiftData also opens needs it,
    /// since Core Data opens a store that keeps history read-only without it.
    public static func container(
        _ name: String, model: NSManagedObjectModel? = nil, storeURL url: URL, migrates: Bool = true,
        tracksHistory: Bool = false
    ) throws -> NSPersistentContainer {
        let container =
            model.map { NSPersistentContainer(name: name, managedObjectModel: $0) } ?? NSPersistentContainer(name: name)
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = migrates
        description.shouldInferMappingModelAutomatically = migrates
        if tracksHistory { description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
        // A store its user may not write (its file or folder read-only) opens read-only, so
        // commands that only read still work; a save then says why it cannot write.
        description.isReadOnly =
            FileManager.default.fileExists(atPath: url.path)
            && (access(url.path, W_OK) != 0 || access(url.deletingLastPathComponent().path, W_OK) != 0)
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw ExampleFailure(openingSentence(url, failure)) }
        return container
    }

    /// ``container(_:model:storeURL:migrates:tracksHistory:)`` whose store gets its first data from `seed`
    /// once: the objects `seed` inserts and the store's mark that it ran are one save, so a
    /// launch killed or failing before that save leaves no mark, and the next launch seeds
    /// again. Launches at once wait for each other (a lock on the store's folder), so only
    /// one seeds. A store that has objects but no mark (made before the mark existed) is
    /// not seeded; it gets the mark with its next save.
    ///
    /// - Parameter seed: Inserts the first objects into the context it is given (the view
    ///   context); may throw, which saves nothing.
    public static func container(
        _ name: String, model: NSManagedObjectModel? = nil, storeURL url: URL, migrates: Bool = true,
        seed: (NSManagedObjectContext) throws -> Void
    ) throws -> NSPersistentContainer {
        try FolderLock.holding(url.deletingLastPathComponent()) {
            let container = try self.container(name, model: model, storeURL: url, migrates: migrates)
            let coordinator = container.persistentStoreCoordinator
            guard let store = coordinator.persistentStores.first else { return container }
            let metadata = coordinator.metadata(for: store)
            guard metadata[seededKey] == nil else { return container }
            coordinator.setMetadata(metadata.merging([seededKey: true]) { $1 }, for: store)
            let context = container.viewContext
            guard try isEmpty(context, of: container.managedObjectModel) else { return container }
            do {
                try seed(context)
                killPoint("seed")
                try context.save()
            } catch {
                context.rollback()
                coordinator.setMetadata(metadata, for: store)
                throw error
            }
            return container
        }
    }

    /// The store metadata key that says a store got its first data.
    public static let seededKey = "OpenCoreDataExampleSeeded"

    /// Whether the store behind `context` holds no object of `model`'s entities.
    private static func isEmpty(_ context: NSManagedObjectContext, of model: NSManagedObjectModel) throws -> Bool {
        for entity in model.entities where entity.superentity == nil {
            guard let name = entity.name else { continue }
            if try context.count(for: NSFetchRequest<NSManagedObject>(entityName: name)) > 0 { return false }
        }
        return true
    }

    /// The sentence for a store at `url` that did not open.
    private static func openingSentence(_ url: URL, _ error: Error) -> String {
        let sentence = ExampleFailure.sentence(for: error)
        // A sentence about another path (the folder, the store's files) says which; else name the store.
        return sentence.contains(url.deletingLastPathComponent().path)
            ? sentence : "cannot open \(url.path): \(sentence)"
    }

    /// The Documents folder the seeds write archives to: `$XDG_DOCUMENTS_DIR` when set (Linux
    /// Foundation ignores it and `HOME`, so tests could not move it otherwise), else Foundation's.
    public static func documentsDirectory() throws -> URL {
        let environment = ProcessInfo.processInfo.environment["XDG_DOCUMENTS_DIR"]
        let url =
            environment.flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
            ?? FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A failure the user caused or can fix (a name that does not exist, a bad value): printed as
/// `Error: <message>` with exit code 1 by the argument parser.
public struct ExampleFailure: Error, CustomStringConvertible {
    /// What went wrong, for the user.
    public let description: String

    /// A failure with its message.
    public init(_ description: String) { self.description = description }
}

extension ExampleData {
    /// The environment variable that names a point at which to kill the process.
    public static let killPointVariable = "OPENCOREDATA_EXAMPLE_KILL_AT"

    /// Kills the process with SIGKILL, as a crash or the system would, when
    /// `OPENCOREDATA_EXAMPLE_KILL_AT` names `point`; does nothing otherwise. The tests use it
    /// to check what a kill at an awkward moment leaves behind (`seed`: a first-launch import
    /// whose objects are made but not yet saved).
    public static func killPoint(_ point: String) {
        guard ProcessInfo.processInfo.environment[killPointVariable] == point else { return }
        kill(getpid(), SIGKILL)
    }
}

/// An exclusive lock on a folder (`flock`, released when the holder closes it or dies), for
/// what one launch must do alone.
enum FolderLock {
    /// Runs `body` while holding the lock on `folder`; without it when the folder cannot be
    /// opened (what `body` does there fails and says why).
    static func holding<T>(_ folder: URL, _ body: () throws -> T) throws -> T {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return try body() }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
        return try body()
    }
}
