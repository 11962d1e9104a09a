// The workloads on OpenCoreData's PostgreSQL store, written as an app uses Core Data: the
// benchmark's model and NSManagedObject subclasses, a private-queue context, and the SQLite
// benchmark's own workload code (`CoreDataWorkloads`); only the store type and URL differ.
import OpenCoreData
import OpenCoreDataPostgreSQL

final class OpenCoreDataContender: Contender {
    static let label = "OpenCoreData"
    private let url: URL
    private let model = BenchmarkModel.make()

    init(url: URL) {
        self.url = url
    }

    /// A new coordinator and private-queue context on the database at `url`.
    private func open(_ url: URL) throws -> (NSPersistentStoreCoordinator, NSPersistentStore, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            type: .postgreSQL, configuration: nil, at: url, options: [:])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, store, context)
    }

    /// Opens the store untimed; the timed body runs `work` inside `performAndWait`.
    private func prepare(
        _ url: URL? = nil, _ work: @escaping @Sendable (NSManagedObjectContext) throws -> Int
    ) throws -> PreparedRun {
        let (coordinator, store, context) = try open(url ?? self.url)
        return PreparedRun(
            body: { try context.performAndWait { try work(context) } },
            finish: { try? coordinator.remove(store) }
        )
    }

    func insert(_ items: [ItemValues]) throws -> PreparedRun {
        try prepare { try CoreDataWorkloads.insert(items, in: $0) }
    }

    func fetchAndRead() throws -> PreparedRun { try prepare { try CoreDataWorkloads.fetchAndRead(in: $0) } }

    func keyValueFetchAndRead() throws -> PreparedRun {
        try prepare { try CoreDataWorkloads.keyValueFetchAndRead(in: $0) }
    }

    func count() throws -> PreparedRun { try prepare { try CoreDataWorkloads.count(in: $0) } }

    /// `name` breaks ties, so every contender touches the same items.
    func batchedFetch() throws -> PreparedRun {
        try prepare {
            try CoreDataWorkloads.batchedFetch(
                in: $0,
                sortedBy: [
                    NSSortDescriptor(key: "number", ascending: true), NSSortDescriptor(key: "name", ascending: true),
                ])
        }
    }

    func update() throws -> PreparedRun { try prepare { try CoreDataWorkloads.update(in: $0) } }

    func insertFamilies(_ families: [FamilyValues]) throws {
        let (coordinator, store, context) = try open(url)
        defer { try? coordinator.remove(store) }
        try context.performAndWait { try CoreDataWorkloads.insertFamilies(families, in: context) }
    }

    func sumChildren() throws -> PreparedRun { try prepare { try CoreDataWorkloads.sumChildren(in: $0) } }

    func batchDelete(scratch: URL) throws -> PreparedRun {
        try prepare(scratch) { try CoreDataWorkloads.batchDelete(in: $0) }
    }
}
