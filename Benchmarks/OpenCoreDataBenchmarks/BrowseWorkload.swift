// The `browse` workload: pages of the store browser (`cdtool serve`) on an N-row table,
// against reading the same hundred rows with SQLite's C API; with
// OPENCOREDATA_BENCH_POSTGRES_URL set, the same pages of a PostgreSQL store against the same
// rows read through libpq.
import GRDBSQLite
import OpenCoreData
import OpenCoreDataPostgreSQL
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
            let connection = try RawConnection(path: url.path)
            defer { connection.close() }
            let statement = try connection.prepare(
                "SELECT Z_PK, Z_ENT, Z_OPT, ZAMOUNT, ZCREATED, ZFLAG, ZNAME, ZNUMBER FROM ZITEM WHERE Z_PK > ? ORDER BY Z_PK LIMIT 100"
            )
            rows += try timedPages(browser, size: size) { start in
                statement.reset()
                statement.bind(start, at: 1)
                var names = 0
                while try statement.step() { names &+= Int(statement.int64(0)) }
                precondition(names >= 0)
            }
        }
        print(Report.table(rows))
        if let database = ProcessInfo.processInfo.environment["OPENCOREDATA_BENCH_POSTGRES_URL"], !database.isEmpty {
            try runOnPostgreSQL(URL(string: database), model: loaded, sizes: sizes)
        }
    }

    /// The pages of a PostgreSQL store of N rows (each size in a schema of its own, dropped
    /// after), against the page's rows read with libpq.
    private static func runOnPostgreSQL(_ url: URL?, model: NSManagedObjectModel, sizes: [Int]) throws {
        guard let url else { throw BenchmarkError("OPENCOREDATA_BENCH_POSTGRES_URL is not a URL") }
        print(
            "\n### browse on PostgreSQL: a page of 100 rows in the store browser (the whole HTML page) against reading those rows with libpq\n"
        )
        var rows = [["N", "page", "OpenCoreData", "libpq", "ratio", "target"]]
        let admin = try PostgreSQLConnection(url: url)
        defer { admin.close() }
        for size in sizes {
            let schema = "browse_\(size)"
            _ = try admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            defer { _ = try? admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
            let options: [String: NSObject] = [NSPostgreSQLSchemaNameOption: schema as NSString]
            // The store made empty by a coordinator, then filled in one statement.
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(
                ofType: NSPostgreSQLStoreType, configurationName: nil, at: url, options: options)
            try coordinator.remove(store)
            _ = try admin.execute(
                "INSERT INTO \(schema).zitem (z_pk, z_ent, z_opt, zamount, zcreated, zflag, zname, znumber) SELECT i, (SELECT z_ent FROM \(schema).z_primarykey WHERE z_name = 'Item'), 1, i * 0.5, 700000000 + i, i % 2, 'item ' || i, i FROM generate_series(1, \(size)) AS i"
            )
            _ = try admin.execute("ANALYZE \(schema).zitem")
            let browser = try StoreBrowser(
                storeURL: url, storeOptions: options, model: model, token: StoreBrowser.newToken())
            defer { browser.close() }
            let reader = try PostgreSQLConnection(url: url)
            defer { reader.close() }
            let query =
                "SELECT Z_PK, Z_ENT, Z_OPT, ZAMOUNT, ZCREATED, ZFLAG, ZNAME, ZNUMBER FROM \(schema).zitem WHERE Z_PK > $1 ORDER BY Z_PK LIMIT 100"
            rows += try timedPages(browser, size: size) { start in
                let result = try reader.execute(query, [.integer(start)], binaryResults: true)
                precondition(result.rowCount >= 0)
            }
        }
        print(Report.table(rows))
    }

    /// The four pages, each timed (best of seven) beside `raw` reading the page's rows after
    /// the given key, as the report's rows.
    private static func timedPages(
        _ browser: StoreBrowser, size: Int, raw: (Int64) throws -> Void
    ) throws -> [[String]] {
        let deep = Int64(max(0, size - 150))
        let pages: [(String, [String: String], Int64)] = [
            ("first", [:], 0), ("deep (after \(deep))", ["after": String(deep)], deep),
            ("sorted by an indexed key, first", ["sort": "-number"], -1),
            ("filtered, first", ["predicate": "number > \(size / 2)"], Int64(size / 2)),
        ]
        var rows: [[String]] = []
        for (label, query, start) in pages {
            var ours = Double.infinity, theirs = Double.infinity
            for _ in 0..<7 {
                let clock = ContinuousClock()
                let begin = clock.now
                let response = browser.respond(
                    to: BrowserRequest(path: "/entity/Item", query: query, cookies: ["cdtool_token": browser.token]))
                ours = min(ours, seconds(clock.now - begin))
                guard response.status == 200 else { throw BenchmarkError("page \(label) answered \(response.status)") }
                theirs = min(theirs, seconds(try clock.measure { try raw(max(start, 0)) }))
            }
            rows.append([
                Report.count(size), label, Report.time(ours), Report.time(theirs),
                String(format: "%.0f×", ours / theirs),
                "< 50 ms: \(ours < 0.05 ? "met" : "missed")",
            ])
        }
        return rows
    }

    private static func seconds(
        _ duration: Duration
    ) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
