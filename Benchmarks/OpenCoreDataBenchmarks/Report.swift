// Prints one Markdown table per workload: times, ratios, peak memory, the target.
import OpenCoreData

enum Report {
    static func print(_ results: Results, sizes: [Int], workloads: [Workload]) {
        let ours = OpenCoreDataContender.label, raw = RawSQLiteContender.label, grdb = GRDBContender.label
        for workload in workloads {
            Swift.print("\n### \(workload.rawValue). \(workload.title)\n")
            let holds = workload == .heldMemory
            var rows = [
                [
                    "N", "\(ours) (per row)", "\(raw) (per row)", "\(grdb) (per row)", "ours/raw", "ours/GRDB",
                    "peak MiB ours (raw, GRDB)",
                ]
                    + (holds ? ["held B/row ours (raw, GRDB)"] : []) + ["target \(workload.target)"]
            ]
            var notes: [String] = []
            for size in sizes {
                guard let mine = results[workload, size, ours] else { continue }
                let theirs = results[workload, size, raw]
                let other = results[workload, size, grdb]
                let met = workload.isMet(ours: mine, raw: theirs, grdb: other, single: results[.fetch, size, ours])
                rows.append(
                    [
                        count(size),
                        cell(mine, size), theirs.map { cell($0, size) } ?? "–", other.map { cell($0, size) } ?? "–",
                        ratio(mine, theirs), ratio(mine, other),
                        "\(mebibytes(mine.peakBytes)) (\(mebibytes(theirs?.peakBytes)), \(mebibytes(other?.peakBytes)))",
                    ]
                        + (holds
                            ? [
                                "\(bytes(mine.heldBytesPerRow)) (\(bytes(theirs?.heldBytesPerRow)), \(bytes(other?.heldBytesPerRow)))"
                            ] : []) + [
                            met.map { $0 ? "met" : "**missed**" } ?? "?"
                        ])
                let checksums = Set([mine, theirs, other].compactMap { $0?.checksum })
                if checksums.count > 1 {
                    notes.append(
                        "N = \(count(size)): the contenders' checksums differ (\([mine, theirs, other].map { $0.map { String($0.checksum) } ?? "–" }.joined(separator: " / "))), so they did not do the same work."
                    )
                }
            }
            Swift.print(table(rows))
            if let linearity = linearity(results, workload: workload, sizes: sizes, labels: [ours, raw, grdb]) {
                Swift.print("\n" + linearity)
            }
            for note in notes { Swift.print("\n⚠️ " + note) }
            printSwiftData(results, sizes: sizes, workload: workload)
        }
    }

    /// Issue 33's table, after the workload's own when OpenSwiftData ran it: OpenSwiftData
    /// against the Core Data layer it is built on (for writes also that layer keeping persistent
    /// history, the work SwiftData always does: the target is judged against it where it ran),
    /// raw SQLite and GRDB.
    private static func printSwiftData(_ results: Results, sizes: [Int], workload: Workload) {
        let swiftData = OpenSwiftDataContender.label, coreData = OpenCoreDataContender.label
        let history = OpenCoreDataHistoryContender.label
        let raw = RawSQLiteContender.label, grdb = GRDBContender.label
        guard sizes.contains(where: { results[workload, $0, swiftData] != nil }) else { return }
        let holds = workload == .heldMemory
        let withHistory = sizes.contains { results[workload, $0, history] != nil }
        var header: [String] = ["N", "\(swiftData) (per row)", "\(coreData) (per row)", "SwiftData/CoreData"]
        if withHistory { header += ["\(history) (per row)", "SwiftData/CoreData+history"] }
        header += ["SwiftData/raw", "SwiftData/GRDB", "peak MiB SwiftData (CoreData)"]
        if holds { header.append("held B/row SwiftData (CoreData)") }
        header.append("target \(workload.swiftDataTarget)")
        var rows = [header]
        var notes: [String] = []
        for size in sizes {
            guard let mine = results[workload, size, swiftData] else { continue }
            let base = results[workload, size, coreData], other = results[workload, size, grdb]
            let sameWork = results[workload, size, history]
            let met = workload.isSwiftDataMet(swiftData: mine, coreData: sameWork ?? base, grdb: other)
            var row: [String] = [count(size), cell(mine, size), base.map { cell($0, size) } ?? "–", ratio(mine, base)]
            if withHistory {
                row += [sameWork.map { cell($0, size) } ?? "–", ratio(mine, sameWork)]
            }
            let peak = "\(mebibytes(mine.peakBytes)) (\(mebibytes(base?.peakBytes)))"
            row += [ratio(mine, results[workload, size, raw]), ratio(mine, other), peak]
            if holds {
                row.append("\(bytes(mine.heldBytesPerRow)) (\(bytes(base?.heldBytesPerRow)))")
            }
            row.append(met.map { $0 ? "met" : "**missed**" } ?? "?")
            rows.append(row)
            let others = [base, sameWork, results[workload, size, raw], other].compactMap { $0?.checksum }
            if let differing = others.first(where: { $0 != mine.checksum }) {
                notes.append(
                    "N = \(count(size)): OpenSwiftData's checksum \(mine.checksum) differs from the others' (\(differing)), so it did not do the same work."
                )
            }
        }
        Swift.print("\n#### \(workload.rawValue). OpenSwiftData beside the Core Data layer (issue 33)\n")
        Swift.print(table(rows))
        if let small = sizes.min(), let large = sizes.max(), small != large,
            let first = results[workload, small, swiftData], let last = results[workload, large, swiftData]
        {
            let growth = (last.seconds / Double(large)) / (first.seconds / Double(small))
            Swift.print(
                "\nCost per row from N = \(count(small)) to \(count(large)) (×1.00 = linear): \(swiftData) ×\(String(format: "%.2f", growth))"
            )
        }
        for note in notes { Swift.print("\n⚠️ " + note) }
    }
}
