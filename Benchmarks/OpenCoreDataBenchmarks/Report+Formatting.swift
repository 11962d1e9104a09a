// How the reports write times, sizes, ratios and tables (shared with the PostgreSQL benchmark).

import Foundation

extension Report {
    /// How the cost per row changes from the smallest to the largest size (×1.0 = linear).
    static func linearity(_ results: Results, workload: Workload, sizes: [Int], labels: [String]) -> String? {
        guard let small = sizes.min(), let large = sizes.max(), small != large else { return nil }
        let parts = labels.compactMap {
            label -> String? in
            guard let first = results[workload, small, label], let last = results[workload, large, label] else {
                return nil
            }
            let growth = (last.seconds / Double(large)) / (first.seconds / Double(small))
            return "\(label) ×\(String(format: "%.2f", growth))"
        }
        return "Cost per row from N = \(count(small)) to \(count(large)) (×1.00 = linear): "
            + parts.joined(separator: ", ")
    }

    /// A time with its cost per row.
    static func cell(_ measurement: Measurement, _ size: Int) -> String {
        "\(time(measurement.seconds)) (\(perRow(measurement.seconds / Double(size))))"
    }

    /// `mine` over `other`, as `1.23×`.
    static func ratio(_ mine: Measurement, _ other: Measurement?) -> String {
        guard let other, other.seconds > 0 else { return "–" }
        return String(format: "%.2f×", mine.seconds / other.seconds)
    }

    /// A duration with a unit that keeps 3–4 significant digits.
    static func time(_ seconds: Double) -> String {
        switch seconds {
        case 1...: String(format: "%.2f s", seconds)
        case 1e-3...: String(format: "%.1f ms", seconds * 1e3)
        default: String(format: "%.0f µs", seconds * 1e6)
        }
    }

    /// A cost per row, in µs or ns.
    static func perRow(_ seconds: Double) -> String {
        seconds >= 1e-6 ? String(format: "%.2f µs", seconds * 1e6) : String(format: "%.0f ns", seconds * 1e9)
    }

    /// Bytes per row, or `?` when unmeasured.
    static func bytes(_ value: Double?) -> String {
        value.map { String(format: "%.0f", $0) } ?? "?"
    }

    static func mebibytes(_ bytes: Int?) -> String {
        bytes.map { String(format: "%.1f", Double($0) / 1_048_576) } ?? "?"
    }

    /// 10000 → "10k", 1000000 → "1M".
    static func count(_ size: Int) -> String {
        if size >= 1_000_000, size % 1_000_000 == 0 { return "\(size / 1_000_000)M" }
        if size >= 1_000, size % 1_000 == 0 { return "\(size / 1_000)k" }
        return "\(size)"
    }

    /// A Markdown table: the first column left-aligned, the others right-aligned.
    static func table(_ rows: [[String]]) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { column, text in
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return column == 0 ? text + padding : padding + text
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        let rule =
            "|"
            + widths.enumerated().map { column, width in
                column == 0
                    ? ":" + String(repeating: "-", count: width + 1) : String(repeating: "-", count: width + 1) + ":"
            }.joined(separator: "|") + "|"
        return ([line(rows[0]), rule] + rows.dropFirst().map(line)).joined(separator: "\n")
    }
}
