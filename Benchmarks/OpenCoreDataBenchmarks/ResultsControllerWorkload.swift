// The `results` workload: NSFetchedResultsController over N entries in 26 sections, against
// a plain fetch of the same request, with the cost of following one change and the memory
// of a batched controller.
import OpenCoreData

enum ResultsControllerWorkload {
    /// Entry(letter, rank, title); the controller sections by `letter` and sorts by rank.
    private static func model() -> NSManagedObjectModel {
        let entry = NSEntityDescription()
        entry.name = "Entry"
        entry.managedObjectClassName = "NSManagedObject"
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = false
            return attribute
        }
        entry.properties = [
            attribute("letter", .stringAttributeType), attribute("rank", .integer64AttributeType),
            attribute("title", .stringAttributeType),
        ]
        entry.indexes = [
            NSFetchIndexDescription(
                name: "byLetterAndRank",
                elements: [
                    NSFetchIndexElementDescription(property: entry.attributesByName["letter"]!, collationType: .binary),
                    NSFetchIndexElementDescription(property: entry.attributesByName["rank"]!, collationType: .binary),
                ])
        ]
        let model = NSManagedObjectModel()
        model.entities = [entry]
        return model
    }

    private static func request(batchSize: Int = 0) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
        request.sortDescriptors = [
            NSSortDescriptor(key: "letter", ascending: true), NSSortDescriptor(key: "rank", ascending: true),
        ]
        request.fetchBatchSize = batchSize
        return request
    }

    /// Counts the callbacks, as a table view's delegate would apply them.
    private final class Counter: NSFetchedResultsControllerDelegate {
        var changes = 0
        func controller(
            _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
            at indexPath: IndexPath?,
            for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
        ) {
            changes += 1
        }
    }

    private final class DifferenceCounter: NSFetchedResultsControllerDelegate {
        var changes = 0
        func controller(
            _ controller: NSFetchedResultsController<NSFetchRequestResult>,
            didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
        ) {
            changes += diff.count
        }
    }

    static func run(sizes: [Int]) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "OpenCoreDataBenchmarks-results-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let model = model()
        print("\n### results: NSFetchedResultsController, N entries in 26 sections (sorted by letter, rank)\n")
        var fetchRows = [["N", "plain fetch", "performFetch", "ratio", "with delegate", "ratio", "target"]]
        var changeRows = [["N", "insert", "update (move)", "delete", "difference callback", "target"]]
        var memoryRows = [
            [
                "N", "batched performFetch", "peak MiB", "target", "writing the cache", "reading it (next launch)",
                "speedup",
            ]
        ]
        for size in sizes {
            let url = root.appendingPathComponent("entries-\(size).sqlite")
            try fill(url, model: model, rows: size)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            defer { try? coordinator.persistentStores.forEach { try coordinator.remove($0) } }

            let (plain, controller, tracked) = try timeFetches(coordinator, repetitions: Harness.repetitions(for: size))
            fetchRows.append([
                Report.count(size), Report.time(plain), Report.time(controller),
                String(format: "%.2f×", controller / plain),
                Report.time(tracked), String(format: "%.2f×", tracked / plain),
                "≤ 1.2×: \(max(controller, tracked) <= 1.2 * plain ? "met" : "missed")",
            ])

            let costs = try timeChanges(coordinator)
            let worst = [costs.insert, costs.update, costs.delete, costs.difference].max() ?? 0
            changeRows.append([
                Report.count(size), Report.time(costs.insert), Report.time(costs.update), Report.time(costs.delete),
                Report.time(costs.difference), "≤ 1 ms: \(worst <= 1e-3 ? "met" : "missed")",
            ])

            let (batched, peak) = try measureBatched(coordinator)
            let met = peak.map { $0 <= 64 << 20 } ?? false
            let (written, read) = try timeSectionCache(url, model: model, size: size)
            memoryRows.append([
                Report.count(size), Report.time(batched), Report.mebibytes(peak), "≤ 64 MiB: \(met ? "met" : "missed")",
                Report.time(written), Report.time(read), String(format: "%.1f×", batched / read),
            ])
        }
        print(Report.table(fetchRows))
        print(
            "\nOne change among N fetched entries, then processPendingChanges() (median of 25 of each, delegate callbacks included):\n"
        )
        print(Report.table(changeRows))
        print(
            "\nfetchBatchSize 50: performFetch, read the sections, touch 1,000 entries; then performFetch with a cacheName, writing the section cache and reading it back:\n"
        )
        print(Report.table(memoryRows))
    }

    /// Best-of times: a plain fetch, performFetch without a delegate, and with one.
    private static func timeFetches(
        _ coordinator: NSPersistentStoreCoordinator, repetitions: Int
    ) throws -> (Double, Double, Double) {
        var plain = Double.infinity, controller = Double.infinity, tracked = Double.infinity
        for _ in 0..<max(repetitions, 3) {
            do {
                let context = makeContext(coordinator)
                plain = min(plain, try seconds { try context.performAndWait { _ = try context.fetch(request()) } })
            }
            do {
                let context = makeContext(coordinator)
                let results = NSFetchedResultsController(
                    fetchRequest: request(), managedObjectContext: context, sectionNameKeyPath: "letter", cacheName: nil
                )
                controller = min(controller, try seconds { try context.performAndWait { try results.performFetch() } })
            }
            do {
                let context = makeContext(coordinator)
                let results = NSFetchedResultsController(
                    fetchRequest: request(), managedObjectContext: context, sectionNameKeyPath: "letter", cacheName: nil
                )
                let delegate = Counter()
                results.delegate = delegate
                tracked = min(tracked, try seconds { try context.performAndWait { try results.performFetch() } })
            }
        }
        return (plain, controller, tracked)
    }

    /// Median cost of one insert, one update that moves an entry, one delete, and (with a
    /// difference-callback delegate) one update, each followed by processPendingChanges().
    private static func timeChanges(
        _ coordinator: NSPersistentStoreCoordinator
    ) throws -> (insert: Double, update: Double, delete: Double, difference: Double) {
        // Seeded, so every run makes the same changes; each one must be a real change (the
        // check below counts them): a live entry, and a rank other than the one it has.
        var generator = SeededGenerator(seed: 0x5EC7_10A5)
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        func liveEntry(_ objects: [NSManagedObject]) -> NSManagedObject? {
            guard objects.contains(where: { !$0.isDeleted }) else { return nil }
            var entry = objects.randomElement(using: &generator)!
            while entry.isDeleted { entry = objects.randomElement(using: &generator)! }
            return entry
        }
        func rerank(_ objects: [NSManagedObject]) {
            guard let entry = liveEntry(objects) else { return }
            let old = (entry.value(forKey: "rank") as? NSNumber)?.int64Value
            var rank = Int64.random(in: 0..<Int64(objects.count + 1), using: &generator)
            if rank == old { rank += 1 }
            entry.setValue(rank, forKey: "rank")
        }
        func follow(
            _ delegate: NSFetchedResultsControllerDelegate,
            _ body: (NSManagedObjectContext, NSFetchedResultsController<NSManagedObject>) throws -> Void
        ) throws {
            let context = makeContext(coordinator)
            try context.performAndWait {
                let controller = NSFetchedResultsController(
                    fetchRequest: request(), managedObjectContext: context, sectionNameKeyPath: "letter", cacheName: nil
                )
                controller.delegate = delegate
                try controller.performFetch()
                try body(context, controller)
                context.rollback()
            }
        }
        var inserts: [Double] = [], updates: [Double] = [], deletes: [Double] = [], differences: [Double] = []
        let counter = Counter()
        try follow(counter) { context, controller in
            let objects = controller.fetchedObjects ?? []
            for step in 0..<25 {
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue(String(UnicodeScalar(UInt8(65 + step % 26))), forKey: "letter")
                entry.setValue(Int64.random(in: 0..<Int64(objects.count + 1), using: &generator), forKey: "rank")
                entry.setValue("new \(step)", forKey: "title")
                inserts.append(try seconds { context.processPendingChanges() })

                rerank(objects)
                updates.append(try seconds { context.processPendingChanges() })

                if let victim = liveEntry(objects) {
                    context.delete(victim)
                    deletes.append(try seconds { context.processPendingChanges() })
                }
            }
        }
        let differenceCounter = DifferenceCounter()
        try follow(differenceCounter) { context, controller in
            let objects = controller.fetchedObjects ?? []
            for _ in 0..<25 {
                rerank(objects)
                differences.append(try seconds { context.processPendingChanges() })
            }
        }
        guard counter.changes >= 75, differenceCounter.changes >= 25 else {
            throw BenchmarkError(
                "the controller reported \(counter.changes) and \(differenceCounter.changes) changes, fewer than were made"
            )
        }
        return (median(inserts), median(updates), median(deletes), median(differences))
    }

    /// A batched controller: performFetch, every section's size, 1,000 entries touched.
    private static func measureBatched(_ coordinator: NSPersistentStoreCoordinator) throws -> (Double, Int?) {
        var time = 0.0
        var peak: Int?
        do {
            let baseline = MemoryMeter.startRun()
            let context = makeContext(coordinator)
            try context.performAndWait {
                let controller = NSFetchedResultsController(
                    fetchRequest: request(batchSize: 50), managedObjectContext: context, sectionNameKeyPath: "letter",
                    cacheName: nil)
                time = try seconds { try controller.performFetch() }
                let sections = controller.sections ?? []
                guard sections.count == 26 else { throw BenchmarkError("expected 26 sections, got \(sections.count)") }
                var total = 0
                for index in 0..<1_000 {
                    let section = index % sections.count
                    let row = (index * 7_919) % sections[section].numberOfObjects
                    total +=
                        (controller.object(at: IndexPath(row: row, section: section)).value(forKey: "rank") as? Int)
                        ?? 0
                }
                if total < 0 { print(total) }
            }
            if let baseline { peak = MemoryMeter.peak() - baseline }
        }
        return (time, peak)
    }

    /// performFetch of a batched controller with a `cacheName`: the first launch (a store
    /// opened, fetched from and closed) writes the section cache, the next reads it instead
    /// of querying.
    private static func timeSectionCache(
        _ url: URL, model: NSManagedObjectModel, size: Int
    ) throws -> (written: Double, read: Double) {
        let name = "OpenCoreDataBenchmarks-\(size)"
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name)
        defer { NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name) }
        var times: [Double] = []
        for _ in 0..<2 {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            defer { try? coordinator.persistentStores.forEach { try coordinator.remove($0) } }
            let context = makeContext(coordinator)
            try context.performAndWait {
                let controller = NSFetchedResultsController(
                    fetchRequest: request(batchSize: 50), managedObjectContext: context, sectionNameKeyPath: "letter",
                    cacheName: name)
                times.append(try seconds { try controller.performFetch() })
                let counts = (controller.sections ?? []).map(\.numberOfObjects)
                guard counts.count == 26, counts.reduce(0, +) == size else {
                    throw BenchmarkError("the cached sections hold \(counts)")
                }
            }
        }
        return (times[0], times[1])
    }

    /// A store of `rows` entries written in SQL: letters in turn, ranks a permutation.
    private static func fill(_ url: URL, model: NSManagedObjectModel, rows: Int) throws {
        try StoreFiles.fillInSQL(url, model: model, entity: "Entry", rows: rows) { entity in
            """
            INSERT INTO ZENTRY (Z_PK, Z_ENT, Z_OPT, ZLETTER, ZRANK, ZTITLE)
            SELECT i, \(entity), 1, char(65 + i % 26), (i * 7919) % \(rows), 'entry ' || i FROM n
            """
        }
    }

    private static func makeContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private static func seconds(_ body: () throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        let duration = try clock.measure(body)
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
