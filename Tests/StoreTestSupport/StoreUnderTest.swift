import Foundation
import OpenCoreData

/// A store engine the store-level behaviour suites run on: each test target supplies
/// the engines it links (SQLite here; PostgreSQL in its own target), and the suites add
/// stores of that type at new locations.
public struct StoreUnderTest: Sendable, CustomStringConvertible {
    /// The store type (`NSSQLiteStoreType`, `NSPostgreSQLStoreType`).
    public let type: String
    /// A location holding no store yet; `name` tells tests' stores apart.
    private let newLocation: @Sendable (_ name: String) throws -> URL

    public init(type: String, newLocation: @escaping @Sendable (_ name: String) throws -> URL) {
        self.type = type
        self.newLocation = newLocation
    }

    /// An SQLite file in a folder of its own under the temporary directory.
    public static let sqlite = StoreUnderTest(type: NSSQLiteStoreType) { name in
        FileManager.default.temporaryDirectory
            .appendingPathComponent("OpenCoreDataTests-\(UUID().uuidString)")
            .appendingPathComponent("\(name).sqlite")
    }

    /// A location holding no store yet.
    public func location(_ name: String = "Test") throws -> URL { try newLocation(name) }

    /// A private-queue context on a new coordinator whose one store is at `url`.
    public func context(
        _ url: URL, model: NSManagedObjectModel, options: [AnyHashable: Any]?, name: String? = nil,
        author: String? = nil
    ) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        context.transactionAuthor = author
        return context
    }

    public var description: String { type }
}

extension NSManagedObjectContext {
    /// Every `entity` object, sorted by `key` ascending (on the context's queue: the caller's).
    public func fetchAll(_ entity: String, sortedBy key: String) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try fetch(request)
    }
}
