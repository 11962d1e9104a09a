// Writers under one merge policy for a while, on any store: contexts of one process (one
// coordinator), several such processes at once. Each save labels two shared counters (in
// either order) and inserts a Write row per counter naming that label; under the error
// policy it also raises the counters and is retried when it reports conflicts. The store tracks persistent history, so a test
// can put the reported saves in commit order and replay them.
import Foundation
import OpenCoreData

/// What one context of a ``PolicyWorkload`` saved.
public struct PolicyTally: Codable, Sendable {
    /// One counter a reported save labelled: the writer's sequence number, the counter, the label.
    public struct Write: Codable, Sendable, Hashable {
        /// The context's sequence number of the save.
        public var sequence: Int
        /// The counter it labelled.
        public var counter: String
        /// The label it wrote (`writer#sequence`).
        public var label: String
    }

    /// The context's writer name (`process-context`).
    public var writer: String
    /// Saves that reported success, in order.
    public var writes: [Write] = []
    /// Saves that failed with `NSManagedObjectMergeError` and were started over.
    public var conflicts = 0
    /// Anything else that went wrong; a correct run has none.
    public var failures: [String] = []
}

/// `contexts` writers in one process under merge policy `policy` for `seconds`.
public struct PolicyWorkload: Sendable {
    /// The counters' names.
    public static let counters = ["a", "b", "c"]
    /// The policies by the names workers take on the command line.
    public static let policies = ["error", "overwrite", "rollback", "objectTrump", "storeTrump"]
    /// The options every opener uses: history, for the commit order.
    public static var options: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true] }

    /// The store every context writes.
    public let store: WorkerStore
    /// The process's name; its contexts are `process-0`, `process-1`, ….
    public let process: String
    /// How many contexts write at once.
    public let contexts: Int
    /// How long they write.
    public let seconds: Double
    /// The merge policy's name (one of ``policies``).
    public let policy: String
    /// Varies which counters the contexts pick.
    public let seed: UInt64

    /// A run of `contexts` writers of `process` under `policy` for `seconds`.
    public init(store: WorkerStore, process: String, contexts: Int, seconds: Double, policy: String, seed: UInt64) {
        self.store = store
        self.process = process
        self.contexts = contexts
        self.seconds = seconds
        self.policy = policy
        self.seed = seed
    }

    /// `Counter` (name, value, label) and `Write` (writer, sequence, counter, label).
    public static func model() -> NSManagedObjectModel {
        workerModel([
            ("Counter", counterAttributes),
            (
                "Write",
                [
                    ("writer", .stringAttributeType), ("sequence", .integer64AttributeType),
                    ("counter", .stringAttributeType), ("label", .stringAttributeType),
                ]
            ),
        ])
    }

    /// The merge policy a name stands for.
    public static func mergePolicy(named name: String) -> Any {
        switch name {
        case "overwrite": NSOverwriteMergePolicy
        case "rollback": NSRollbackMergePolicy
        case "objectTrump": NSMergeByPropertyObjectTrumpMergePolicy
        case "storeTrump": NSMergeByPropertyStoreTrumpMergePolicy
        default: NSErrorMergePolicy
        }
    }

    /// Makes the counters, at 0 and unlabelled, before the writers start.
    public static func prepare(_ store: WorkerStore) throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = try store.coordinator(model: model(), options: options)
        try context.performAndWait {
            for name in counters {
                let counter = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: context)
                counter.setValue(name, forKey: "name")
                counter.setValue(Int64(0), forKey: "value")
            }
            try context.save()
        }
    }

    /// Runs the contexts on threads of this process, on one coordinator, and reports each.
    public func run() -> [PolicyTally] {
        let coordinator: NSPersistentStoreCoordinator
        do { coordinator = try store.coordinator(model: Self.model(), options: Self.options) } catch {
            return [PolicyTally(writer: process, failures: ["cannot open the store: \(error)"])]
        }
        let deadline = Date(timeIntervalSinceNow: seconds)
        let tallies = Tallies()
        let group = DispatchGroup()
        for index in 0..<contexts {
            group.enter()
            Thread {
                defer { group.leave() }
                tallies.add(
                    write(as: "\(process)-\(index)", on: coordinator, until: deadline, seed: seed &+ UInt64(index)))
            }.start()
        }
        group.wait()
        return tallies.all.sorted { $0.writer < $1.writer }
    }

    private func write(
        as writer: String, on coordinator: NSPersistentStoreCoordinator, until deadline: Date, seed: UInt64
    ) -> PolicyTally {
        var tally = PolicyTally(writer: writer)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let retries = policy == "error"
        var random = seed
        var sequence = 0
        while Date() < deadline {
            sequence += 1
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Two counters, in either order: savers lock rows in different orders, as apps do.
            let first = Int(random >> 33) % Self.counters.count
            let step = 1 + Int((random >> 20) & 1)
            let names = [Self.counters[first], Self.counters[(first + step) % Self.counters.count]]
            let label = "\(writer)#\(sequence)"
            var saved = false
            for _ in 0..<200 where !saved {
                do {
                    try context.performAndWait {
                        context.reset()
                        context.mergePolicy = Self.mergePolicy(named: policy)
                        for name in names {
                            let request = NSFetchRequest<NSManagedObject>(entityName: "Counter")
                            request.predicate = NSPredicate(format: "name == %@", name)
                            guard let counter = try context.fetch(request).first else {
                                throw WorkloadFailure(message: "counter \(name) missing")
                            }
                            counter.setValue(label, forKey: "label")
                            if retries {
                                counter.setValue(
                                    ((counter.value(forKey: "value") as? Int64) ?? 0) + 1, forKey: "value")
                            }
                            let write = NSEntityDescription.insertNewObject(forEntityName: "Write", into: context)
                            write.setValue(writer, forKey: "writer")
                            write.setValue(Int64(sequence), forKey: "sequence")
                            write.setValue(name, forKey: "counter")
                            write.setValue(label, forKey: "label")
                        }
                        try context.save()
                    }
                    saved = true
                    for name in names { tally.writes.append(.init(sequence: sequence, counter: name, label: label)) }
                } catch let error as NSError
                    where error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectMergeError
                {
                    // The error policy reports every conflict; the others, conflicts that
                    // kept coming back while they resolved them. Either way, the app saves again.
                    tally.conflicts += 1
                } catch {
                    tally.failures.append("\(sequence): \(error)")
                    return tally
                }
            }
            if !saved {
                tally.failures.append("\(sequence): gave up after 200 conflicts")
                return tally
            }
        }
        return tally
    }

    private struct WorkloadFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private final class Tallies: @unchecked Sendable {
        private let lock = NSLock()
        private var tallies: [PolicyTally] = []
        func add(_ tally: PolicyTally) { lock.withLock { tallies.append(tally) } }
        var all: [PolicyTally] { lock.withLock { tallies } }
    }
}
