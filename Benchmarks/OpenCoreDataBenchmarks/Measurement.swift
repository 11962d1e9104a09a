// What one (workload, size, contender) measured, and all of them together.

/// The result of one (workload, size, contender): the best time of its runs.
struct Measurement {
    /// The best (least disturbed) run, in seconds.
    var seconds: Double
    /// The largest rise of the peak resident size over the RSS just before a run; nil if unmeasurable.
    var peakBytes: Int?
    /// The last run's checksum, compared across contenders.
    var checksum: Int
    var runs: Int
    /// Workload 9: C-heap bytes the run's result still held when its body returned, per row.
    var heldBytesPerRow: Double?
}

/// All measurements, by workload, size and contender label.
struct Results {
    var measurements: [Workload: [Int: [String: Measurement]]] = [:]

    subscript(workload: Workload, size: Int, label: String) -> Measurement? {
        get { measurements[workload]?[size]?[label] }
        set { measurements[workload, default: [:]][size, default: [:]][label] = newValue }
    }
}
