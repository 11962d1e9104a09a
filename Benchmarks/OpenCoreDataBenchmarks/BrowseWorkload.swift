// The `browse` workload: pages of the store browser (`cdtool serve`) on an N-row table,
// against reading the same hundred rows with SQLite's C API.
import GRDBSQLite
import OpenCoreData
import StoreBrowser

enum BrowseWorkload {

    static func run(sizes: [Int]) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "OpenCoreDataBenchmarks-browse-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("Shop.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(MigrationWorkload.version1.utf8).write(to: folder.appendingPathComponent("contents"))
        let loaded = try NSManagedObjectModel.load(contentsOf: folder)
        print(
            "\n### browse: a page of 100 rows in the store browser (the whole HTML page) against reading those rows with SQLite's C API\n"
        )
        var rows = [["N", "page", "OpenCoreData", "raw SQLite", "ratio", "target"]]
        for size in sizes {
            let url = root.appendingPathComponent("browse-\(size).sqlite")
            try StoreFiles.fillInSQL(url, model: loaded, entity: "Item", rows: size) { entity in
                """
                INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZAMOUNT, ZCREATED, ZFLAG, ZNAME, ZNUMBER)
                SELECT i, \(entity), 1, i * 0.5, 700000000 + i, i % 2, 'item ' || i, i FROM n
                """
            }
            let browser = try StoreBrowser(storeURL: url, model: loaded, token: StoreBrowser.newToken())
            let deep = Int64(max(0, size - 150))
            let pages: [(String, [String: String], Int64)] = [
                ("first", [:], 0), ("deep (after \(deep))", ["after": String(deep)], deep),
                ("sorted by an indexed key, first", ["sort": "-number"], -1),
                ("filtered, first", ["predicate": "number > \(size / 2)"], Int64(size / 2)),
            ]
            let connection = try RawConnection(path: url.path)
            defer { connection.close() }
            let statement = try connection.prepare(
                "SELECT Z_PK, Z_ENT, Z_OPT, ZAMOUNT, ZCREATED, ZFLAG, ZNAME, ZNUMBER FROM ZITEM WHERE Z_PK > ? ORDER BY Z_PK LIMIT 100"
            )
            for (label, query, start) in pages {
                var ours = Double.infinity, raw = Double.infinity
                for _ in 0..<7 {
                    let clock = ContinuousClock()
                    let begin = clock.now
                    let response = browser.respond(
                        to: BrowserRequest(path: "/entity/Item", query: query, cookies: ["cdtool_token": browser.token])
                    )
                    ours = min(ours, seconds(clock.now - begin))
                    guard response.status == 200 else {
                        throw BenchmarkError("page \(label) answered \(response.status)")
                    }
                    raw = min(
                        raw,
                        seconds(
                            try clock.measure {
                                statement.reset()
                                statement.bind(max(start, 0), at: 1)
                                var names = 0
                                while try statement.step() { names &+= Int(statement.int64(0)) }
                                precondition(names >= 0)
                            }))
                }
                rows.append([
                    Report.count(size), label, Report.time(ours), Report.time(raw), String(format: "%.0f×", ours / raw),
                    "< 50 ms: \(ours < 0.05 ? "met" : "missed")",
                ])
            }
        }
        print(Report.table(rows))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
