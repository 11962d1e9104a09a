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
