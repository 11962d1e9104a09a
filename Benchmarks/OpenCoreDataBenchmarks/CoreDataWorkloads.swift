// The workloads as a Core Data app writes them, on a context: the same code whichever store
// the context's coordinator has (the SQLite benchmark's and the PostgreSQL benchmark's).
import OpenCoreData

enum CoreDataWorkloads {
    /// Workload 1: `items` as new `Item`s, saved.
    static func insert(_ items: [ItemValues], in context: NSManagedObjectContext) throws -> Int {
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

    /// Workload 10: workload 1 as generic code (an importer, a ported app) writes it: objects
    /// made by entity name, every value set by key as the `Any` it arrives as.
    static func keyValueInsert(_ items: [ItemValues], in context: NSManagedObjectContext) throws -> Int {
        for values in items {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue(values.name, forKey: "name")
            item.setValue(values.number, forKey: "number")
            item.setValue(values.amount, forKey: "amount")
            item.setValue(values.created, forKey: "created")
            item.setValue(values.flag, forKey: "flag")
            item.setValue(values.note, forKey: "note")
        }
        try context.save()
        return items.count
    }

    /// Workload 11: workload 2 in every one of `contexts` at once, each on a thread of its own
    /// (as a server's requests do); the sum of their checksums.
    static func concurrentFetchAndRead(in contexts: [NSManagedObjectContext]) throws -> Int {
        try BenchmarkData.checksumOfConcurrentRuns(contexts.count) { index in
            try contexts[index].performAndWait { try fetchAndRead(in: contexts[index]) }
        }
    }

    /// Workload 2: the items with the fetch predicate, sorted by `number`, every attribute read.
    static func fetchAndRead(in context: NSManagedObjectContext) throws -> Int {
        let request = NSFetchRequest<Item>(entityName: "Item")
        request.predicate = NSPredicate(format: "amount >= %@", BenchmarkData.fetchMinimumAmount)
        request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: true)]
        return BenchmarkData.checksum(of: try context.fetch(request))
    }

    /// Workload 8, generic code's reading: `NSManagedObject`s, every value through `value(forKey:)`.
    static func keyValueFetchAndRead(in context: NSManagedObjectContext) throws -> Int {
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

    /// Workload 3: `count(for:)` with the count predicate.
    static func count(in context: NSManagedObjectContext) throws -> Int {
        let request = NSFetchRequest<Item>(entityName: "Item")
        let range = BenchmarkData.countNumberRange
        request.predicate = NSPredicate(
            format: "number >= %@ AND number < %@ AND flag == YES", range.lower, range.upper)
        return try context.count(for: request)
    }

    /// Workload 4: a batch-faulting result (keys now, objects 50 at a time), sorted by
    /// `sortDescriptors`; the touched positions read.
    static func batchedFetch(
        in context: NSManagedObjectContext,
        sortedBy sortDescriptors: [NSSortDescriptor] = [NSSortDescriptor(key: "number", ascending: true)]
    ) throws -> Int {
        let request = NSFetchRequest<Item>(entityName: "Item")
        request.sortDescriptors = sortDescriptors
        request.fetchBatchSize = BenchmarkData.batchSize
        let items: BatchFaultingArray<Item> = try context.fetchBatched(request)
        var checksum = 0
        for position in BenchmarkData.touchedPositions(count: items.count) {
            let item = items[items.index(items.startIndex, offsetBy: position)]
            checksum &+= Int(item.number) &+ (item.name?.utf8.count ?? 0)
        }
        return checksum
    }

    /// Workload 5: every item's `amount` up by 1, saved.
    static func update(in context: NSManagedObjectContext) throws -> Int {
        let items = try context.fetch(NSFetchRequest<Item>(entityName: "Item"))
        for item in items { item.amount += 1 }
        try context.save()
        return items.reduce(0) { $0 &+ Int(($1.amount * 100).rounded()) }
    }

    /// Workload 6's data: parents with their children, saved.
    static func insertFamilies(_ families: [FamilyValues], in context: NSManagedObjectContext) throws {
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

    /// Workload 6: parents fetched prefetching their children; the children's values summed.
    static func sumChildren(in context: NSManagedObjectContext) throws -> Int {
        let request = NSFetchRequest<Parent>(entityName: "Parent")
        request.relationshipKeyPathsForPrefetching = ["children"]
        let parents = try context.fetch(request)
        var total = parents.count
        for parent in parents {
            for child in parent.children ?? [] { total &+= Int(child.value) }
        }
        return total
    }

    /// Workload 7: the items below the delete limit, gone in one `NSBatchDeleteRequest`; how many went.
    static func batchDelete(in context: NSManagedObjectContext) throws -> Int {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        request.predicate = NSPredicate(format: "number < %@", BenchmarkData.deleteNumberLimit)
        let delete = NSBatchDeleteRequest(fetchRequest: request)
        delete.resultType = .resultTypeCount
        return (try context.execute(delete) as? NSBatchDeleteResult)?.result as? Int ?? 0
    }
}

extension Item: ItemAttributes {}
