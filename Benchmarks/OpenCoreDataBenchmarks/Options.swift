// Command-line options: which sizes and which workloads.

/// `--sizes 10000,100000` (also `10k`, `1M`) and `--workloads 1,2,parse,migrate,results,browse`; default: everything at 10k, 100k, 1M.
struct Options {
    var sizes = [10_000, 100_000, 1_000_000]
    var workloads = Workload.allCases
    var runsParse = true
    var runsMigration = true
    var runsResults = true
    var runsBrowse = true
    /// The contenders to run (all by default; one alone for profiling).
    var contenders: [any Contender.Type] = Harness.allContenders

    static let usage = """
        usage: swift run -c release OpenCoreDataBenchmarks [--sizes 10000,100000,1000000] [--workloads 1,2,3,4,5,6,7,8,9,10,11,parse,migrate,results,browse] [--contenders opencoredata,raw,grdb,openswiftdata,opencoredata+history]
          --sizes      item counts N (10k and 1M spellings work); default 10k,100k,1M
          --workloads  1 insert, 2 fetch, 3 count, 4 batched fetch, 5 update, 6 prefetch, 7 batch delete,
                       8 fetch read by key, 9 memory per held object, 10 insert by key,
                       11 two contexts fetching at once (its target compares with workload 2,
                       which runs with it),
                       parse (predicate parsing), migrate (lightweight migration), browse (store browser pages;
                       with OPENCOREDATA_BENCH_POSTGRES_URL=postgres://… also on a PostgreSQL store),
                       results (NSFetchedResultsController); default all
          --contenders which implementations run: opencoredata, raw, grdb, openswiftdata,
                       opencoredata+history (one alone is for profiling, e.g. under valgrind;
                       openswiftdata runs workloads 1, 2, 3, 5, 7 and 9 only,
                       opencoredata+history, the Core Data layer keeping persistent history
                       as SwiftData does, 1, 5 and 7); default all
        """

    struct UsageError: Error { let message: String }

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let option = remaining.popFirst() {
            guard ["--sizes", "--workloads", "--contenders"].contains(option) else {
                throw UsageError(message: option == "--help" || option == "-h" ? "" : "unknown option '\(option)'")
            }
            guard let value = remaining.popFirst() else { throw UsageError(message: "\(option) needs a value") }
            let items = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if option == "--sizes" {
                sizes = try items.map { try Self.size($0) }
            } else if option == "--contenders" {
                contenders = try items.map { item in
                    guard
                        let type = Harness.allContenders.first(where: {
                            $0.label.lowercased().replacingOccurrences(of: " sqlite", with: "") == item
                        })
                    else {
                        throw UsageError(
                            message:
                                "unknown contender '\(item)' (opencoredata, raw, grdb, openswiftdata, opencoredata+history)"
                        )
                    }
                    return type
                }
            } else {
                workloads = try items.filter { !["parse", "migrate", "results", "browse"].contains($0) }.map { item in
                    guard let number = Int(item), let workload = Workload(rawValue: number) else {
                        throw UsageError(message: "unknown workload '\(item)'")
                    }
                    return workload
                }
                runsParse = items.contains("parse")
                runsMigration = items.contains("migrate")
                runsResults = items.contains("results")
                runsBrowse = items.contains("browse")
            }
        }
        sizes = Array(Set(sizes)).sorted()
        // Workload 11's target is a ratio to workload 2 at the same size.
        if workloads.contains(.concurrentFetch) { workloads.append(.fetch) }
        workloads = Array(Set(workloads)).sorted()
        if sizes.isEmpty { throw UsageError(message: "no sizes given") }
    }

    private static func size(_ text: String) throws -> Int {
        guard let size = SizeOption.parse(text) else { throw UsageError(message: "bad size '\(text)'") }
        return size
    }
}
