import Foundation
@testable import OpenCoreDataCore
import Testing

/// Changes that reach a controller's context from elsewhere: other contexts' saves, batch
/// requests, persistent history, refreshes; and controllers that fetch in batches.
@Suite struct FetchedResultsControllerMergeTests {
    typealias Photos = FetchedResultsControllerTests

    /// A controller on `context` with a table recorder loaded from its first fetch.
    static func follow(
        _ context: NSManagedObjectContext, sectionNameKeyPath: String? = "group"
    ) throws -> (NSFetchedResultsController<NSManagedObject>, TableRecorder) {
        let controller = NSFetchedResultsController(
            fetchRequest: Photos.request(), managedObjectContext: context, sectionNameKeyPath: sectionNameKeyPath,
            cacheName: nil)
        let recorder = TableRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        recorder.load(controller)
        return (controller, recorder)
    }

    /// The recorder's table equals what a fresh controller fetches now.
    static func expectFresh(
        _ recorder: TableRecorder, _ context: NSManagedObjectContext, _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let fresh = NSFetchedResultsController(
            fetchRequest: Photos.request(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
        try fresh.performFetch()
        #expect(
            recorder.sections.map(\.name) == (fresh.sections ?? []).map(\.name), comment, sourceLocation: sourceLocation
        )
        #expect(
            recorder.sections.map(\.rows)
                == (fresh.sections ?? []).map { ($0.objects ?? []).map { ObjectIdentifier($0 as AnyObject) } },
            comment, sourceLocation: sourceLocation)
    }

    static func seed(_ context: NSManagedObjectContext, _ rows: [(String, String, Int)]) throws -> [NSManagedObject] {
        try context.performAndWait {
            let objects = rows.map { Photos.insert($0.0, group: $0.1, rank: $0.2, into: context) }
            try context.save()
            return objects
        }
    }

    @Test func batchRequestsMergedFromARemoteSaveAreFollowed() throws {
        let url = temporaryStoreURL("BatchMerge")
        let context = try makeContext(Photos.model(), url: url)
        let writer = siblingContext(of: context)
        _ = try Self.seed(context, [("a", "g1", 1), ("b", "g1", 2), ("c", "g2", 3), ("d", "g2", 4)])
        let (controller, recorder) = try context.performAndWait { try Self.follow(context) }

        let updated = try writer.performAndWait {
            let request = NSBatchUpdateRequest(entityName: "Photo")
            request.predicate = NSPredicate(format: "title == 'a'")
            request.propertiesToUpdate = ["rank": 10]
            request.resultType = .updatedObjectIDsResultType
            return try (writer.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID] ?? []
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: updated], into: [context])
        try context.performAndWait {
            #expect(recorder.events.contains("move [0, 0] [0, 1]"), "\(recorder.events)")
            try Self.expectFresh(recorder, context)
        }

        recorder.events = []
        let deleted = try writer.performAndWait {
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Photo"))
            request.fetchRequest.predicate = NSPredicate(format: "group == 'g2'")
            request.resultType = .resultTypeObjectIDs
            return try (writer.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID] ?? []
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [context])
        try context.performAndWait {
            #expect(recorder.events.contains("section delete 1"), "\(recorder.events)")
            #expect(controller.sections?.map(\.name) == ["g1"])
            try Self.expectFresh(recorder, context)
        }

        recorder.events = []
        let inserted = try writer.performAndWait {
            let request = NSBatchInsertRequest(
                entityName: "Photo", objects: [["title": "e", "group": "g0", "rank": 5]])
            request.resultType = .objectIDs
            return try (writer.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID] ?? []
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSInsertedObjectsKey: inserted], into: [context])
        try context.performAndWait {
            #expect(
                recorder.events.contains("section insert 0") && recorder.events.contains("insert - [0, 0]"),
                "\(recorder.events)")
            try Self.expectFresh(recorder, context)
        }
    }

    @Test func persistentHistoryMergesAreFollowed() throws {
        let url = temporaryStoreURL("HistoryMerge")
        func context() throws -> NSManagedObjectContext {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Photos.model())
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                options: [NSPersistentHistoryTrackingKey: true as NSNumber])
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let reader = try context()
        let writer = try context()
        let seeded = try Self.seed(writer, [("a", "g1", 1), ("b", "g1", 2)])
        let (controller, recorder) = try reader.performAndWait { try Self.follow(reader) }
        let token = try #require(reader.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil))
        try writer.performAndWait {
            seeded[0].setValue(3, forKey: "rank")
            writer.delete(seeded[1])
            Photos.insert("c", group: "g2", rank: 1, into: writer)
            try writer.save()
        }
        try reader.performAndWait {
            let result =
                try reader.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token))
                as? NSPersistentHistoryResult
            let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
            #expect(transactions.count == 1)
            for transaction in transactions {
                reader.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            }
            #expect(
                recorder.events.first == "will" && recorder.events.contains("section insert 1"), "\(recorder.events)")
            try Self.expectFresh(recorder, reader)
            #expect(controller.fetchedObjects?.count == 2)
        }
    }

    @Test func childSavesAndAutomaticMergesFromTheParentAreFollowed() throws {
        let parent = try makeContext(Photos.model())
        _ = try Self.seed(parent, [("a", "g1", 1)])
        let viewContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        viewContext.parent = parent
        viewContext.automaticallyMergesChangesFromParent = true
        let (controller, recorder) = try viewContext.performAndWait { try Self.follow(viewContext) }

        // A child of the view context saves into it.
        let editor = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        editor.parent = viewContext
        try editor.performAndWait {
            Photos.insert("b", group: "g1", rank: 0, into: editor)
            try editor.save()
        }
        try viewContext.performAndWait {
            viewContext.processPendingChanges()
            #expect(recorder.events.contains("insert - [0, 0]"), "\(recorder.events)")
            try Self.expectFresh(recorder, viewContext)
        }

        // A sibling saves into the parent, which saves: the view context merges that save
        // automatically (a save into the parent alone is not merged, as in Core Data).
        recorder.events = []
        let sibling = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        sibling.parent = parent
        try sibling.performAndWait {
            Photos.insert("c", group: "g0", rank: 9, into: sibling)
            try sibling.save()
        }
        try parent.performAndWait { try parent.save() }
        try viewContext.performAndWait {
            viewContext.processPendingChanges()
            #expect(recorder.events.contains("section insert 0"), "\(recorder.events)")
            try Self.expectFresh(recorder, viewContext)
            #expect(controller.fetchedObjects?.count == 3)
        }
    }

    @Test func refreshAllObjectsFollowsWhatTheStoreNowHolds() throws {
        let url = temporaryStoreURL("Refresh")
        let context = try makeContext(Photos.model(), url: url)
        let writer = siblingContext(of: context)
        let objects = try Self.seed(context, [("a", "g1", 1), ("b", "g1", 2), ("c", "g1", 3)])
        let (controller, recorder) = try context.performAndWait { try Self.follow(context) }
        try writer.performAndWait {
            let a = try writer.existingObject(with: objects[0].objectID)
            a.setValue(9, forKey: "rank")
            try writer.save()
        }
        try context.performAndWait {
            #expect(recorder.events.isEmpty, "nothing merged yet")
            context.refreshAllObjects()
            context.processPendingChanges()
            #expect(recorder.events.contains("move [0, 0] [0, 2]"), "\(recorder.events)")
            try Self.expectFresh(recorder, context)
            #expect(controller.fetchedObjects?.last?.objectID == objects[0].objectID)
        }
    }

    @Test func aDelegateSetAfterTheFetchFollowsFromThen() throws {
        let context = try makeContext(Photos.model())
        _ = try Self.seed(context, [("a", "g1", 1)])
        try context.performAndWait {
            let controller = NSFetchedResultsController(
                fetchRequest: Photos.request(), managedObjectContext: context, sectionNameKeyPath: "group",
                cacheName: nil)
            try controller.performFetch()
            let recorder = TableRecorder()
            controller.delegate = recorder
            recorder.load(controller)
            Photos.insert("b", group: "g1", rank: 2, into: context)
            context.processPendingChanges()
            #expect(recorder.events == ["will", "insert - [0, 1]", "did"])
            controller.delegate = nil
            Photos.insert("c", group: "g1", rank: 3, into: context)
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.count == 2, "without a delegate nothing is followed")
        }
    }

    @Test func theDifferenceCallbackHearsOfPermanentIDsAfterASave() throws {
        let context = try makeContext(Photos.model())
        try context.performAndWait {
            let controller = NSFetchedResultsController(
                fetchRequest: Photos.request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let recorder = DifferenceRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            let photo = Photos.insert("a", group: "g", rank: 1, into: context)
            context.processPendingChanges()
            #expect(recorder.ids == [photo.objectID] && photo.objectID.isTemporaryID)
            try context.save()
            #expect(!photo.objectID.isTemporaryID)
            #expect(recorder.ids == [photo.objectID], "the list holds the permanent ID")
        }
    }

    @Test func aRequestWhoseSortDoesNotGroupTheSectionsIsRefused() throws {
        let context = try makeContext(Photos.model())
        _ = try Self.seed(context, [("a", "x", 1), ("b", "y", 2), ("c", "x", 3)])
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
            request.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            for delegate in [nil, TableRecorder()] as [TableRecorder?] {
                let controller = NSFetchedResultsController(
                    fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
                controller.delegate = delegate
                #expect(throws: NSError.self) { try controller.performFetch() }
            }
        }
    }

    @Test func aBatchedControllerReadsItsObjectsOnDemand() throws {
        let context = try makeContext(Photos.model())
        let groups = ["a", "b", "c"]
        _ = try Self.seed(context, (0..<300).map { ("p\($0)", groups[$0 % 3], $0) })
        try context.performAndWait {
            let request = Photos.request()
            request.fetchBatchSize = 20
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            try controller.performFetch()
            #expect(context.registeredObjects.count < 300, "no object is made before it is read")
            #expect(controller.sections?.map(\.name) == groups)
            #expect(controller.sections?.map(\.numberOfObjects) == [100, 100, 100])
            #expect(controller.object(at: IndexPath(row: 5, section: 1)).value(forKey: "rank") as? Int64 == 16)
            let titles = controller.fetchedObjects?.compactMap { $0.value(forKey: "title") as? String }
            let unbatched = NSFetchedResultsController(
                fetchRequest: Photos.request(), managedObjectContext: context, sectionNameKeyPath: "group",
                cacheName: nil)
            try unbatched.performFetch()
            #expect(titles == unbatched.fetchedObjects?.compactMap { $0.value(forKey: "title") as? String })
            let last = try #require(unbatched.fetchedObjects?.last)
            #expect(controller.indexPath(forObject: last) == IndexPath(row: 99, section: 2))
        }
    }
}
