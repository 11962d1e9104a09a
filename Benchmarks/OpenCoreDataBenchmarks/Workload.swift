// The seven workloads of issue 4 and the target each one has to meet.

/// A benchmark workload, numbered as on the command line.
enum Workload: Int, CaseIterable, Comparable {
    case insert = 1, fetch, count, batchedFetch, update, prefetch, batchDelete

    static func < (lhs: Workload, rhs: Workload) -> Bool { lhs.rawValue < rhs.rawValue }

    var title: String {
        switch self {
        case .insert: "insert N items (6 attributes) and save"
        case .fetch: "fetch ~0.9·N items with a predicate and a sort, read every attribute"
        case .count: "count(for:) with a predicate (~5% of N match)"
        case .batchedFetch: "fetch N items with fetchBatchSize 50, touch 1,000 spread across them"
        case .update: "update one attribute of N items and save"
        case .prefetch: "N/10 parents × 10 children: fetch parents prefetching children, sum a child attribute (raw: one SQL join)"
        case .batchDelete: "batch delete half of N items (raw and GRDB: one DELETE … WHERE)"
        }
    }

    /// Whether the workload reads or writes the items of workload 1.
    var needsItems: Bool { self != .prefetch }

    /// The target, as printed.
    var target: String {
        switch self {
        case .insert: "≤ 1.5× raw"
        case .fetch: "≤ 2× raw, < GRDB"
        case .count: "≤ 1.1× raw"
        case .batchedFetch: "peak ≤ 64 MiB"
        case .update: "≤ 1.5× raw"
        case .prefetch: "≤ 2× raw join"
        case .batchDelete: "≤ 1.2× raw"
        }
    }

    /// Whether OpenCoreData met the target at one size (nil when a measurement is missing).
    func isMet(ours: Measurement, raw: Measurement?, grdb: Measurement?) -> Bool? {
        func ratio(_ limit: Double) -> Bool? { raw.map { ours.seconds <= limit * $0.seconds } }
        switch self {
        case .insert, .update: return ratio(1.5)
        case .fetch:
            guard let withinRaw = ratio(2), let grdb else { return nil }
            return withinRaw && ours.seconds < grdb.seconds
        case .count: return ratio(1.1)
        case .batchedFetch: return ours.peakBytes.map { $0 <= 64 << 20 }
        case .prefetch: return ratio(2)
        case .batchDelete: return ratio(1.2)
        }
    }
}
