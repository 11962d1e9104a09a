import OpenCoreDataTestSupport
import Foundation
import OpenCoreData
@testable import OpenSwiftData
import Testing

@Model
final class CSTask {
    var title: String
    var priority: Int
    var isDone: Bool = false
    var note: String = ""
    var tags: [String] = []

    init(title: String, priority: Int, isDone: Bool = false) {
        self.title = title
        self.priority = priority
        self.isDone = isDone
    }
}

@Model
final class CSLabel {
    var name: String
    init(name: String) { self.name = name }
}

/// Collects the snapshots a sequence yields, so a test can wait for the n-th one.
actor CSSnapshotRecorder {
    private(set) var received: [FetchResultsSnapshot<CSTask>] = []
    private(set) var isFinished = false
    private var waiters: [UUID: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]

    func append(_ snapshot: FetchResultsSnapshot<CSTask>) {
        received.append(snapshot)
        wakeUp()
    }

    func finish() {
        isFinished = true
        wakeUp()
    }

    /// Waits until `count` snapshots arrived or the sequence ended; `timeout` only guards
    /// against a hang.
    func waitFor(_ count: Int, timeout: Duration = .seconds(60)) async {
        guard received.count < count, !isFinished else { return }
        let id = UUID()
        let guardTask = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.giveUp(id)
        }
        await withCheckedContinuation { continuation in
            waiters[id] = (count, continuation)
        }
        guardTask.cancel()
    }

    /// The snapshot at `index`, once it arrived.
    func snapshot(
        _ index: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> FetchResultsSnapshot<CSTask> {
        await waitFor(index + 1)
        return try #require(
            index < received.count ? received[index] : nil,
            "snapshot \(index) never came (\(received.count) received, finished: \(isFinished))",
            sourceLocation: sourceLocation)
    }

    /// Waits until the sequence ended.
    func waitForEnd(timeout: Duration = .seconds(60)) async {
        await waitFor(Int.max, timeout: timeout)
    }

    private func wakeUp() {
        for (id, waiter) in waiters where received.count >= waiter.count || isFinished {
            waiters[id] = nil
            waiter.continuation.resume()
        }
    }

    private func giveUp(_ id: UUID) {
        waiters.removeValue(forKey: id)?.continuation.resume()
    }
}

/// `ModelContext.changes(for:)`: result snapshots with their differences, fed by saves of the
/// context, of the container's other contexts, and of another container on the same file.
@Suite(.serialized) struct FetchResultsChangesTests {
    let folder: URL

    init() throws {
        folder = testFilesFolder.appendingPathComponent(
            "FetchResultsChanges-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func makeContainer(_ name: String = "Tasks") throws -> ModelContainer {
        try ModelContainer(
            for: CSTask.self, CSLabel.self,
            configurations: ModelConfiguration(url: folder.appendingPathComponent("\(name).store")))
    }

    /// Reads `changes` on a task of its own into a recorder.
    func record(_ changes: FetchResultsChanges<CSTask>) -> (CSSnapshotRecorder, Task<Void, Never>) {
        let recorder = CSSnapshotRecorder()
        let task = Task {
            for await snapshot in changes { await recorder.append(snapshot) }
            await recorder.finish()
        }
        return (recorder, task)
    }

    /// Each snapshot's difference turns the previous identifiers into its own.
    func expectConsistent(
        _ snapshots: [FetchResultsSnapshot<CSTask>], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var previous: [PersistentIdentifier] = []
        for snapshot in snapshots {
            #expect(previous.applying(snapshot.difference) == snapshot.identifiers, sourceLocation: sourceLocation)
            previous = snapshot.identifiers
        }
    }

    static let open = FetchDescriptor<CSTask>(
        predicate: #Predicate { !$0.isDone }, sortBy: [SortDescriptor(\.priority)])

    @Test func firstSnapshotHoldsTheResultsInOrder() async throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        for (title, priority, done) in [("c", 3, false), ("a", 1, false), ("x", 0, true), ("b", 2, false)] {
            context.insert(CSTask(title: title, priority: priority, isDone: done))
        }
        try context.save()

        let (recorder, task) = record(try context.changes(for: Self.open))
        defer { task.cancel() }
        let first = try await recorder.snapshot(0)
        #expect(first.identifiers == (try context.fetchIdentifiers(Self.open)))
        #expect(first.models(in: context).map(\.title) == ["a", "b", "c"])
        #expect(first.insertedIdentifiers == first.identifiers, "the first snapshot inserts every result")
        #expect(first.removedIdentifiers.isEmpty && first.movedIdentifiers.isEmpty && first.updatedIdentifiers.isEmpty)
    }

    @Test func insertUpdateMoveAndDeleteAreReported() async throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        let a = CSTask(title: "a", priority: 1), b = CSTask(title: "b", priority: 2),
            c = CSTask(title: "c", priority: 3)
        for model in [a, b, c] { context.insert(model) }
        try context.save()
        let (recorder, task) = record(try context.changes(for: Self.open))
        defer { task.cancel() }
        #expect(try await recorder.snapshot(0).identifiers == [a, b, c].map(\.persistentModelID))

        let d = CSTask(title: "d", priority: 4)
        context.insert(d)
        try context.save()
        let inserted = try await recorder.snapshot(1)
        #expect(inserted.identifiers == [a, b, c, d].map(\.persistentModelID))
        #expect(inserted.insertedIdentifiers == [d.persistentModelID])
        #expect(inserted.removedIdentifiers.isEmpty && inserted.updatedIdentifiers.isEmpty)

        b.note = "call first"
        try context.save()
        let updated = try await recorder.snapshot(2)
        #expect(updated.difference.isEmpty, "a change in place moves nothing")
        #expect(updated.updatedIdentifiers == [b.persistentModelID])
        #expect(updated.identifiers == inserted.identifiers)

        c.priority = 0
        try context.save()
        let moved = try await recorder.snapshot(3)
        #expect(moved.identifiers == [c, a, b, d].map(\.persistentModelID))
        #expect(moved.movedIdentifiers == [c.persistentModelID])
        #expect(moved.insertedIdentifiers.isEmpty && moved.removedIdentifiers.isEmpty)
        #expect(moved.difference.insertions.count == 1 && moved.difference.removals.count == 1)

        let aID = a.persistentModelID
        context.delete(a)
        try context.save()
        let deleted = try await recorder.snapshot(4)
        #expect(deleted.identifiers == [c, b, d].map(\.persistentModelID))
        #expect(deleted.removedIdentifiers == [aID])

        d.isDone = true
        try context.save()
        let leaving = try await recorder.snapshot(5)
        #expect(leaving.identifiers == [c, b].map(\.persistentModelID), "a model that stops matching leaves")
        #expect(leaving.removedIdentifiers == [d.persistentModelID])

        expectConsistent(await recorder.received)
        #expect(await recorder.received.count == 6)
    }

    @Test func savesThatChangeNoResultYieldNothing() async throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        let done = CSTask(title: "done", priority: 1, isDone: true)
        context.insert(done)
        context.insert(CSTask(title: "open", priority: 2))
        try context.save()
        let (recorder, task) = record(try context.changes(for: Self.open))
        defer { task.cancel() }
        _ = try await recorder.snapshot(0)

        // None of these touches a result: no snapshot.
        context.insert(CSTask(title: "also done", priority: 0, isDone: true))
        context.insert(CSLabel(name: "home"))
        try context.save()
        done.note = "still done"
        try context.save()

        // A model that starts matching arrives, and it is the very next snapshot.
        done.isDone = false
        try context.save()
        let next = try await recorder.snapshot(1)
        #expect(next.insertedIdentifiers == [done.persistentModelID], "the saves before it yielded nothing")
        #expect(next.models(in: context).map(\.title) == ["done", "open"])

        let marker = CSTask(title: "marker", priority: 9)
        context.insert(marker)
        try context.save()
        // A merge reads rows as they are when it runs: a save that lands while the previous
        // one is applied can show early, and its own merge then reports the model updated.
        var index = 2
        var last = try await recorder.snapshot(index)
        while !last.insertedIdentifiers.contains(marker.persistentModelID), index < 3 {
            #expect(last.difference.isEmpty && last.updatedIdentifiers == [done.persistentModelID])
            index += 1
            last = try await recorder.snapshot(index)
        }
        #expect(last.insertedIdentifiers == [marker.persistentModelID])
        expectConsistent(await recorder.received)
    }

    @Test func savesOfTheContainersOtherContextsArrive() async throws {
        let container = try makeContainer()
        let observing = ModelContext(container)
        let (recorder, task) = record(try observing.changes(for: Self.open))
        defer { task.cancel() }
        #expect(try await recorder.snapshot(0).identifiers.isEmpty)

        let other = ModelContext(container)
        let task1 = CSTask(title: "from elsewhere", priority: 5)
        other.insert(task1)
        try other.save()
        let inserted = try await recorder.snapshot(1)
        #expect(inserted.insertedIdentifiers == [task1.persistentModelID])
        #expect(
            inserted.models(in: observing).map(\.title) == ["from elsewhere"],
            "identifiers resolve in the observing context")

        task1.title = "renamed"
        try other.save()
        #expect(try await recorder.snapshot(2).updatedIdentifiers == [task1.persistentModelID])
        #expect(await recorder.received.count == 3, "each save is one snapshot, however it was heard of")
    }

    @MainActor @Test func theMainContextsAutosaveArrives() async throws {
        let container = try makeContainer()
        let main = container.mainContext
        let (recorder, task) = record(try main.changes(for: Self.open))
        defer { task.cancel() }
        _ = try await recorder.snapshot(0)
        let model = CSTask(title: "autosaved", priority: 1)
        main.insert(model)
        // No save: the main context saves by itself after the event (which an app's run loop ends).
        main.processPendingChanges()
        let next = try await recorder.snapshot(1)
        #expect(next.insertedIdentifiers == [model.persistentModelID])
        #expect(next.models(in: main).first === model)
    }

    @Test func savesThroughAnotherContainerOnTheFileArriveAsRemoteChanges() async throws {
        let container = try makeContainer("Shared")
        let context = ModelContext(container)
        let kept = CSTask(title: "kept", priority: 1)
        context.insert(kept)
        try context.save()
        let storeURL = folder.appendingPathComponent("Shared.store")

        // Only the observing container watches the file; the other one posts nothing.
        let remoteChanges = CSCounter()
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: nil, queue: nil
        ) { note in
            if (note.userInfo?[NSPersistentStoreURLKey] as? URL)?.standardizedFileURL == storeURL.standardizedFileURL {
                remoteChanges.increment()
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let (recorder, task) = record(try context.changes(for: Self.open))
        defer { task.cancel() }
        #expect(try await recorder.snapshot(0).identifiers == [kept.persistentModelID])

        // A second container has a coordinator of its own, as another process would.
        let elsewhere = try makeContainer("Shared")
        let writer = ModelContext(elsewhere)
        let added = CSTask(title: "added elsewhere", priority: 0)
        writer.insert(added)
        try writer.save()

        let inserted = try await recorder.snapshot(1)
        // The snapshot and the counter's notification travel separately (seen here: the
        // snapshot first, once in about ten runs), so wait for the notification, bounded.
        for _ in 0..<500 where remoteChanges.value == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(remoteChanges.value > 0, "the save was heard of through NSPersistentStoreRemoteChange")
        #expect(inserted.insertedIdentifiers.count == 1)
        #expect(inserted.models(in: context).map(\.title) == ["added elsewhere", "kept"])

        let remoteKept = try #require(
            try writer.fetch(FetchDescriptor<CSTask>(predicate: #Predicate { $0.title == "kept" })).first)
        remoteKept.priority = -1
        remoteKept.note = "moved to the top"
        added.isDone = true
        try writer.save()
        let changed = try await recorder.snapshot(2)
        #expect(changed.identifiers == [kept.persistentModelID])
        #expect(changed.removedIdentifiers == inserted.insertedIdentifiers)

        writer.delete(remoteKept)
        try writer.save()
        let emptied = try await recorder.snapshot(3)
        #expect(emptied.identifiers.isEmpty)
        #expect(emptied.removedIdentifiers == [kept.persistentModelID])
        expectConsistent(await recorder.received)
    }

    @Test func cancellingTheReadingTaskEndsTheObservation() async throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        let changes = try context.changes(for: Self.open)
        weak let observer = changes.observer
        #expect(observer != nil)
        let (recorder, task) = record(changes)
        _ = try await recorder.snapshot(0)

        task.cancel()
        await task.value
        await recorder.waitForEnd()
        #expect(await recorder.isFinished, "the sequence ends when its task is cancelled")
        context.insert(CSTask(title: "after the end", priority: 1))
        try context.save()
        try await eventually { observer == nil }
        #expect(observer == nil, "the results controller, its context and its observers are released")
        #expect(await recorder.received.count == 1)
    }

    @Test func droppingTheIteratorEndsTheObservation() async throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        let changes = try context.changes(for: Self.open)
        weak let observer = changes.observer
        do {
            var iterator = changes.makeAsyncIterator()
            #expect(await iterator.next() != nil)
        }
        try await eventually { observer == nil }
        #expect(observer == nil)

        // Made but never read: dropping the sequence ends it too.
        weak var unread: FetchResultsObserver?
        do {
            let changes = try context.changes(for: Self.open)
            unread = changes.observer
            #expect(unread != nil)
        }
        try await eventually { unread == nil }
        #expect(unread == nil)
    }

    @Test func aPredicateTheStoreCannotRunThrows() throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        let descriptor = FetchDescriptor<CSTask>(predicate: #Predicate { $0.tags.contains("urgent") })
        #expect(throws: SwiftDataError.unsupportedPredicate) {
            _ = try context.changes(for: descriptor)
        }
    }

    @Test func aLimitShowsThePageOfTheResults() async throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        let a = CSTask(title: "a", priority: 1), b = CSTask(title: "b", priority: 2),
            c = CSTask(title: "c", priority: 3)
        for model in [a, b, c] { context.insert(model) }
        try context.save()
        var firstTwo = Self.open
        firstTwo.fetchLimit = 2
        let (recorder, task) = record(try context.changes(for: firstTwo))
        defer { task.cancel() }
        #expect(try await recorder.snapshot(0).identifiers == [a, b].map(\.persistentModelID))

        let top = CSTask(title: "top", priority: 0)
        context.insert(top)
        try context.save()
        let pushed = try await recorder.snapshot(1)
        #expect(pushed.identifiers == [top, a].map(\.persistentModelID))
        #expect(
            pushed.insertedIdentifiers == [top.persistentModelID] && pushed.removedIdentifiers == [b.persistentModelID])

        // Below the page: nothing to show.
        c.note = "unseen"
        try context.save()
        context.delete(top)
        try context.save()
        let pulled = try await recorder.snapshot(2)
        #expect(pulled.identifiers == [a, b].map(\.persistentModelID), "a removal pulls the next model into the page")
        #expect(await recorder.received.count == 3)
        expectConsistent(await recorder.received)
    }

    @Test func aStoreInMemoryIsFollowedToo() async throws {
        let container = try ModelContainer(
            for: CSTask.self, CSLabel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let (recorder, task) = record(try context.changes(for: FetchDescriptor<CSTask>()))
        defer { task.cancel() }
        _ = try await recorder.snapshot(0)
        let first = CSTask(title: "first", priority: 2), second = CSTask(title: "second", priority: 1)
        context.insert(first)
        try context.save()
        #expect(try await recorder.snapshot(1).identifiers == [first.persistentModelID])
        context.insert(second)
        try context.save()
        #expect(
            try await recorder.snapshot(2).identifiers == [first, second].map(\.persistentModelID),
            "without sort descriptors new results come last")
    }

    /// Waits (in short steps, up to a generous bound) until `condition` holds.
    func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// A count that notification observers on any thread increment.
final class CSCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
