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
        return try prepare { context in
            for values in items {
                let item = Item(context: context)
                item.name = values.name
                item.number = values.number
                item.amount = values.amount
                item.created = values.created
                item.flag = values.flag
                item.note = values.note
            }
            try context.save()
            return items.count
        }
    }

    func fetchAndRead() throws -> PreparedRun {
        try prepare { context in
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.predicate = NSPredicate(format: "amount >= %@", BenchmarkData.fetchMinimumAmount)
            request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: true)]
            let checksum = BenchmarkData.checksum(of: try context.fetch(request))
            return checksum
        }
    }

    /// Generic code's reading: `NSManagedObject`s, every value through `value(forKey:)`.
    func keyValueFetchAndRead() throws -> PreparedRun {
        try prepare { context in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "amount >= %@", BenchmarkData.fetchMinimumAmount)
            request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: true)]
            var checksum = 0
            for item in try context.fetch(request) {
                checksum &+= BenchmarkData.checksum(
                    name: item.value(forKey: "name") as? String,
                    number: (item.value(forKey: "number") as? NSNumber)?.int64Value ?? 0,
                    amount: (item.value(forKey: "amount") as? NSNumber)?.doubleValue ?? 0,
                    created: item.value(forKey: "created") as? Date ?? .distantPast,
                    flag: (item.value(forKey: "flag") as? NSNumber)?.boolValue ?? false,
                    note: item.value(forKey: "note") as? String
                )
            }
            return checksum
        }
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

    func count() throws -> PreparedRun {
        try prepare { context in
            let request = NSFetchRequest<Item>(entityName: "Item")
            let range = BenchmarkData.countNumberRange
            request.predicate = NSPredicate(
                format: "number >= %@ AND number < %@ AND flag == YES", range.lower, range.upper)
            return try context.count(for: request)
        }
    }

    func batchedFetch() throws -> PreparedRun {
        try prepare { context in
            let request = NSFetchRequest<Item>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: true)]
            request.fetchBatchSize = BenchmarkData.batchSize
            let items = try Self.batchedResults(of: request, in: context)
            var checksum = 0
            for position in BenchmarkData.touchedPositions(count: items.count) {
                let item = items[items.index(items.startIndex, offsetBy: position)]
                checksum &+= Int(item.number) &+ (item.name?.utf8.count ?? 0)
            }
            return checksum
        }
    }

    /// Workload 4's fetch: a batch-faulting result (keys now, objects 50 at a time).
    private static func batchedResults(
        of request: NSFetchRequest<Item>, in context: NSManagedObjectContext
    ) throws -> BatchFaultingArray<Item> {
        try context.fetchBatched(request)
    }

    func update() throws -> PreparedRun {
        try prepare { context in
            let items = try context.fetch(NSFetchRequest<Item>(entityName: "Item"))
            for item in items { item.amount += 1 }
            try context.save()
            return items.reduce(0) { $0 &+ Int(($1.amount * 100).rounded()) }
        }
    }

    func insertFamilies(_ families: [FamilyValues]) throws {
        let (coordinator, store, context) = try open(storeURL)
        defer { try? coordinator.remove(store) }
        try context.performAndWait {
            for family in families {
                let parent = Parent(context: context)
                parent.name = family.name
                for value in family.childValues {
                    let child = Child(context: context)
                    child.value = value
                    child.parent = parent
                }
            }
            try context.save()
        }
    }

    func sumChildren() throws -> PreparedRun {
        try prepare { context in
            let request = NSFetchRequest<Parent>(entityName: "Parent")
            request.relationshipKeyPathsForPrefetching = ["children"]
            let parents = try context.fetch(request)
            var total = parents.count
            for parent in parents {
                for child in parent.children ?? [] { total &+= Int(child.value) }
            }
            return total
        }
    }

    func batchDelete(scratch: URL) throws -> PreparedRun {
        try StoreFiles.copy(storeURL, to: scratch)
        let run = try prepare(scratch) { context in
            try Self.deleteItems(
                matching: NSPredicate(format: "number < %@", BenchmarkData.deleteNumberLimit), in: context)
        }
        return run.finishing { StoreFiles.remove(scratch) }
    }

    /// Workload 7's delete, returning how many items went: one `NSBatchDeleteRequest`.
    private static func deleteItems(matching predicate: NSPredicate, in context: NSManagedObjectContext) throws -> Int {
        let request = NSFetchRequest<Item>(entityName: "Item")
        request.predicate = predicate
        let delete = NSBatchDeleteRequest(fetchRequest: request)
        delete.resultType = .resultTypeCount
        return (try context.execute(delete) as? NSBatchDeleteResult)?.result as? Int ?? 0
    }

}

extension Item: ItemAttributes {}

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
