import GRDB
@testable import OpenCoreDataCore
import StoreWorkerSupport
import OpenCoreDataTestSupport
import Testing

/// Eight private-queue contexts, on two coordinators of one store file (as two processes
/// would be), increment shared counters at the same time. Conflicts are reported by the
/// default error policy and retried; at the end nothing is lost or counted twice.
@Suite(.serialized) struct ConcurrencyStressTests {
    /// What one worker did: its committed increments and the conflicts it was told of.
    private final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var committed: [(writer: Int, sequence: Int, counter: String)] = []
        private(set) var conflicts = 0
        private(set) var failures: [String] = []
        func commit(_ writer: Int, _ sequence: Int, _ counter: String) {
            lock.withLock { committed.append((writer, sequence, counter)) }
        }
        func conflict() { lock.withLock { conflicts += 1 } }
        func fail(_ message: String) { lock.withLock { failures.append(message) } }
    }

    /// Holds each arriving worker until all have arrived, so their first saves overlap
    /// whatever the scheduler does (a loaded machine may otherwise run them one by one).
    private final class Barrier: @unchecked Sendable {
        private let condition = NSCondition()
        private var waiting: Int
        init(parties: Int) { waiting = parties }
        /// Returns false if the others did not arrive in time.
        func arriveAndWait() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            waiting -= 1
            if waiting == 0 { condition.broadcast(); return true }
            let deadline = Date(timeIntervalSinceNow: 60)
            while waiting > 0 { if !condition.wait(until: deadline) { return false } }
            return true
        }
    }

    @Test func contextsOnTwoCoordinatorsNeverLoseOrDuplicateAnUpdate() throws {
        let url = temporaryStoreURL("Stress")
        // The counters of the multi-process workload (StoreWorkerSupport), here driven by threads.
        let names = CounterWorkload.counters
        try CounterWorkload.prepareStore(at: url)
        let coordinators = try (0..<2).map { _ in
            try #require(try makeContext(CounterWorkload.model(), url: url).persistentStoreCoordinator)
        }
        let contexts = (0..<8).map { index -> NSManagedObjectContext in
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinators[index % 2]
            context.name = "worker \(index)"
            return context
        }
        let tally = Tally()
        let increments = 100
        let firstSaves = Barrier(parties: contexts.count)
        let finished = DispatchGroup()
        // Threads, not concurrentPerform: the barrier needs every worker running at once.
        let workers = (0..<contexts.count).map { writer in
            Thread {
                defer { finished.leave() }
                let context = contexts[writer]
                var random = SplitMix64(seed: UInt64(writer + 1))
                for sequence in 0..<increments {
                    // Everybody's first increment is to "a", saved together: all but one conflict.
                    let name = sequence == 0 ? names[0] : names[random.below(names.count)]
                    var saved = false
                    for attempt in 0..<200 where !saved {
                        context.performAndWait {
                            do {
                                let request = NSFetchRequest<NSManagedObject>(entityName: "Counter")
                                request.predicate = NSPredicate(format: "name == %@", name)
                                guard let counter = try context.fetch(request).first else {
                                    return tally.fail("counter \(name) missing")
                                }
                                counter.setValue(((counter.value(forKey: "value") as? Int64) ?? 0) + 1, forKey: "value")
                                let increment = NSEntityDescription.insertNewObject(
                                    forEntityName: "Increment", into: context)
                                increment.setValue("\(writer)", forKey: "writer")
                                increment.setValue(Int64(sequence), forKey: "sequence")
                                increment.setValue(name, forKey: "counter")
                                if sequence == 0, attempt == 0, !firstSaves.arriveAndWait() {
                                    tally.fail("worker \(writer) waited in vain for the others")
                                }
                                try context.save()
                                saved = true
                                tally.commit(writer, sequence, name)
                            } catch let error as NSError where error.code == NSManagedObjectMergeError {
                                // Reported, not merged: start again from the store's values.
                                tally.conflict()
                                context.rollback()
                            } catch {
                                tally.fail("\(error)")
                                context.rollback()
                            }
                        }
                    }
                    if !saved { tally.fail("worker \(writer) gave up on increment \(sequence)") }
                }
            }
        }
        for worker in workers { finished.enter(); worker.start() }
        finished.wait()

        #expect(tally.failures.isEmpty, "\(tally.failures.prefix(3))")
        #expect(tally.committed.count == contexts.count * increments)
        let db = try DatabaseQueue(path: url.path)
        try db.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            // Every committed increment is in its counter exactly once.
            for name in names {
                let value = try Int.fetchOne(db, sql: "SELECT ZVALUE FROM ZCOUNTER WHERE ZNAME = ?", arguments: [name])
                #expect(value == tally.committed.filter { $0.counter == name }.count, "counter \(name)")
            }
            // Every committed save's event is there once, and no failed save left one.
            let events = try Row.fetchAll(db, sql: "SELECT ZWRITER, ZSEQUENCE FROM ZINCREMENT").map {
                "\($0[0] as String)/\($0[1] as Int)"
            }
            #expect(events.count == Set(events).count, "no event twice")
            #expect(Set(events) == Set(tally.committed.map { "\($0.writer)/\($0.sequence)" }))
        }
        // The eight overlapping first saves: one wins, the other seven are caught.
        #expect(tally.conflicts >= contexts.count - 1)
    }
}
