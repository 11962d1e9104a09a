import Foundation
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing

/// `NSPersistentStoreCoordinator.migratePersistentStore(_:to:options:type:)`: a store
/// moved to another place and type keeps everything, and takes the old one's place.
@Suite struct StoreMigrationTests {
    static let photo = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
    let options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true]

    private func model() throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: try ModelFixtures.url("Journal.xcdatamodeld/Journal 4.xcdatamodel"))
    }

    /// Every entry's title, photo size, tags in order, places and writer.
    private func snapshot(_ context: NSManagedObjectContext) throws -> [String] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            return try context.fetch(request).map { entry in
                let tags =
                    (entry.value(forKey: "tags") as? NSOrderedSet)?.array.compactMap {
                        ($0 as? NSManagedObject)?.value(forKey: "label") as? String
                    } ?? []
                let places = ((entry.value(forKey: "places") as? Set<NSManagedObject>) ?? []).compactMap {
                    $0.value(forKey: "name") as? String
                }.sorted()
                let writer =
                    (entry.value(forKey: "writer") as? NSManagedObject)?.value(forKey: "name") as? String ?? "-"
                let photo =
                    (entry.value(forKey: "photo") as? Data).map { $0 == Self.photo ? "big photo" : "\($0.count) bytes" }
                    ?? "no photo"
                return "\(entry.value(forKey: "title") as? String ?? "?") \(photo) \(tags) \(places) \(writer)"
            }
        }
    }

    @Test func sqliteToMemoryToSQLiteKeepsEverything() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try model())
        let original = temporaryStoreURL()
        let first = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: original, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let writer = NSEntityDescription.insertNewObject(forEntityName: "Writer", into: context)
            writer.setValue("Ada", forKey: "name")
            let tags = ["a", "b", "c"].map { label in
                let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
                tag.setValue(label, forKey: "label")
                return tag
            }
            let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
            place.setValue("Oslo", forKey: "name")
            for index in 0..<3 {
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue("entry \(index)", forKey: "title")
                entry.setValue(writer, forKey: "writer")
                entry.setValue(NSOrderedSet(array: Array(tags.shuffled().prefix(index + 1))), forKey: "tags")
                if index == 0 { entry.setValue(Self.photo, forKey: "photo") }
                if index == 1 { entry.setValue(Set([place]), forKey: "places") }
            }
            try context.save()
        }
        coordinator.setMetadata(["app.note": "kept"], for: first)
        try context.performAndWait { try context.save() }
        let before = try snapshot(context)
        let historyBefore =
            try context.performAndWait {
                (try context.execute(
                    NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
                    as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction]
            }?.count ?? 0
        #expect(historyBefore == 1)

        // Into memory: the store is replaced, its data and metadata kept, its photo inline.
        let inMemory = try coordinator.migratePersistentStore(
            first, to: URL(fileURLWithPath: "/dev/null"), options: options, type: .inMemory)
        #expect(coordinator.persistentStores.count == 1)
        #expect(coordinator.persistentStores.first === inMemory)
        #expect(inMemory.type == NSInMemoryStoreType)
        #expect(inMemory.metadata?["app.note"] as? String == "kept")
        let memoryContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        memoryContext.persistentStoreCoordinator = coordinator
        #expect(try snapshot(memoryContext) == before)

        // Changed there, then back to a new file.
        try memoryContext.performAndWait {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: memoryContext)
            entry.setValue("entry 3", forKey: "title")
            try memoryContext.save()
        }
        let after = try snapshot(memoryContext)
        let copy = temporaryStoreURL()
        let back = try coordinator.migratePersistentStore(inMemory, to: copy, options: options, type: .sqlite)
        #expect(back.url == copy)
        #expect(coordinator.persistentStores.map(\.url) == [copy])
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: try model())
        try reopened.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: copy, options: options)
        let fileContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fileContext.persistentStoreCoordinator = reopened
        #expect(try snapshot(fileContext) == after)
        let history = try fileContext.performAndWait {
            (try fileContext.execute(
                NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
                as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction]
        }
        #expect(history?.count == 2)
        #expect(reopened.persistentStores.first?.metadata?["app.note"] as? String == "kept")
        // The original file is untouched by all this.
        let untouched = NSPersistentStoreCoordinator(managedObjectModel: try model())
        try untouched.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: original, options: options)
        let originalContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        originalContext.persistentStoreCoordinator = untouched
        #expect(try snapshot(originalContext) == before)
    }

    @Test func fileToFileCopiesExternalDataAndRefusesToOverwrite() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try model())
        let original = temporaryStoreURL()
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: original)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
            entry.setValue("photo", forKey: "title")
            entry.setValue(Self.photo, forKey: "photo")
            try context.save()
        }
        let occupied = temporaryStoreURL()
        try FileManager.default.createDirectory(
            at: occupied.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("not a store".utf8).write(to: occupied)
        #expect { try coordinator.migratePersistentStore(store, to: occupied, type: .sqlite) } throws: { error in
            (error as NSError).code == NSPersistentStoreOperationError
        }
        #expect(coordinator.persistentStores.first === store)
        #expect(try Data(contentsOf: occupied) == Data("not a store".utf8))

        let moved = temporaryStoreURL()
        try coordinator.migratePersistentStore(store, to: moved, type: .sqlite)
        try SQLiteStore.destroyFiles(at: original)
        let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        fresh.persistentStoreCoordinator = coordinator
        #expect(try snapshot(fresh) == ["photo big photo [] [] -"])
    }
}
