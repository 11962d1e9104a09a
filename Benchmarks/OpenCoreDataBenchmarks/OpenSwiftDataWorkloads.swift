// The workloads on OpenSwiftData, written as a SwiftData app writes them: `@Model` classes,
// a `ModelContainer` on the store file, a `ModelContext`, `FetchDescriptor`s with `#Predicate`
// and `SortDescriptor`, `fetchCount`, `delete(model:where:)`. The models mirror the Core Data
// model of BenchmarkModel.swift property for property, so the SwiftData schema has the same
// entity version hashes and opens the same template store without migration (checked before
// the first run: see `verifyTemplateOpensUnmigrated`).
import OpenCoreData
import OpenSwiftData

/// The SwiftData models of the benchmark. Nested, so their class names (and so their entity
/// names, which SwiftData takes from the unqualified class name) are `Item`, `Parent` and
/// `Child` beside the Core Data classes of the same names.
enum SwiftDataBenchmarkModel {
    /// Core Data's `Item`: `Int` is Integer 64, `Double` Double, `Bool` Boolean, `Date?` and
    /// `String?` optional Date and String; the non-optional Swift types are the non-optional attributes.
    @Model
    final class Item {
        var name: String?
        var number: Int
        var amount: Double
        var created: Date?
        var flag: Bool
        var note: String?

        init(name: String?, number: Int, amount: Double, created: Date?, flag: Bool, note: String?) {
            self.name = name
            self.number = number
            self.amount = amount
            self.created = created
            self.flag = flag
            self.note = note
        }
    }

    /// Core Data's `Parent` (workload 6's, not used by this contender's workloads): in the
    /// schema because the store's version hashes cover every entity.
    @Model
    final class Parent {
        var name: String?
        @Relationship(deleteRule: .cascade, inverse: \Child.parent)
        var children: [Child] = []

        init(name: String?) {
            self.name = name
        }
    }

    /// Core Data's `Child`.
    @Model
    final class Child {
        var value: Int
        var parent: Parent?

        init(value: Int) {
            self.value = value
        }
    }
}

final class OpenSwiftDataContender: Contender {
    static let label = "OpenSwiftData"
    private typealias Item = SwiftDataBenchmarkModel.Item
    private let storeURL: URL
    private let template: URL
    private var verifiedTemplate = false

    init(storeURL: URL, template: URL) {
        self.storeURL = storeURL
        self.template = template
    }

    /// The workloads written for SwiftData here (issue 33's, and 9 for the memory per model).
    static func supports(_ workload: Workload) -> Bool {
        [.insert, .fetch, .count, .update, .batchDelete, .heldMemory].contains(workload)
    }

    /// The container and context of one run, let go of in its `finish` (which closes the store:
    /// nothing else holds the container once the run's models are gone).
    private final class Session {
        var container: ModelContainer?
        var context: ModelContext?
    }

    private static func container(at url: URL) throws -> ModelContainer {
        try ModelContainer(
            for: SwiftDataBenchmarkModel.Item.self, SwiftDataBenchmarkModel.Parent.self,
            SwiftDataBenchmarkModel.Child.self,
            configurations: ModelConfiguration(url: url)
        )
    }

    /// Opens the store untimed; the timed body runs `work` with a new context.
    private func prepare(_ url: URL? = nil, _ work: @escaping (ModelContext) throws -> Int) throws -> PreparedRun {
        let url = url ?? storeURL
        let session = Session()
        let container = try Self.container(at: url)
        session.container = container
        session.context = ModelContext(container)
        return PreparedRun(
            body: { try work(session.context!) },
            finish: {
                session.context = nil
                session.container = nil
                Self.checkClosed(url)
            }
        )
    }

    /// Traps when the store at `url` is still open after its run let go of its container: the
    /// next run replaces the file, which an open connection would see half-written.
    private static func checkClosed(_ url: URL) {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in descriptors {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            else { continue }
            if target == url.path || target.hasPrefix(url.path + "-") {
                fatalError("OpenSwiftData: \(target) is still open after its ModelContainer was released")
            }
        }
    }

    /// Fails unless the SwiftData schema opens the template store as it is: the entity version
    /// hashes the store records are the Core Data model's, and the same after the container
    /// opened it (a container whose schema hashed differently would migrate the store to it).
    private func verifyTemplateOpensUnmigrated() throws {
        guard !verifiedTemplate else { return }
        let hashesKey = NSStoreModelVersionHashesKey
        let coreData = BenchmarkModel.make().entityVersionHashesByName
        let copy = storeURL.deletingLastPathComponent().appendingPathComponent("swiftdata-schema-check.sqlite")
        try StoreFiles.copy(template, to: copy)
        defer { StoreFiles.remove(copy) }
        let before =
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: copy)[hashesKey]
            as? [String: Data]
        do {
            let container = try Self.container(at: copy)
            _ = ModelContext(container)
        }
        Self.checkClosed(copy)
        let after =
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: copy)[hashesKey]
            as? [String: Data]
        func describe(_ hashes: [String: Data]?) -> String {
            (hashes ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.base64EncodedString())" }.joined(
                separator: ", ")
        }
        guard before == coreData, after == coreData else {
            throw BenchmarkError(
                """
                the SwiftData schema does not open the template store unmigrated: entity version hashes \
                Core Data model [\(describe(coreData))], template [\(describe(before))], \
                after ModelContainer opened it [\(describe(after))]
                """)
        }
        verifiedTemplate = true
    }

    func insert(_ items: [ItemValues]) throws -> PreparedRun {
        try verifyTemplateOpensUnmigrated()
        try StoreFiles.copy(template, to: storeURL)
        return try prepare { context in
            for values in items {
                context.insert(
                    Item(
                        name: values.name, number: Int(values.number), amount: values.amount,
                        created: values.created, flag: values.flag, note: values.note
                    ))
            }
            try context.save()
            return items.count
        }
    }

    /// The checksum of every attribute of `items`, as `BenchmarkData.checksum(of:)` computes it.
    private static func checksum(of items: [Item]) -> Int {
        items.reduce(0) { sum, item in
            sum
                &+ BenchmarkData.checksum(
                    name: item.name, number: Int64(item.number), amount: item.amount,
                    created: item.created ?? .distantPast, flag: item.flag, note: item.note
                )
        }
    }

    func fetchAndRead() throws -> PreparedRun {
        try prepare { context in
            let minimum = BenchmarkData.fetchMinimumAmount
            let descriptor = FetchDescriptor<Item>(
                predicate: #Predicate { $0.amount >= minimum },
                sortBy: [SortDescriptor(\.number)]
            )
            return Self.checksum(of: try context.fetch(descriptor))
        }
    }

    func count() throws -> PreparedRun {
        try prepare { context in
            let lower = Int(BenchmarkData.countNumberRange.lower), upper = Int(BenchmarkData.countNumberRange.upper)
            return try context.fetchCount(
                FetchDescriptor<Item>(
                    predicate: #Predicate { $0.number >= lower && $0.number < upper && $0.flag == true }
                ))
        }
    }

    func update() throws -> PreparedRun {
        try prepare { context in
            let items = try context.fetch(FetchDescriptor<Item>())
            for item in items { item.amount += 1 }
            try context.save()
            return items.reduce(0) { $0 &+ Int(($1.amount * 100).rounded()) }
        }
    }

    /// Workload 7: `delete(model:where:)`, which deletes in SQL. It returns nothing, so the
    /// checksum (the number of items deleted) is counted before the timed delete, and the
    /// run's `finish` checks that none of them is left.
    func batchDelete(scratch: URL) throws -> PreparedRun {
        try StoreFiles.copy(storeURL, to: scratch)
        let limit = Int(BenchmarkData.deleteNumberLimit)
        let matching = #Predicate<Item> { $0.number < limit }
        let expected = try {
            let container = try Self.container(at: scratch)
            return try ModelContext(container).fetchCount(FetchDescriptor<Item>(predicate: matching))
        }()
        Self.checkClosed(scratch)
        let run = try prepare(scratch) { context in
            try context.delete(model: Item.self, where: matching)
            try context.save()
            return expected
        }
        return run.finishing {
            let left = (try? Self.container(at: scratch)).flatMap {
                try? ModelContext($0).fetchCount(FetchDescriptor<Item>(predicate: matching))
            }
            guard left == 0 else {
                fatalError(
                    "OpenSwiftData: \(left.map(String.init) ?? "?") items below the limit are left after delete(model:where:)"
                )
            }
            Self.checkClosed(scratch)
            StoreFiles.remove(scratch)
        }
    }

    /// Every item as a model (its Core Data object loaded), held with its context.
    func fetchAndHold() throws -> PreparedRun {
        let held = HeldResult()
        let run = try prepare { context in
            let items = try context.fetch(FetchDescriptor<Item>())
            let checksum = Self.checksum(of: items)
            held.value = (items, context)
            return checksum
        }
        // The models go first: they hold the context, which holds the container.
        return PreparedRun(
            body: run.body,
            finish: {
                held.value = nil; run.finish()
            })
    }

    // Not written for SwiftData (`supports` leaves them out; the harness never calls them).

    func batchedFetch() throws -> PreparedRun { throw Self.unsupported(.batchedFetch) }
    func insertFamilies(_ families: [FamilyValues]) throws { throw Self.unsupported(.prefetch) }
    func sumChildren() throws -> PreparedRun { throw Self.unsupported(.prefetch) }
    func keyValueFetchAndRead() throws -> PreparedRun { throw Self.unsupported(.keyValueFetch) }
    func keyValueInsert(_ items: [ItemValues]) throws -> PreparedRun { throw Self.unsupported(.keyValueInsert) }
    func concurrentFetchAndRead() throws -> PreparedRun { throw Self.unsupported(.concurrentFetch) }

    private static func unsupported(_ workload: Workload) -> BenchmarkError {
        BenchmarkError("workload \(workload.rawValue) is not written for \(label)")
    }
}
