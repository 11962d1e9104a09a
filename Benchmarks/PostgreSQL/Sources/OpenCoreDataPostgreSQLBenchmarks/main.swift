// OpenCoreData's PostgreSQL benchmarks (issue 35), run on demand (never as tests):
//
//   cd Benchmarks/PostgreSQL && swift run -c release OpenCoreDataPostgreSQLBenchmarks [--sizes 10k,100k] [--workloads 1,2]
//
// Each workload of the SQLite benchmark that the issue names runs at each size N on the same
// generated data, in one process, on OpenCoreData's PostgreSQL store, raw postgres-nio and
// Fluent, each in a database of its own on one server; the report gives times, per-row costs,
// ratios and the target (≤ 1.5× raw, ahead of Fluent).
import Foundation

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch let error as Options.UsageError {
    if !error.message.isEmpty {
        FileHandle.standardError.write(Data("OpenCoreDataPostgreSQLBenchmarks: \(error.message)\n".utf8))
    }
    print(Options.usage)
    exit(error.message.isEmpty ? 0 : 64)
}

#if DEBUG
print(
    "⚠️ Debug build: run with `swift run -c release OpenCoreDataPostgreSQLBenchmarks` for meaningful numbers.")
#endif

/// The server: `--url`, else the tests' (OPENCOREDATA_POSTGRES_URL or a throwaway cluster).
@MainActor
func serverURL() throws -> String {
    if let url = options.serverURL { return url }
    guard let server = PostgreSQLTestServer.shared else {
        throw BenchmarkError("no PostgreSQL server: \(PostgreSQLTestServer.unavailableReason)")
    }
    return server.baseURL
}

do {
    let databases = try await BenchmarkDatabases(baseURL: try serverURL())
    let version = try await databases.serverVersion()
    print("# OpenCoreData on PostgreSQL: benchmarks")
    print(
        "\n\(version); sizes \(options.sizes.map(Report.count).joined(separator: ", ")); times are the best of \(options.sizes.map { "\(Harness.repetitions(for: $0))" }.joined(separator: "/")) runs (batch deletes at least 5, each from a copy of one database); every contender on one loopback connection."
    )
    do {
        let results = try await Harness(
            sizes: options.sizes, workloads: options.workloads, contenderTypes: options.contenders,
            databases: databases
        ).run()
        await databases.close()
        Report.print(results, sizes: options.sizes, workloads: options.workloads)
    } catch {
        await databases.close()
        throw error
    }
} catch {
    FileHandle.standardError.write(Data("OpenCoreDataPostgreSQLBenchmarks: \(error)\n".utf8))
    exit(1)
}
