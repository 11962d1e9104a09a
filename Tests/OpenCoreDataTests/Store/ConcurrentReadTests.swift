import Foundation
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Synchronization
import Testing

/// Reads of one coordinator from several threads: on a store file they run side by
/// side (each on a connection of its own), never beside a save; in memory they take turns.
@Suite struct ConcurrentReadTests {
    /// Holds a store's SELECTs of chosen tables at their start until the test lets them
    /// go. The statement log's observers run on the reading thread, inside the read.
    final class ReadGate: @unchecked Sendable {
        private let condition = NSCondition()
        private var held: Set<String> = []
        private var arrivals: [String: Int] = [:]
        private var token = 0
        private var log: SQLStatementLog?

        init(_ context: NSManagedObjectContext) throws {
            let store = try #require(
                context.persistentStoreCoordinator?.persistentStores.first?.backend as? SQLiteStore)
            log = store.statementLog
            token = store.statementLog.addObserver(
                { [weak self] sql in self?.arrive(sql) }, installingOn: { store.connections.all.map(\.database) })
        }

        deinit { log?.removeObserver(token) }

        /// Reads of `table` that start from now on wait at their first statement.
        func hold(_ table: String) { condition.withLock { _ = held.insert(table) } }

        /// Lets held reads of `table` go on.
        func release(_ table: String) {
            condition.withLock {
                held.remove(table)
                condition.broadcast()
            }
        }

        /// Whether `count` reads of `table` reached the gate within 10 seconds.
        func waitForArrivals(_ table: String, count: Int = 1) -> Bool {
            condition.withLock {
                let deadline = Date(timeIntervalSinceNow: 10)
                while arrivals[table, default: 0] < count {
                    if !condition.wait(until: deadline) { return false }
                }
                return true
            }
        }

        private func arrive(_ sql: String) {
            guard sql.hasPrefix("SELECT") else { return }
            condition.withLock {
                guard let table = held.first(where: { sql.contains($0) }) else { return }
                arrivals[table, default: 0] += 1
                condition.broadcast()
                // A read that is never let go gives up, so a regression fails instead of hanging.
                let deadline = Date(timeIntervalSinceNow: 10)
                while held.contains(table) { if !condition.wait(until: deadline) { return } }
            }
        }
    }

    /// What a worker thread saw, read once it finished.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Int?
        private var finished = false
        func finish(_ count: Int?) { lock.withLock { (value, finished) = (count, true) } }
        var isFinished: Bool { lock.withLock { finished } }
        var count: Int? { lock.withLock { value } }
    }

    static func model() -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        model.entities = ["Left", "Right"].map { name in
            let entity = NSEntityDescription()
            entity.name = name
            let label = NSAttributeDescription()
            label.name = "name"
            label.attributeType = .stringAttributeType
            label.isOptional = true
            let batch = NSAttributeDescription()
            batch.name = "batch"
            batch.attributeType = .integer64AttributeType
            batch.defaultValue = 0
            entity.properties = [label, batch]
            return entity
        }
        return model
    }

    /// A store with three objects of each entity, and the context that made it.
    static func filledContext(
        url: URL? = temporaryStoreURL(), type: String = NSSQLiteStoreType
    ) throws
        -> NSManagedObjectContext
    {
        let context = try makeContext(model(), url: url, type: type)
        try context.performAndWait {
            for entity in ["Left", "Right"] {
                for index in 0..<3 {
                    NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                        .setValue("\(entity) \(index)", forKey: "name")
                }
            }
            try context.save()
        }
        return context
    }

    /// Fetches every object of `entity` on a thread of its own; `outcome` gets the count
    /// (`nil` if the fetch failed).
    static func fetchOnThread(_ context: NSManagedObjectContext, _ entity: String, into outcome: Outcome) {
        Thread {
            let count = context.performAndWait {
                try? context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)).count
            }
            outcome.finish(count)
        }.start()
    }

    @Test func twoContextsReadAStoreFileAtTheSameTime() throws {
        let context = try Self.filledContext()
        defer { try? closeStores(of: context) }
        let gate = try ReadGate(context)
        gate.hold("ZLEFT")
        let left = Outcome()
        Self.fetchOnThread(siblingContext(of: context), "Left", into: left)
        #expect(gate.waitForArrivals("ZLEFT"))

        // The other context's read completes while the first is still inside its read.
        let right = siblingContext(of: context)
        let rightCount = try right.performAndWait {
            try right.fetch(NSFetchRequest<NSManagedObject>(entityName: "Right")).count
        }
        #expect(rightCount == 3)
        #expect(!left.isFinished)

        gate.release("ZLEFT")
        #expect(waitUntil { left.isFinished })
        #expect(left.count == 3)
    }

    @Test func aSaveWaitsForTheReadsInFlight() throws {
        let context = try Self.filledContext()
        defer { try? closeStores(of: context) }
        let gate = try ReadGate(context)
        // Two reads held at once: the second is on a connection of its own.
        gate.hold("ZLEFT")
        gate.hold("ZRIGHT")
        let left = Outcome()
        let right = Outcome()
        Self.fetchOnThread(siblingContext(of: context), "Left", into: left)
        #expect(gate.waitForArrivals("ZLEFT"))
        Self.fetchOnThread(siblingContext(of: context), "Right", into: right)
        #expect(gate.waitForArrivals("ZRIGHT"))
        gate.release("ZLEFT")
        #expect(waitUntil { left.isFinished })

        // A save while the other read is held must wait for it.
        let saved = Outcome()
        let writer = siblingContext(of: context)
        Thread {
            let ok = writer.performAndWait { () -> Bool in
                NSEntityDescription.insertNewObject(forEntityName: "Right", into: writer)
                return (try? writer.save()) != nil
            }
            saved.finish(ok ? 1 : nil)
        }.start()
        let lock = try #require(context.persistentStoreCoordinator).lock
        #expect(waitUntil { lock.waiting.writers == 1 })
        Thread.sleep(forTimeInterval: 0.2)
        #expect(!saved.isFinished)

        // (That reads arriving meanwhile wait behind the save is CoordinatorLockTests'; a
        // context's save takes the lock more than once, so a read may pass between.)
        gate.release("ZRIGHT")
        #expect(waitUntil { right.isFinished && saved.isFinished })
        #expect(right.count == 3)
        #expect(saved.count == 1)
        let after = Outcome()
        Self.fetchOnThread(siblingContext(of: context), "Right", into: after)
        #expect(waitUntil { after.isFinished })
        #expect(after.count == 4)
    }

    @Test func readersNeverSeePartOfASave() throws {
        let context = try Self.filledContext()
        defer { try? closeStores(of: context) }
        let batches = 20
        let batchSize = 5
        let readers = 4
        let torn = Outcome()
        let group = DispatchGroup()
        for _ in 0..<readers {
            group.enter()
            let reader = siblingContext(of: context)
            Thread {
                defer { group.leave() }
                var seen = 0
                let deadline = Date(timeIntervalSinceNow: 60)
                while seen < 3 + batches * batchSize, Date() < deadline {
                    let objects = reader.performAndWait {
                        try? reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Left"))
                    }
                    guard let objects else { return torn.finish(-1) }
                    // Every save adds a whole batch: any other count is a save seen halfway.
                    if (objects.count - 3) % batchSize != 0 { return torn.finish(objects.count) }
                    seen = objects.count
                    reader.performAndWait { reader.reset() }
                }
            }.start()
        }
        let writer = siblingContext(of: context)
        try writer.performAndWait {
            for batch in 1...batches {
                for _ in 0..<batchSize {
                    NSEntityDescription.insertNewObject(forEntityName: "Left", into: writer)
                        .setValue(Int64(batch), forKey: "batch")
                }
                try writer.save()
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(torn.count == nil)
    }

    @Test(arguments: [(nil, 3), (4, 3), (2, 1), (1, 0), (0, 0)] as [(Int?, Int)])
    func theConnectionPoolOptionBoundsTheReadConnections(poolSize: Int?, readers: Int) throws {
        let options = poolSize.map { [NSPersistentStoreConnectionPoolMaxSizeKey: NSNumber(value: $0)] }
        let context = try makeContext(Self.model(), options: options)
        defer { try? closeStores(of: context) }
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first?.backend as? SQLiteStore)
        #expect(store.connections.maximumReaders == readers)
    }

    @Test func readsOfAStoreInMemoryTakeTurnsAndAllSucceed() throws {
        let context = try Self.filledContext(url: nil, type: NSInMemoryStoreType)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first?.backend as? SQLiteStore)
        #expect(!store.readsConcurrently)
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            let reader = siblingContext(of: context)
            for _ in 0..<25 {
                let count = reader.performAndWait {
                    try? reader.fetch(NSFetchRequest<NSManagedObject>(entityName: index % 2 == 0 ? "Left" : "Right"))
                        .count
                }
                if count != 3 { wrong.add(1, ordering: .relaxed) }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }
}
