// Command-line options: sizes, workloads, contenders and the server.

/// `--sizes 10000,100000` (also `10k`, `1M`), `--workloads 1,2,…`, `--contenders …`, `--url postgres://…`.
@MainActor
struct Options {
    var sizes = [10_000, 100_000]
    var workloads = Workload.allCases
    var contenders: [any Contender.Type] = Harness.allContenders
    /// A running server to use instead of a throwaway cluster.
    var serverURL: String?

    static let usage = """
        usage: swift run -c release OpenCoreDataPostgreSQLBenchmarks [--sizes 10000,100000] [--workloads 1,2,3,4,5,6,7,8] [--contenders opencoredata,postgres-nio,fluent] [--url postgres://user@host:port]
          --sizes      item counts N (10k and 1M spellings work); default 10k,100k
          --workloads  1 insert, 2 fetch, 3 count, 4 batched fetch, 5 update, 6 prefetch, 7 batch delete,
                       8 fetch read by key; default all
          --contenders which implementations run: opencoredata, postgres-nio, fluent (one alone
                       is for profiling); default all
          --url        a running server (its address without a database; the benchmark creates
                       and drops databases named ocd_bench_*); default: OPENCOREDATA_POSTGRES_URL,
                       else a throwaway cluster from the installed server binaries, as the tests start
        """

    struct UsageError: Error { let message: String }

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let option = remaining.popFirst() {
            guard ["--sizes", "--workloads", "--contenders", "--url"].contains(option) else {
                throw UsageError(message: option == "--help" || option == "-h" ? "" : "unknown option '\(option)'")
            }
            guard let value = remaining.popFirst() else { throw UsageError(message: "\(option) needs a value") }
            let items = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            switch option {
            case "--sizes": sizes = try items.map { try Self.size($0) }
            case "--url": serverURL = value.hasSuffix("/") ? String(value.dropLast()) : value
            case "--contenders":
                contenders = try items.map { item in
                    guard let type = Harness.allContenders.first(where: { $0.label.lowercased() == item }) else {
                        throw UsageError(message: "unknown contender '\(item)' (opencoredata, postgres-nio, fluent)")
                    }
                    return type
                }
            default:
                workloads = try items.map { item in
                    guard let number = Int(item), let workload = Workload(rawValue: number) else {
                        throw UsageError(message: "unknown workload '\(item)'")
                    }
                    return workload
                }
            }
        }
        sizes = Array(Set(sizes)).sorted()
        workloads = Array(Set(workloads)).sorted()
        if sizes.isEmpty { throw UsageError(message: "no sizes given") }
        if workloads.isEmpty { throw UsageError(message: "no workloads given") }
    }

    private static func size(_ text: String) throws -> Int {
        guard let size = SizeOption.parse(text) else { throw UsageError(message: "bad size '\(text)'") }
        return size
    }
}
