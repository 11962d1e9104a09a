// OpenCoreData's benchmarks, run on demand (never as tests):
//
//   swift run -c release OpenCoreDataBenchmarks [workload ...]
//
// Each workload runs OpenCoreData and, where one exists, its comparison in the same
// process, and prints the time per operation and the ratio.
import OpenCoreData

/// Runs `body` `iterations` times after a warm-up and returns seconds per iteration (best of 5 rounds).
func measure(iterations: Int, _ body: () -> Void) -> Double {
    for _ in 0..<max(1, iterations / 10) { body() }
    var best = Double.infinity
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { body() }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        best = min(best, elapsed / Double(iterations))
    }
    return best
}

func formatTime(_ seconds: Double) -> String {
    seconds < 1e-3 ? String(format: "%.2f µs", seconds * 1e6) : String(format: "%.3f ms", seconds * 1e3)
}

/// Parsing a ~200-character predicate. No other predicate parser runs on Linux, so the
/// comparison is the floor of any parser: one pass over the string's UTF-8 bytes.
func parseBenchmark() {
    let format = #"(name BEGINSWITH[cd] "jo" OR nickname ==[c] %@) AND age BETWEEN {18, 65} AND ANY photos.title CONTAINS[cd] "beach" AND photos.@count > 5 AND SUBQUERY(tags, $t, $t.title LIKE "sw*").@count >= 1 AND NOT (deleted == YES)"#
    var parsed = 0
    let ours = measure(iterations: 2_000) {
        if (try? NSPredicate.parse(format: format, argumentArray: ["joe"])) != nil { parsed += 1 }
    }
    var checksum = 0
    let scan = measure(iterations: 2_000) {
        for byte in format.utf8 { checksum &+= Int(byte) }
    }
    print("parse \(format.count)-character predicate: \(formatTime(ours)) per parse; UTF-8 scan \(formatTime(scan)); ratio \(String(format: "%.0f", ours / scan))× (\(parsed > 0 && checksum != 0 ? "ok" : "?"))")
}

let workloads: [String: () -> Void] = ["parse": parseBenchmark]
let selected = CommandLine.arguments.dropFirst().isEmpty ? workloads.keys.sorted() : Array(CommandLine.arguments.dropFirst())
for name in selected {
    guard let workload = workloads[name] else {
        print("unknown workload '\(name)'; choose from \(workloads.keys.sorted().joined(separator: ", "))")
        exit(2)
    }
    workload()
}
