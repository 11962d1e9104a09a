import Foundation
@testable import OpenCoreDataCore
import Testing

/// The value snapshot (the stand-in for UIKit's diffable snapshot) and the `changes`
/// stream, which follows a query without a delegate, other processes' saves included.
@Suite struct FetchedResultsStreamTests {
    typealias Photos = FetchedResultsControllerTests

    /// What a stream yielded, read from the test while the stream runs in its own task.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [FetchedResultsChange] = []
        var changes: [FetchedResultsChange] { lock.withLock { items } }
        func append(_ change: FetchedResultsChange) { lock.withLock { items.append(change) } }

        /// Waits (up to 10 s) until `count` changes arrived, or one passes `check`; without
        /// blocking a thread, so the stream's task can run.
        func wait(
            for count: Int = 1, until check: (FetchedResultsChange) -> Bool = { _ in true }
        ) async -> [FetchedResultsChange] {
            // Generous: under a full parallel run on two cores the stream's task may wait long for a thread.
            let deadline = Date().addingTimeInterval(60)
            while !(changes.count >= count && changes.last.map(check) == true), Date() < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
            return changes
        }
    }

    static func collect(_ controller: NSFetchedResultsController<NSManagedObject>) -> (Collected, Task<Void, Never>) {
        let collected = Collected()
        let stream = controller.changes
        let task = Task { for await change in stream { collected.append(change) } }
        return (collected, task)
    }

    @Test func aSnapshotDelegateGetsOnlySnapshots() throws {
        final class SnapshotRecorder: NSFetchedResultsControllerDelegate {
            var snapshots: [FetchedResultsSnapshot] = []
            var otherCalls = 0
            func controller(
                _ controller: NSFetchedResultsController<NSFetchRequestResult>,
                didChangeContentWith snapshot: FetchedResultsSnapshot
            ) {
                snapshots.append(snapshot)
            }
            func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
                otherCalls += 1
            }
        }
        let context = try makeContext(Photos.model())
        let seeded = try FetchedResultsControllerMergeTests.seed(context, [("a", "g1", 1), ("b", "g2", 2)])
        try context.performAndWait {
            let controller = NSFetchedResultsController(
                fetchRequest: Photos.request(), managedObjectContext: context, sectionNameKeyPath: "group",
                cacheName: nil)
            let recorder = SnapshotRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            let c = Photos.insert("c", group: "g1", rank: 0, into: context)
            seeded[1].setValue("new title", forKey: "title")
            context.processPendingChanges()
            let snapshot = try #require(recorder.snapshots.last)
            #expect(snapshot.sectionIdentifiers == ["g1", "g2"])
            #expect(snapshot.itemIdentifiers(inSection: "g1") == [c.objectID, seeded[0].objectID])
            #expect(snapshot.numberOfItems == 3 && snapshot.numberOfItems(inSection: "g2") == 1)
            #expect(snapshot.indexOfItem(seeded[1].objectID) == 2 && snapshot.indexOfSection("g2") == 1)
            #expect(snapshot.sectionIdentifier(containingItem: c.objectID) == "g1")
            #expect(snapshot.reloadedItemIdentifiers == [seeded[1].objectID], "changed in place")
            #expect(recorder.otherCalls == 0)
        }
    }

    @Test func theStreamYieldsTheResultsThenEachChange() async throws {
        let context = try makeContext(Photos.model())
        _ = try FetchedResultsControllerMergeTests.seed(context, [("a", "g1", 1)])
        let controller = NSFetchedResultsController(
            fetchRequest: Photos.request(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
        try context.performAndWait { try controller.performFetch() }
        let (collected, task) = Self.collect(controller)
        defer { task.cancel() }
        #expect(await collected.wait(for: 1).first?.snapshot.numberOfItems == 1, "the current results first")
        let b = context.performAndWait {
            let b = Photos.insert("b", group: "g2", rank: 2, into: context)
            context.processPendingChanges()
            return b.objectID
        }
        let changes = await collected.wait(for: 2)
        try #require(changes.count == 2)
        #expect(changes[1].snapshot.sectionIdentifiers == ["g1", "g2"])
        #expect(
            changes[1].difference.insertions.map {
                if case .insert(let offset, let id, _) = $0 { (offset, id) } else { (-1, b) }
            }.first! == (1, b))
        #expect(
            changes[0].snapshot.itemIdentifiers.applying(changes[1].difference) == changes[1].snapshot.itemIdentifiers)
    }

    @Test func theStreamFollowsAnotherProcesssSavesThroughHistory() async throws {
        let url = temporaryStoreURL("StreamRemote")
        func context(watching: Bool) throws -> NSManagedObjectContext {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Photos.model())
            var options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true as NSNumber]
            if watching { options[NSPersistentStoreRemoteChangeNotificationPostOptionKey] = true as NSNumber }
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let reader = try context(watching: true)
        let writer = try context(watching: false)
        let seeded = try FetchedResultsControllerMergeTests.seed(writer, [("a", "g1", 1), ("b", "g1", 2)])
        let controller = NSFetchedResultsController(
            fetchRequest: Photos.request(), managedObjectContext: reader, sectionNameKeyPath: "group", cacheName: nil)
        try reader.performAndWait { try controller.performFetch() }
        let (collected, task) = Self.collect(controller)
        defer { task.cancel() }
        #expect(await collected.wait(for: 1).first?.snapshot.numberOfItems == 2)
        // Another coordinator (as another process would) moves one photo and adds one.
        try writer.performAndWait {
            seeded[0].setValue(5, forKey: "rank")
            Photos.insert("c", group: "g2", rank: 1, into: writer)
            try writer.save()
        }
        let last = try #require(await collected.wait { $0.snapshot.numberOfItems == 3 }.last?.snapshot)
        #expect(last.sectionIdentifiers == ["g1", "g2"])
        #expect(
            last.itemIdentifiers(inSection: "g1").map { $0.uriRepresentation() }
                == [seeded[1].objectID, seeded[0].objectID].map { $0.uriRepresentation() })
        #expect(reader.performAndWait { controller.fetchedObjects?.count } == 3)
    }
}
