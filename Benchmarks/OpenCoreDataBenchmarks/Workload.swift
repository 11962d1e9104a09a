// The workloads of issues 4, 18 and 36 and the target each one has to meet.

/// A benchmark workload, numbered as on the command line.
enum Workload: Int, CaseIterable, Comparable {
    case insert = 1, fetch, count, batchedFetch, update, prefetch, batchDelete, keyValueFetch, heldMemory
    case keyValueInsert, concurrentFetch

    static func < (lhs: Workload, rhs: Workload) -> Bool { lhs.rawValue < rhs.rawValue }

    var title: String {
        switch self {
        case .insert: "insert N items (6 attributes) and save"
        case .fetch: "fetch ~0.9·N items with a predicate and a sort, read every attribute"
        case .count: "count(for:) with a predicate (~5% of N match)"
        case .batchedFetch: "fetch N items with fetchBatchSize 50, touch 1,000 spread across them"
        case .update: "update one attribute of N items and save"
        case .prefetch:
            "N/10 parents × 10 children: fetch parents prefetching children, sum a child attribute (raw: one SQL join)"
        case .batchDelete: "batch delete half of N items (raw and GRDB: one DELETE … WHERE)"
        case .keyValueFetch:
            "fetch ~0.9·N items as workload 2, read every attribute by key (value(forKey:); GRDB: Row by column name)"
        case .heldMemory: "fetch all N items, read every attribute and hold them: memory per object"
        case .keyValueInsert:
            "insert N items as generic code does, every value through setValue(_:forKey:), and save (raw and GRDB: as workload 1)"
        case .concurrentFetch:
            "workload 2 in two contexts at once, each on its own queue (raw: two connections; GRDB: a DatabasePool's two readers)"
        }
    }

    /// Whether the workload reads or writes the items of workload 1.
    var needsItems: Bool { self != .prefetch }

    /// The target, as printed.
    var target: String {
        switch self {
        case .insert: "≤ 2.5× raw, ≤ 0.6× GRDB, peak ≤ 450 MiB"
        case .fetch: "≤ 2× raw, ≤ 0.8× GRDB"
        case .count: "≤ 1.1× raw"
        case .batchedFetch: "≤ 3× raw, peak ≤ 64 MiB"
        case .update: "≤ 3× raw"
        case .prefetch: "≤ 8× raw join, ≤ 1× GRDB"
        case .batchDelete: "≤ 1.2× raw"
        case .keyValueFetch: "≤ 2.5× raw, ≤ 1× GRDB"
        case .heldMemory: "≤ 300 B per object"
        case .keyValueInsert: "≤ 3× raw"
        case .concurrentFetch: "≤ 1.25× ours in workload 2 (≥ 1.6× one context's throughput)"
        }
    }

    /// Issue 33's target for OpenSwiftData beside the Core Data layer, as printed.
    var swiftDataTarget: String {
        self == .insert ? "≤ 1.2× OpenCoreData, < 1× GRDB" : "≤ 1.2× OpenCoreData"
    }

    /// Whether OpenSwiftData met issue 33's target at one size (nil when a measurement is missing).
    func isSwiftDataMet(swiftData: Measurement, coreData: Measurement?, grdb: Measurement?) -> Bool? {
        guard let coreData else { return nil }
        let withinCoreData = swiftData.seconds <= 1.2 * coreData.seconds
        guard self == .insert else { return withinCoreData }
        guard let grdb else { return nil }
        return withinCoreData && swiftData.seconds < grdb.seconds
    }

    /// Whether OpenCoreData met the target at one size (nil when a measurement is missing).
    /// `single`: ours in workload 2 at that size, which workload 11's target compares with.
    func isMet(ours: Measurement, raw: Measurement?, grdb: Measurement?, single: Measurement? = nil) -> Bool? {
        func ratio(_ limit: Double) -> Bool? { raw.map { ours.seconds <= limit * $0.seconds } }
        func both(_ rawLimit: Double, _ grdbLimit: Double) -> Bool? {
            guard let withinRaw = ratio(rawLimit), let grdb else { return nil }
            return withinRaw && ours.seconds <= grdbLimit * grdb.seconds
        }
        switch self {
        case .insert:
            guard let times = both(2.5, 0.6), let peak = ours.peakBytes else { return nil }
            return times && peak <= 450 << 20
        case .fetch: return both(2, 0.8)
        case .count: return ratio(1.1)
        case .batchedFetch:
            guard let times = ratio(3), let peak = ours.peakBytes else { return nil }
            return times && peak <= 64 << 20
        case .update: return ratio(3)
        case .prefetch: return both(8, 1)
        case .batchDelete: return ratio(1.2)
        case .keyValueFetch: return both(2.5, 1)
        case .heldMemory: return ours.heldBytesPerRow.map { $0 <= 300 }
        case .keyValueInsert: return ratio(3)
        case .concurrentFetch: return single.map { ours.seconds <= 1.25 * $0.seconds }
        }
    }
}
