// What each implementation under comparison provides, as in the SQLite benchmark, with
// asynchronous bodies: postgres-nio and Fluent are asynchronous clients.
import Foundation

/// One run of a workload: `body` is timed and returns a checksum (the same for every
/// contender when they did the same work); `check`, untimed, confirms what the body did
/// where its checksum cannot; `finish` closes connections afterwards, untimed.
///
/// The body is `@Sendable`, so it runs off the main actor (on the cooperative pool), as a
/// server's request handlers do, and no contender pays a hop to the main thread per await.
struct PreparedRun {
    let body: @Sendable () async throws -> Int
    var finish: () async -> Void = {}
    var check: () async throws -> Void = {}
}

/// An implementation under comparison, working in a database of its own.
///
/// Every database starts as a copy of one template that OpenCoreData's PostgreSQL store
/// created for the benchmark model, so all contenders share one table layout and its indexes.
@MainActor
protocol Contender: AnyObject {
    /// The name in the report and on the command line.
    static var label: String { get }

    /// A contender working in the database at `url` (a `postgres://` URL).
    init(url: URL)

    /// Workload 1: the timed insert of `items` and the save (the database was just made from the template).
    func insert(_ items: [ItemValues]) async throws -> PreparedRun
    /// Workload 2: read every attribute of the items matching the fetch predicate, sorted by `number`.
    func fetchAndRead() async throws -> PreparedRun
    /// Workload 3: count the items matching the count predicate.
    func count() async throws -> PreparedRun
    /// Workload 4: all items sorted by `number`, 50 at a time; touch `BenchmarkData.touchedPositions`.
    func batchedFetch() async throws -> PreparedRun
    /// Workload 5: add 1 to `amount` of every item and save.
    func update() async throws -> PreparedRun
    /// Workload 6's data, written untimed before its first run.
    func insertFamilies(_ families: [FamilyValues]) async throws
    /// Workload 6: every parent with its children; sum the children's `value`.
    func sumChildren() async throws -> PreparedRun
    /// Workload 7: in the copy of the database at `scratch`, delete the items below the delete limit.
    func batchDelete(scratch: URL) async throws -> PreparedRun
    /// Workload 8: workload 2 read the way generic code reads (by key or column name).
    func keyValueFetchAndRead() async throws -> PreparedRun
}
