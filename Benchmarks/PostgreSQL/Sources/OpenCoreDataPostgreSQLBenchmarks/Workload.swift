// The workloads of the SQLite benchmark that issue 35 runs on PostgreSQL, numbered alike.

/// A workload, numbered as in the SQLite benchmark (`OpenCoreDataBenchmarks`).
enum Workload: Int, CaseIterable, Comparable, Sendable {
    case insert = 1, fetch, count, batchedFetch, update, prefetch, batchDelete, keyValueFetch

    static func < (lhs: Workload, rhs: Workload) -> Bool { lhs.rawValue < rhs.rawValue }

    var title: String {
        switch self {
        case .insert: "insert N items (6 attributes) and save"
        case .fetch: "fetch ~0.9·N items with a predicate and a sort, read every attribute"
        case .count: "count with a predicate (~5% of N match)"
        case .batchedFetch: "fetch N items 50 at a time, touch 1,000 spread across them"
        case .update: "update one attribute of N items and save"
        case .prefetch: "N/10 parents × 10 children: parents with their children, sum a child attribute"
        case .batchDelete: "batch delete half of N items"
        case .keyValueFetch: "workload 2, every attribute read by key or column name"
        }
    }

    /// Issue 35's target: within 1.5× raw postgres-nio, and ahead of Fluent.
    static let target = "≤ 1.5× postgres-nio, < 1× Fluent"

    /// Whether OpenCoreData met the target at one size (nil when a measurement is missing).
    static func isMet(ours: Double, raw: Double?, fluent: Double?) -> Bool? {
        guard let raw, let fluent else { return nil }
        return ours <= 1.5 * raw && ours < fluent
    }
}
