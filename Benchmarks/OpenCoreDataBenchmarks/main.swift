// OpenCoreData's benchmarks, run on demand (never as tests):
//
//   swift run -c release OpenCoreDataBenchmarks [--sizes 10000,100000] [--workloads 1,2,parse,migrate,results]
//
// Each workload of issue 4 runs at each size N on the same generated data, in one
// process, on OpenCoreData, the raw SQLite C API and GRDB records, each on its own
// store file; the report gives times, per-row costs, ratios, peak memory and targets.
// OpenSwiftData runs workloads 1, 2, 3, 5, 7 and 9 beside them, reported against the
// Core Data layer it is built on (issue 33).
import OpenCoreData

MemoryMeter.useOneHeapArena()
let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch let error as Options.UsageError {
    if !error.message.isEmpty {
        FileHandle.standardError.write(Data("OpenCoreDataBenchmarks: \(error.message)\n".utf8))
    }
    print(Options.usage)
    exit(error.message.isEmpty ? 0 : 2)
}

#if DEBUG
print("⚠️ Debug build: run with `swift run -c release OpenCoreDataBenchmarks` for meaningful numbers.")
#endif
print("# OpenCoreData benchmarks")
print(
    "\nSQLite \(RawConnection.libraryVersion); sizes \(options.sizes.map(Report.count).joined(separator: ", ")); times are the best of \(options.sizes.map { "\(Harness.repetitions(for: $0))" }.joined(separator: "/")) runs; peak MiB is the rise of the peak RSS over the RSS before the run."
)

if !options.workloads.isEmpty {
    do {
        let results = try Harness(
            sizes: options.sizes, workloads: options.workloads, contenderTypes: options.contenders
        ).run()
        Report.print(results, sizes: options.sizes, workloads: options.workloads)
    } catch {
        FileHandle.standardError.write(Data("OpenCoreDataBenchmarks: \(error)\n".utf8))
        exit(1)
    }
}
if options.runsParse { ParseWorkload.run() }
do {
    if options.runsMigration { try MigrationWorkload.run(sizes: options.sizes) }
    if options.runsResults { try ResultsControllerWorkload.run(sizes: options.sizes) }
    if options.runsBrowse { try BrowseWorkload.run(sizes: options.sizes) }
} catch {
    FileHandle.standardError.write(Data("OpenCoreDataBenchmarks: \(error)\n".utf8))
    exit(1)
}
