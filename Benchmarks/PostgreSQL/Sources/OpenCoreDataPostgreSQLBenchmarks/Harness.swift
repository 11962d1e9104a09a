// Runs every selected workload at every size on every contender, each in a database of its
// own copied from one template, timing each run with a monotonic clock.
import Foundation

/// Per size: a fresh database for every contender, then the selected workloads in order
/// (1 → 8), each contender in turn, so all of them see the same state.
@MainActor
struct Harness {
    let sizes: [Int]
    let workloads: [Workload]
    var contenderTypes: [any Contender.Type] = Harness.allContenders
    let databases: BenchmarkDatabases
    static var allContenders: [any Contender.Type] {
        [OpenCoreDataContender.self, PostgresNIOContender.self, FluentContender.self]
    }
    private let clock = ContinuousClock()

    /// Small sizes run several times (the best counts); large ones once or twice, as they take long.
    static func repetitions(for size: Int) -> Int { max(1, min(5, 200_000 / max(size, 1))) }

    func run() async throws -> Results {
        var results = Results()
        try await databases.makeTemplate()
        for size in sizes {
            let names = contenderTypes.map { "ocd_bench_\($0.label.lowercased().filter(\.isLetter))" }
            let contenders = try contenderTypes.enumerated().map { index, type in
                type.init(url: try databases.url(of: names[index]))
            }
            let scratch = "ocd_bench_scratch"
            let items = BenchmarkData.items(count: size)
            let repetitions = Self.repetitions(for: size)
            // Every contender's database, made from the template and holding the items
            // (inserted by workload 1 when it runs, untimed otherwise).
            for (index, contender) in contenders.enumerated() {
                try await databases.recreate(names[index])
                if !workloads.contains(.insert) {
                    progress("size \(size): inserting items into \(names[index]) (untimed, workload 1 not selected)")
                    _ = try await measure(repetitions: 1) { try await contender.insert(items) }
                    try await databases.vacuumAnalyze(names[index])
                }
            }
            for workload in workloads {
                if workload == .prefetch {
                    progress("size \(size): inserting parents and children (untimed)")
                    let families = BenchmarkData.families(childCount: size)
                    for (index, contender) in contenders.enumerated() {
                        try await contender.insertFamilies(families)
                        try await databases.vacuumAnalyze(names[index])
                    }
                }
                for (index, contender) in contenders.enumerated() {
                    let label = type(of: contender).label
                    // A batch delete's time depends on the table's pages as much as on the
                    // statement, so every contender deletes from copies of one database, often.
                    let runs = workload == .batchDelete ? max(repetitions, 5) : repetitions
                    let measurement = try await measure(repetitions: runs) {
                        switch workload {
                        case .insert:
                            try await databases.recreate(names[index])
                            return try await contender.insert(items)
                        case .fetch: return try await contender.fetchAndRead()
                        case .count: return try await contender.count()
                        case .batchedFetch: return try await contender.batchedFetch()
                        case .update: return try await contender.update()
                        case .prefetch: return try await contender.sumChildren()
                        case .batchDelete:
                            try await databases.recreate(scratch, from: names[0])
                            return try await contender.batchDelete(scratch: try databases.url(of: scratch))
                        case .keyValueFetch: return try await contender.keyValueFetchAndRead()
                        }
                    }
                    if workload == .insert || workload == .update { try await databases.vacuumAnalyze(names[index]) }
                    results[workload, size, label] = measurement
                    progress(
                        "size \(size) workload \(workload.rawValue) \(label): \(Report.time(measurement.seconds)) (best of \(measurement.runs)), checksum \(measurement.checksum)"
                    )
                }
            }
            try await databases.drop(scratch)
            for name in names { try await databases.drop(name) }
        }
        return results
    }

    /// Runs `prepare` (untimed) then the prepared body (timed) `repetitions` times; the best time
    /// counts. A run longer than a minute is not repeated (Fluent's eager loading grows with
    /// parents × children: minutes at 100k); shorter ones are, so that every contender of a
    /// workload that changes the data (5) runs as often and their checksums compare.
    func measure(repetitions: Int, _ prepare: () async throws -> PreparedRun) async throws -> Measurement {
        var best = Double.infinity
        var checksum = 0
        var runs = 0
        while runs < repetitions, best < 60 || runs == 0 {
            runs += 1
            let run = try await prepare()
            let elapsed: Duration
            do {
                let start = clock.now
                checksum = try await run.body()
                elapsed = start.duration(to: clock.now)
                try await run.check()
            } catch {
                await run.finish()
                throw error
            }
            await run.finish()
            best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        return Measurement(seconds: best, peakBytes: nil, checksum: checksum, runs: runs)
    }

    /// Progress goes to standard error, so standard output holds only the report.
    private func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
