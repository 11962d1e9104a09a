// The benchmark's own failures (bad store state, SQLite errors in the raw contender).

/// Thrown when a contender's store is not in the state a workload needs.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
