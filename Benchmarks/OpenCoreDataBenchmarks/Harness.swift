// Runs every selected workload at every size on every contender, timing each run
// with a monotonic clock and measuring its peak memory.
import OpenCoreData

/// Per size: fresh stores for every contender, then the selected workloads in order
/// (1 → 7), each contender in turn, so all of them see the same state.
struct Harness {
    let sizes: [Int]
    let workloads: [Workload]
    var contenderTypes: [any Contender.Type] = Harness.allContenders
    static var allContenders: [any Contender.Type] {
        [
            OpenCoreDataContender.self, RawSQLiteContender.self, GRDBContender.self, OpenSwiftDataContender.self,
            OpenCoreDataHistoryContender.self,
        ]
    }
    private let clock = ContinuousClock()

    /// Small sizes run several times (the best counts); 1M runs once, as it takes long.
    static func repetitions(for size: Int) -> Int { max(1, min(5, 300_000 / max(size, 1))) }

    func run() throws -> Results {
        var results = Results()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "OpenCoreDataBenchmarks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let template = root.appendingPathComponent("template.sqlite")
        try OpenCoreDataContender.makeTemplate(at: template)

        for size in sizes {
            let directory = root.appendingPathComponent("\(size)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let contenders = contenderTypes.enumerated().map { index, type in
                type.init(storeURL: directory.appendingPathComponent("store\(index).sqlite"), template: template)
            }
            let scratch = directory.appendingPathComponent("scratch.sqlite")
            let items = workloads.contains(where: \.needsItems) ? BenchmarkData.items(count: size) : []
            let repetitions = Self.repetitions(for: size)
            var hasItems = false
            for workload in workloads {
                if workload.needsItems, !hasItems, workload != .insert, workload != .keyValueInsert {
                    progress("size \(size): inserting items (untimed, workload 1 not selected)")
                    for contender in contenders where type(of: contender).supports(.insert) {
                        try measure(repetitions: 1) { try contender.insert(items) }
                    }
                }
                if workload.needsItems { hasItems = true }
                if workload == .prefetch {
                    let prefetching = contenders.filter { type(of: $0).supports(.prefetch) }
                    if !hasItems {
                        // Each contender's store starts as a copy of the template, made by its insert.
                        for contender in prefetching { try measure(repetitions: 1) { try contender.insert([]) } }
                    }
                    progress("size \(size): inserting parents and children (untimed)")
                    let families = BenchmarkData.families(childCount: size)
                    for contender in prefetching { try contender.insertFamilies(families) }
                }
                for contender in contenders where type(of: contender).supports(workload) {
                    let label = type(of: contender).label
                    let measurement = try measure(repetitions: repetitions, rows: workload == .heldMemory ? size : nil)
                    {
                        switch workload {
                        case .insert: try contender.insert(items)
                        case .fetch: try contender.fetchAndRead()
                        case .count: try contender.count()
                        case .batchedFetch: try contender.batchedFetch()
                        case .update: try contender.update()
                        case .prefetch: try contender.sumChildren()
                        case .batchDelete: try contender.batchDelete(scratch: scratch)
                        case .keyValueFetch: try contender.keyValueFetchAndRead()
                        case .heldMemory: try contender.fetchAndHold()
                        case .keyValueInsert: try contender.keyValueInsert(items)
                        case .concurrentFetch: try contender.concurrentFetchAndRead()
                        }
                    }
                    results[workload, size, label] = measurement
                    progress(
                        "size \(size) workload \(workload.rawValue) \(label): \(Report.time(measurement.seconds)) (best of \(measurement.runs)), peak +\(Report.mebibytes(measurement.peakBytes)) MiB\(measurement.heldBytesPerRow.map { ", held \(Int($0)) B/row" } ?? ""), checksum \(measurement.checksum)"
                    )
                }
            }
        }
        return results
    }

    /// Runs `prepare` (untimed) then the prepared body (timed) `repetitions` times.
    ///
    /// With `rows`, also the heap memory the body's result holds when it returns
    /// (before `finish` releases it), per row: the smallest over the runs.
    @discardableResult
    func measure(repetitions: Int, rows: Int? = nil, _ prepare: () throws -> PreparedRun) throws -> Measurement {
        var best = Double.infinity
        var peak: Int? = 0
        var held: Double?
        var checksum = 0
        for _ in 0..<repetitions {
            let run = try prepare()
            let heapBefore = rows == nil ? nil : MemoryMeter.heapInUse()
            let baseline = MemoryMeter.startRun()
            let start = clock.now
            checksum = try run.body()
            let elapsed = start.duration(to: clock.now)
            let high = MemoryMeter.peak()
            if let rows, let heapBefore, let heapAfter = MemoryMeter.heapInUse() {
                let perRow = Double(heapAfter - heapBefore) / Double(max(rows, 1))
                held = min(held ?? perRow, perRow)
            }
            run.finish()
            best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
            if let baseline, let current = peak { peak = max(current, high - baseline) } else { peak = nil }
        }
        return Measurement(seconds: best, peakBytes: peak, checksum: checksum, runs: repetitions, heldBytesPerRow: held)
    }

    /// Progress goes to standard error, so standard output holds only the report.
    private func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
