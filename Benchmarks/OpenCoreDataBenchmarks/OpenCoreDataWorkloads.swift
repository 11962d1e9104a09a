// The workloads on OpenCoreData, written as an app uses Core Data: a model built in
// code, NSManagedObject subclasses, an SQLite store, a private-queue context.
import OpenCoreData

class OpenCoreDataContender: Contender {
    class var label: String { "OpenCoreData" }
    /// The options the store is added with.
    class var storeOptions: [AnyHashable: Any]? { nil }
    class func supports(_ workload: Workload) -> Bool { true }
    private let storeURL: URL
    private let template: URL
    private let model = BenchmarkModel.make()

    required init(storeURL: URL, template: URL) {
        self.storeURL = storeURL
        self.template = template
    }

    /// Creates the empty store every contender starts from: OpenCoreData's schema for the benchmark model.
    static func makeTemplate(at url: URL) throws {
        StoreFiles.remove(url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BenchmarkModel.make())
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        try coordinator.remove(store)
    }

    /// A new coordinator and private-queue context on the store at `url`.
    private func open(_ url: URL) throws -> (NSPersistentStoreCoordinator, NSPersistentStore, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: Self.storeOptions)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, store, context)
    }

    /// Opens the store untimed; the timed body runs `work` inside `performAndWait`.
    private func prepare(
        _ url: URL? = nil, _ work: @escaping (NSManagedObjectContext) throws -> Int
    ) throws -> PreparedRun {
        let (coordinator, store, context) = try open(url ?? storeURL)
        return PreparedRun(
            body: { try context.performAndWait { try work(context) } },
            finish: { try? coordinator.remove(store) }
        )
    }

    func insert(_ items: [ItemValues]) throws -> PreparedRun {
        try StoreFiles.copy(template, to: storeURL)
        return try prepare { try CoreDataWorkloads.insert(items, in: $0) }
    }

    func fetchAndRead() throws -> PreparedRun { try prepare { try CoreDataWorkloads.fetchAndRead(in: $0) } }

    func keyValueInsert(_ items: [ItemValues]) throws -> PreparedRun {
        try StoreFiles.copy(template, to: storeURL)
        return try prepare { try CoreDataWorkloads.keyValueInsert(items, in: $0) }
    }

    /// Two private-queue contexts of one coordinator, as two requests of a server.
    func concurrentFetchAndRead() throws -> PreparedRun {
        let (coordinator, store, first) = try open(storeURL)
        let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        second.persistentStoreCoordinator = coordinator
        return PreparedRun(
            body: { try CoreDataWorkloads.concurrentFetchAndRead(in: [first, second]) },
            finish: { try? coordinator.remove(store) })
    }

    func keyValueFetchAndRead() throws -> PreparedRun {
        try prepare { try CoreDataWorkloads.keyValueFetchAndRead(in: $0) }
    }

    /// Every item as a registered, loaded object (faults fired), held with its context.
    func fetchAndHold() throws -> PreparedRun {
        let held = HeldResult()
        let run = try prepare { context in
            let items = try context.fetch(NSFetchRequest<Item>(entityName: "Item"))
            let checksum = BenchmarkData.checksum(of: items)
            held.value = (items, context)
            return checksum
        }
        return run.finishing { held.value = nil }
    }

    func count() throws -> PreparedRun { try prepare { try CoreDataWorkloads.count(in: $0) } }

    func batchedFetch() throws -> PreparedRun { try prepare { try CoreDataWorkloads.batchedFetch(in: $0) } }

    func update() throws -> PreparedRun { try prepare { try CoreDataWorkloads.update(in: $0) } }

    func insertFamilies(_ families: [FamilyValues]) throws {
        let (coordinator, store, context) = try open(storeURL)
        defer { try? coordinator.remove(store) }
        try context.performAndWait { try CoreDataWorkloads.insertFamilies(families, in: context) }
    }

    func sumChildren() throws -> PreparedRun { try prepare { try CoreDataWorkloads.sumChildren(in: $0) } }

    func batchDelete(scratch: URL) throws -> PreparedRun {
        try StoreFiles.copy(storeURL, to: scratch)
        let run = try prepare(scratch) { try CoreDataWorkloads.batchDelete(in: $0) }
        return run.finishing { StoreFiles.remove(scratch) }
    }
}

/// The Core Data layer with persistent history on, as SwiftData always keeps it (and as a Core
/// Data app sharing a store with SwiftData must): the same work as OpenSwiftData's writes, so
/// their ratio is the SwiftData layer's own cost. Runs the write workloads only.
final class OpenCoreDataHistoryContender: OpenCoreDataContender {
    override class var label: String { "OpenCoreData+history" }
    override class var storeOptions: [AnyHashable: Any]? { [NSPersistentHistoryTrackingKey: true] }

    override class func supports(_ workload: Workload) -> Bool {
        [.insert, .update, .batchDelete].contains(workload)
    }
}
