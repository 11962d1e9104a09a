import Foundation
import OpenCoreData

/// Where the seed apps keep their data on Linux: a folder per app in the XDG data directory
/// (`$XDG_DATA_HOME`, else `~/.local/share`), as `NSPersistentContainer` puts stores, unless
/// the user names another folder.
public enum ExampleData {
    /// The app's data folder, created when missing: `folder` when given, else
    /// `<XDG data directory>/<app>`.
    public static func directory(for app: String, in folder: String? = nil) throws -> URL {
        let url = folder.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? NSPersistentContainer.defaultDirectoryURL().appendingPathComponent(app, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A container named `name` (its model found by that name among the app's resources,
    /// unless `model` is given) with its SQLite store at `url`, loaded: an app's Core Data
    /// stack. It migrates a store made with another model version automatically, as
    /// containers do, unless `migrates` is false.
    public static func container(_ name: String, model: NSManagedObjectModel? = nil, storeURL url: URL, migrates: Bool = true) throws -> NSPersistentContainer {
        let container = model.map { NSPersistentContainer(name: name, managedObjectModel: $0) } ?? NSPersistentContainer(name: name)
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = migrates
        description.shouldInferMappingModelAutomatically = migrates
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw ExampleFailure("cannot open \(url.path): \(failure.localizedDescription)") }
        return container
    }

    /// The Documents folder the seeds write archives to: `$XDG_DOCUMENTS_DIR` when set (Linux
    /// Foundation ignores it and `HOME`, so tests could not move it otherwise), else Foundation's.
    public static func documentsDirectory() throws -> URL {
        let environment = ProcessInfo.processInfo.environment["XDG_DOCUMENTS_DIR"]
        let url = environment.flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
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
