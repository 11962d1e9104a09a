import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL

/// Where a worker's store is, as a command-line argument names it: an SQLite file path, or
/// a PostgreSQL database URL (`postgres://…`).
public struct WorkerStore: Sendable {
    /// The store type (`NSSQLiteStoreType` or `NSPostgreSQLStoreType`).
    public let type: String
    /// The file or the database.
    public let url: URL

    /// The store an argument names.
    public init(_ argument: String) {
        if argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://"), let url = URL(string: argument) {
            self.init(type: NSPostgreSQLStoreType, url: url)
        } else {
            self.init(type: NSSQLiteStoreType, url: URL(fileURLWithPath: argument))
        }
    }

    /// The store of `type` at `url`.
    public init(type: String, url: URL) {
        self.type = type
        self.url = url
    }

    /// The argument naming the store.
    public var argument: String { type == NSSQLiteStoreType ? url.path : url.absoluteString }

    /// A coordinator of `model` with the store added.
    public func coordinator(
        model: NSManagedObjectModel, options: [AnyHashable: Any]? = nil
    ) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: options)
        return coordinator
    }
}
