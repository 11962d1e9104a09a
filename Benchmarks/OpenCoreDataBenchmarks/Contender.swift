// What each implementation under comparison provides: one preparation function per
// workload, which sets up untimed and hands back the part to time.
import OpenCoreData

/// One run of a workload: `body` is timed and returns a checksum (the same for every
/// contender when they did the same work); `finish` closes the store afterwards, untimed.
struct PreparedRun {
    let body: () throws -> Int
    var finish: () -> Void = {}

    /// This run, with `cleanup` after its own `finish`.
    func finishing(with cleanup: @escaping () -> Void) -> PreparedRun {
        PreparedRun(
            body: body,
            finish: {
                finish(); cleanup()
            })
    }
}

/// An implementation under comparison, working on its own store file.
///
/// Every store starts as a copy of the same empty Core Data store (`template`), so all
/// contenders share one table layout and its indexes.
protocol Contender: AnyObject {
    /// The name in the report.
    static var label: String { get }

    /// A contender whose store lives at `storeURL`, created from `template` by `insert`.
    init(storeURL: URL, template: URL)

    /// Workload 1: a fresh store, then the timed insert of `items` and the save.
    func insert(_ items: [ItemValues]) throws -> PreparedRun
    /// Workload 2: read every attribute of the items matching the fetch predicate, sorted by `number`.
    func fetchAndRead() throws -> PreparedRun
    /// Workload 3: count the items matching the count predicate.
    func count() throws -> PreparedRun
    /// Workload 4: all items sorted by `number`, 50 at a time; touch `BenchmarkData.touchedPositions`.
    func batchedFetch() throws -> PreparedRun
    /// Workload 5: add 1 to `amount` of every item and save.
    func update() throws -> PreparedRun
    /// Workload 6's data, written untimed before its first run.
    func insertFamilies(_ families: [FamilyValues]) throws
    /// Workload 6: every parent with its children; sum the children's `value`.
    func sumChildren() throws -> PreparedRun
    /// Workload 7: on a copy of the store at `scratch`, delete the items below the delete limit.
    func batchDelete(scratch: URL) throws -> PreparedRun
    /// Workload 8: workload 2 read the way generic code reads (by key or column name).
    func keyValueFetchAndRead() throws -> PreparedRun
    /// Workload 9: every item fetched, every attribute read, and the result held until `finish`.
    func fetchAndHold() throws -> PreparedRun
    /// Workload 10: workload 1 written as generic code writes (by name and key, where the contender has such a way).
    func keyValueInsert(_ items: [ItemValues]) throws -> PreparedRun
    /// Workload 11: workload 2 run twice at once, on two threads with a reader each; the sum of both checksums.
    func concurrentFetchAndRead() throws -> PreparedRun
    /// Whether the contender runs `workload` (all do every one, but OpenSwiftData).
    static func supports(_ workload: Workload) -> Bool
}

extension Contender {
    static func supports(_ workload: Workload) -> Bool { true }
}

/// What a workload 9 body keeps alive until its run's `finish` (measured in between).
final class HeldResult {
    var value: Any?
}
