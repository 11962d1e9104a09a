// The `parse` workload: NSPredicate parsing speed.
import OpenCoreData

enum ParseWorkload {
    /// Seconds per iteration of `body`: the best of 5 rounds of `iterations` after a warm-up.
    private static func measure(iterations: Int, _ body: () -> Void) -> Double {
        for _ in 0..<max(1, iterations / 10) { body() }
        let clock = ContinuousClock()
        var best = Double.infinity
        for _ in 0..<5 {
            let elapsed = clock.measure { for _ in 0..<iterations { body() } }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            best = min(best, seconds / Double(iterations))
        }
        return best
    }

    private static func formatTime(_ seconds: Double) -> String {
        seconds < 1e-3 ? String(format: "%.2f µs", seconds * 1e6) : String(format: "%.3f ms", seconds * 1e3)
    }

    /// Parsing a ~200-character predicate. No other predicate parser runs on Linux, so the
    /// comparison is the floor of any parser: one pass over the string's UTF-8 bytes.
    static func run() {
        let format =
            #"(name BEGINSWITH[cd] "jo" OR nickname ==[c] %@) AND age BETWEEN {18, 65} AND ANY photos.title CONTAINS[cd] "beach" AND photos.@count > 5 AND SUBQUERY(tags, $t, $t.title LIKE "sw*").@count >= 1 AND NOT (deleted == YES)"#
        var parsed = 0
        let ours = measure(iterations: 2_000) {
            if (try? NSPredicate.parse(format: format, argumentArray: ["joe"])) != nil { parsed += 1 }
        }
        var checksum = 0
        let scan = measure(iterations: 2_000) {
            for byte in format.utf8 { checksum &+= Int(byte) }
        }
        print("\n### parse: NSPredicate parsing\n")
        print(
            "parse \(format.count)-character predicate: \(formatTime(ours)) per parse; UTF-8 scan \(formatTime(scan)); ratio \(String(format: "%.0f", ours / scan))× (\(parsed > 0 && checksum != 0 ? "ok" : "?"))"
        )
    }
}
