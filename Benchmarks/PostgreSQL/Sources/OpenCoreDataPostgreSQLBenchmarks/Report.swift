// Prints one Markdown table per workload: times, ratios, the target.
import Foundation

enum Report {
    @MainActor static func print(_ results: Results, sizes: [Int], workloads: [Workload]) {
        let ours = OpenCoreDataContender.label, raw = PostgresNIOContender.label, fluent = FluentContender.label
        for workload in workloads {
            Swift.print("\n### \(workload.rawValue). \(workload.title)\n")
            var rows = [
                [
                    "N", "\(ours) (per row)", "\(raw) (per row)", "\(fluent) (per row)", "ours/raw", "ours/Fluent",
                    "target \(Workload.target)",
                ]
            ]
            var notes: [String] = []
            for size in sizes {
                guard let mine = results[workload, size, ours] else { continue }
                let theirs = results[workload, size, raw]
                let other = results[workload, size, fluent]
                let met = Workload.isMet(ours: mine.seconds, raw: theirs?.seconds, fluent: other?.seconds)
                rows.append([
                    count(size), cell(mine, size), theirs.map { cell($0, size) } ?? "–",
                    other.map { cell($0, size) } ?? "–", ratio(mine, theirs), ratio(mine, other),
                    met.map { $0 ? "met" : "**missed**" } ?? "?",
                ])
                let measured = [mine, theirs, other]
                if Set(measured.compactMap { $0?.checksum }).count > 1 {
                    notes.append(
                        "N = \(count(size)): the contenders' checksums differ (\(measured.map { $0.map { String($0.checksum) } ?? "–" }.joined(separator: " / "))), so they did not do the same work."
                    )
                }
            }
            Swift.print(table(rows))
            if let linearity = linearity(results, workload: workload, sizes: sizes, labels: [ours, raw, fluent]) {
                Swift.print("\n" + linearity)
            }
            for note in notes { Swift.print("\n⚠️ " + note) }
        }
    }
}
