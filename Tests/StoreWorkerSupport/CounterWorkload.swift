// Shared counters under merge policies, run by several writers at once: worker processes
// and the test process's own contexts. Each increment is a read-modify-write saved under
// the error policy and retried when it reports a conflict (merging would lose increments);
// each label write goes through object trump, which merges whatever else changed the row.
import Foundation
import OpenCoreData

/// Makes writers meet before a save, so their reads all come before any of their saves
/// and the conflicts are certain, however processes and threads are scheduled.
///
/// Files, not a lock: the writers may be separate processes. Each arrival creates a file
/// named after the writer in a directory per meeting point.
public struct Rendezvous: Sendable {
    /// Where the meeting points' directories are made.
    public let directory: URL
    /// How many writers each meeting waits for.
    public let parties: Int

    /// A rendezvous of `parties` writers in `directory` (shared by all of them).
    public init(directory: URL, parties: Int) {
        self.directory = directory
        self.parties = parties
    }

    /// Marks `writer` arrived at `point` and waits until all parties have; false when they
    /// did not arrive within `timeout` seconds.
    public func arrive(_ writer: String, at point: String, timeout: TimeInterval = 60) -> Bool {
        let folder = directory.appendingPathComponent(point, isDirectory: true)
        let files = FileManager.default
        try? files.createDirectory(at: folder, withIntermediateDirectories: true)
        guard files.createFile(atPath: folder.appendingPathComponent(writer).path, contents: nil) else { return false }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while ((try? files.contentsOfDirectory(atPath: folder.path))?.count ?? 0) < parties {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }
}

/// A policy of a standard type that counts the conflicts it is handed.
public final class CountingMergePolicy: NSMergePolicy, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// The number of optimistic-locking conflicts resolved so far.
    public var resolved: Int { lock.withLock { count } }

    /// Counts, then resolves as the policy's type does.
    public override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        lock.withLock { count += list.count }
        try super.resolve(optimisticLockingConflicts: list)
    }
}

/// What one writer of a ``CounterWorkload`` did, for the test to check against the store.
public struct CounterTally: Codable, Sendable {
    /// One committed increment: the writer's sequence number and the counter it raised.
    public struct Increment: Codable, Sendable, Hashable {
        /// The iteration that made it.
        public var sequence: Int
        /// The counter's name.
        public var counter: String
    }

    /// The writer's name.
    public var writer: String
    /// Increments that committed (each also left one `Increment` row).
    public var increments: [Increment] = []
    /// Labels that committed.
    public var labels: [String] = []
    /// Conflicts that failed a save with `NSManagedObjectMergeError`, listed in its
    /// `conflictList`; the writer started that save over.
    public var reported = 0
    /// Conflicts the object-trump policy merged.
    public var merged = 0
    /// Anything else that went wrong; a correct run has none.
    public var failures: [String] = []
}

/// One writer's run: `iterations` times, an increment of a counter (error policy,
/// retried) and a label written on a counter (object trump). The first iteration of
/// every writer increments `a` and labels `b`, each after a ``Rendezvous`` between reading
/// and saving, so all but one writer meet a conflict in each.
public struct CounterWorkload: Sendable {
    /// The counters' names.
    public static let counters = ["a", "b", "c"]

    /// The store file.
    public let store: URL
    /// The writer's name, unique among the writers.
    public let writer: String
    /// How many increments (and labels) the writer commits.
    public let iterations: Int
    /// Where the writers meet before their first saves.
    public let rendezvous: Rendezvous
    /// Varies which counters the writer picks.
    public let seed: UInt64

    /// A run of `writer` on `store`.
    public init(store: URL, writer: String, iterations: Int, rendezvous: Rendezvous, seed: UInt64) {
        self.store = store
        self.writer = writer
        self.iterations = iterations
        self.rendezvous = rendezvous
        self.seed = seed
    }

    /// `Counter` (name, value, label) and `Increment` (writer, sequence, counter): the
    /// model every writer opens the store with.
    public static func model() -> NSManagedObjectModel {
        workerModel([
            ("Counter", counterAttributes),
            (
                "Increment",
                [
                    ("writer", .stringAttributeType), ("sequence", .integer64AttributeType),
                    ("counter", .stringAttributeType),
                ]
            ),
        ])
    }

    /// Makes the store with every counter at 0, before the writers start.
    public static func prepareStore(at url: URL) throws {
        let context = try openContext(url)
        try context.performAndWait {
            for name in counters {
                let counter = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: context)
                counter.setValue(name, forKey: "name")
                counter.setValue(Int64(0), forKey: "value")
            }
            try context.save()
        }
    }

    private static func openContext(_ url: URL) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Runs the writer on a coordinator of its own and reports what it did.
    public func run() -> CounterTally {
        var tally = CounterTally(writer: writer)
        let context: NSManagedObjectContext
        do { context = try Self.openContext(store) } catch {
            tally.failures.append("cannot open the store: \(error)")
            return tally
        }
        let labelPolicy = CountingMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        for sequence in 0..<iterations {
            let pick = Int((UInt64(sequence) &* 0x9E37_79B9_7F4A_7C15 &+ seed) >> 40) % Self.counters.count
            save(
                sequence: sequence, counter: sequence == 0 ? "a" : Self.counters[pick], meetingAt: "increment",
                in: context, policy: NSErrorMergePolicy, tally: &tally
            ) { counter in
                counter.setValue(((counter.value(forKey: "value") as? Int64) ?? 0) + 1, forKey: "value")
                let increment = NSEntityDescription.insertNewObject(forEntityName: "Increment", into: context)
                increment.setValue(writer, forKey: "writer")
                increment.setValue(Int64(sequence), forKey: "sequence")
                increment.setValue(counter.value(forKey: "name"), forKey: "counter")
            } committed: { tally, name in
                tally.increments.append(.init(sequence: sequence, counter: name))
            }
            let label = "\(writer)#\(sequence)"
            save(
                sequence: sequence, counter: sequence == 0 ? "b" : Self.counters[(pick + 1) % Self.counters.count],
                meetingAt: "label", in: context, policy: labelPolicy, tally: &tally
            ) { counter in
                counter.setValue(label, forKey: "label")
            } committed: { tally, _ in
                tally.labels.append(label)
            }
        }
        tally.merged = labelPolicy.resolved
        return tally
    }

    /// Reads counter `name` afresh, changes it with `change`, and saves under `policy`,
    /// starting over whenever the save reports conflicts. The first iteration meets the
    /// other writers at `point` between reading and saving.
    private func save(
        sequence: Int, counter name: String, meetingAt point: String, in context: NSManagedObjectContext, policy: Any,
        tally: inout CounterTally, change: (NSManagedObject) -> Void, committed: (inout CounterTally, String) -> Void
    ) {
        enum Outcome { case committed, conflicts(Int), failed(String) }
        for attempt in 0..<500 {
            let outcome: Outcome = context.performAndWait {
                context.reset()
                context.mergePolicy = policy
                do {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Counter")
                    request.predicate = NSPredicate(format: "name == %@", name)
                    guard let counter = try context.fetch(request).first else {
                        return .failed("counter \(name) missing")
                    }
                    change(counter)
                    if sequence == 0, attempt == 0, !rendezvous.arrive(writer, at: point) {
                        return .failed("\(writer) waited in vain at \(point)")
                    }
                    try context.save()
                    return .committed
                } catch let error as NSError
                    where error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectMergeError
                {
                    let list = error.userInfo["conflictList"] as? [NSMergeConflict] ?? []
                    return list.isEmpty ? .failed("a merge error without conflicts: \(error)") : .conflicts(list.count)
                } catch {
                    return .failed("\(error)")
                }
            }
            switch outcome {
            case .committed:
                committed(&tally, name)
                return
            case let .conflicts(count):
                tally.reported += count
            case let .failed(message):
                tally.failures.append("\(point) \(sequence): \(message)")
                return
            }
        }
        tally.failures.append("\(point) \(sequence): gave up after 500 attempts")
    }
}
