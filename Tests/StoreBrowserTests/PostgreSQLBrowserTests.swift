import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataTestSupport
import StoreBrowser
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The browser on a PostgreSQL store (`cdtool serve postgres://…`): the same store written to
/// a SQLite file and to a database shows the same pages; the overview tells of the server
/// (never the password); edits, history, exports and live updates work as on a file.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct PostgreSQLBrowserTests {
    static func browser(
        _ url: URL, options: [String: NSObject] = [:], model: NSManagedObjectModel? = nil, allowsEdits: Bool = false
    ) throws -> StoreBrowser {
        try StoreBrowser(
            storeURL: url, storeOptions: options, model: model, token: BrowserFixture.token, allowsEdits: allowsEdits)
    }

    /// What a page shows below its title, with the store's UUID (in object ID URIs) named alike.
    static func main(of response: BrowserResponse, _ browser: StoreBrowser) -> String {
        let text = response.text
        guard let start = text.range(of: "<main>"), let end = text.range(of: "</main>") else { return text }
        let uuid = browser.get("/object/Author/p1").text.firstMatch(of: #/x-coredata:\/\/([0-9A-F-]+)\//#)?.1 ?? "?"
        return String(text[start.upperBound..<end.lowerBound]).replacingOccurrences(of: String(uuid), with: "UUID")
    }

    @Test func theSameStoreShowsTheSamePagesAsAFile() throws {
        let file = try BrowserFixture.browser(authors: 130)
        let database = try Self.browser(BrowserFixture.postgreSQLStore(authors: 130))
        defer { database.close() }
        let asked: [(String, [String: String])] = [
            ("/entity/Author", [:]), ("/entity/Author", ["after": "100"]), ("/entity/Book", ["after": "250"]),
            ("/entity/Author", ["sort": "rank"]), ("/entity/Author", ["sort": "-rank", "page": "2"]),
            ("/entity/Book", ["predicate": "price > 60 AND author.rank == 2", "sort": "-price"]),
            ("/entity/Author", ["predicate": "name BEGINSWITH 'Author 1'", "columns": "name,books"]),
            ("/entity/Book", ["predicate": "author == nil OR title ENDSWITH '-1'"]),
            ("/object/Author/p1", [:]), ("/object/Author/p2", [:]), ("/object/Book/p1", [:]), ("/model", [:]),
        ]
        for (path, query) in asked {
            let (mine, theirs) = (database.get(path, query), file.get(path, query))
            #expect(mine.status == 200, "\(path) \(query): \(mine.text)")
            #expect(Self.main(of: mine, database) == Self.main(of: theirs, file), "\(path) \(query)")
        }
        // Keyset pages, followed to the end: every row once, in key order.
        #expect(StoreBrowserTests.allRows(database, "/entity/Book", [:]) == (1...260).map { "Book/p\($0)" })
        // A malformed predicate is the parser's 400, as on a file; so is one the store cannot run.
        let bad = database.get("/entity/Book", ["predicate": "price < < 10"])
        #expect(bad.status == 400)
        #expect(
            Self.main(of: bad, database) == Self.main(of: file.get("/entity/Book", ["predicate": "price < < 10"]), file)
        )
        #expect(database.get("/entity/Book", ["predicate": "nothing == 1"]).status == 400)
        #expect(database.get("/object/Author/p999").status == 404)
    }

    @Test func theOverviewTellsOfTheServerAndNeverThePassword() throws {
        let made = try BrowserFixture.postgreSQLStore(authors: 4)
        // The tests' server trusts its local users, so a password is sent and not checked.
        var components = try #require(URLComponents(url: made, resolvingAgainstBaseURL: false))
        let secret = components.password ?? "hunter2-not-shown"
        components.password = secret
        let browser = try Self.browser(try #require(components.url))
        defer { browser.close() }
        let page = browser.get("/")
        #expect(page.status == 200)
        let text = page.text
        #expect(text.contains("<td><b>Database</b></td><td>postgres://"))
        #expect(text.contains(":***@"))
        #expect(text.contains("<td><b>Schema</b></td><td>public</td>"))
        #expect(text.contains("<td><b>Server</b></td><td>PostgreSQL 1"))
        #expect(text.contains("cached in the store (Z_MODELCACHE)"))
        #expect(text.contains(#"<td><a href="/entity/Author">Author</a></td><td>4</td>"#))
        #expect(text.contains(#"<td><a href="/entity/Book">Book</a></td><td>8</td>"#))
        #expect(!text.contains("Journal mode") && !text.contains("integrity check"))
        #expect(
            browser.get("/", ["check": "integrity"]).text.contains("not run: this store&#39;s engine checks itself"))
        for path in ["/", "/model", "/entity/Author", "/object/Author/p1", "/history", "/nothing"] {
            #expect(!browser.get(path).text.contains(secret), "\(path)")
        }
        #expect(!String(decoding: try browser.get("/export/Author.json").collected(), as: UTF8.self).contains(secret))
    }

    @Test func historyIsReadFromTheDatabase() throws {
        let browser = try Self.browser(BrowserFixture.postgreSQLStore(authors: 3, history: true))
        defer { browser.close() }
        let text = browser.get("/history").text
        let editor = try #require(text.range(of: "<td>editor</td>"))
        let importer = try #require(text.range(of: "<td>importer</td>"))
        #expect(editor.lowerBound < importer.lowerBound)
        #expect(text.contains("2 transactions in range"))
        #expect(text.contains(#"<li>update <a href="/object/Author/p2">Author/p2</a>: name</li>"#))
        let first = browser.get("/history", ["to": "1"]).text
        #expect(first.contains("<td>importer</td>") && !first.contains("<td>editor</td>"))
        // An object's page lists the transactions that touched it, and only those.
        let renamed = browser.get("/object/Author/p2").text
        #expect(renamed.contains("<td>editor</td>") && renamed.contains("<td>importer</td>"))
        let untouched = browser.get("/object/Author/p3").text
        #expect(untouched.contains("<td>importer</td>") && !untouched.contains("<td>editor</td>"))
    }

    @Test func exportsMatchTheFilesExports() throws {
        let file = try BrowserFixture.browser(authors: 40)
        let database = try Self.browser(BrowserFixture.postgreSQLStore(authors: 40))
        defer { database.close() }
        for (path, query) in [
            ("/export/Author.csv", ["predicate": "rank >= 2", "sort": "-born"]), ("/export/Book.json", [:]),
        ] {
            let (mine, theirs) = (database.get(path, query), file.get(path, query))
            #expect(mine.status == 200 && mine.stream != nil)
            func text(_ response: BrowserResponse, _ browser: StoreBrowser) throws -> String {
                let uuid = browser.get("/object/Author/p1").text.firstMatch(of: #/x-coredata:\/\/([0-9A-F-]+)\//#)?.1
                return String(decoding: try response.collected(), as: UTF8.self)
                    .replacingOccurrences(of: String(try #require(uuid)), with: "UUID")
            }
            let exported = try text(mine, database)
            #expect(exported.count > 1_000)
            #expect(exported == (try text(theirs, file)), "\(path)")
        }
        #expect(database.get("/export/Book.csv", ["predicate": "nosuchkey == 1"]).status == 400)
    }

    @Test func editsAreSavedAndConflictsReported() throws {
        let url = try BrowserFixture.postgreSQLStore(authors: 2, history: true)
        let browser = try Self.browser(url, allowsEdits: true)
        defer { browser.close() }
        var form = try StoreEditTests.form(of: browser.get("/object/Author/p2/edit"))
        // Inserted, then renamed by the fixture's second transaction.
        #expect(form["version"] == "2")
        form["value:name"] = "Edited in a page"
        form["value:books"] = "Book/p1"
        let saved = browser.post("/object/Author/p2/edit", form)
        #expect(saved.status == 303, "\(saved.text)")
        try Self.withContext(url, history: true) { context in
            let author = try context.existingObject(with: StoreEditTests().id(context, "Author/p2"))
            #expect(author.value(forKey: "name") as? String == "Edited in a page")
            let titles = (author.value(forKey: "books") as? Set<NSManagedObject> ?? []).compactMap {
                $0.value(forKey: "title") as? String
            }
            #expect(titles == ["Book 0-0"])
        }
        // The save is in the store's history, by the browser.
        #expect(browser.get("/object/Author/p2").text.contains("<td>cdtool serve</td>"))
        // The form sent back untouched changes nothing.
        let shown = try StoreEditTests.form(of: browser.get("/object/Author/p2/edit"))
        #expect(shown["version"] == "3")
        #expect(browser.post("/object/Author/p2/edit", shown).status == 303)
        #expect(try StoreEditTests.form(of: browser.get("/object/Author/p2/edit"))["version"] == "3")
        // Another server saves meanwhile: the form's version is old, the save a conflict.
        var stale = shown
        stale["value:rank"] = "9"
        try Self.withContext(url, history: true) { context in
            try context.existingObject(with: StoreEditTests().id(context, "Author/p2")).setValue(
                "Theirs", forKey: "name")
            try context.save()
        }
        let conflict = browser.post("/object/Author/p2/edit", stale)
        #expect(conflict.status == 409)
        #expect(conflict.text.contains("another process saved Author/p2 since this form was shown"))
        // Values the model refuses come back with its reason.
        var invalid = try StoreEditTests.form(of: conflict)
        invalid["value:rank"] = "101"
        let refused = browser.post("/object/Author/p2/edit", invalid)
        #expect(refused.status == 422 && refused.text.contains("a rank is at most 100"))
    }

    @Test func aStoreInAnotherSchemaIsNamedByTheOption() throws {
        let url = try BrowserFixture.postgreSQLStore(authors: 3, schema: "library")
        let browser = try Self.browser(url, options: BrowserFixture.postgreSQLOptions(schema: "library"))
        defer { browser.close() }
        let overview = browser.get("/").text
        #expect(overview.contains("<td><b>Schema</b></td><td>library</td>"))
        #expect(overview.contains(#"<td><a href="/entity/Author">Author</a></td><td>3</td>"#))
        #expect(
            StoreBrowserTests.rows(of: browser.get("/entity/Author")).rows == ["Author/p1", "Author/p2", "Author/p3"])
        // In the default schema there is no store, and none is made.
        #expect {
            try Self.browser(url)
        } throws: { "\($0)".contains("There is no store in schema 'public'") }
        #expect {
            try Self.browser(url, allowsEdits: true)
        } throws: { "\($0)".contains("There is no store in schema 'public'") }
        let tables = try PostgreSQLConnection(url: url).execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
        #expect(tables.text(0, 0) == "0")
    }

    @Test func unreachableOrForeignDatabasesAreClearErrors() throws {
        // The password never appears in an error, whether the server is unreachable or the URL
        // is one libpq would not read as a URL.
        #expect {
            try Self.browser(URL(string: "postgres://app:secret@127.0.0.1:1/nothing")!)
        } throws: {
            "\($0)".contains("Can't connect to the PostgreSQL store at postgres://app:***@127.0.0.1:1/nothing")
                && !"\($0)".contains("secret")
        }
        #expect {
            try Self.browser(URL(string: "postgres:/app:secret@127.0.0.1:1/nothing")!)
        } throws: { "\($0)".contains("without //") && !"\($0)".contains("secret") }
        // A schema that does not exist holds no store, and is not made.
        let bare = try PostgreSQLTestServer.makeDatabase()
        #expect {
            try Self.browser(bare, options: BrowserFixture.postgreSQLOptions(schema: "nowhere"))
        } throws: { "\($0)".contains("There is no store in schema 'nowhere'") }
        let schemas = try PostgreSQLConnection(url: bare).execute(
            "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'nowhere'")
        #expect(schemas.text(0, 0) == "0")
        #expect {
            try Self.browser(URL(string: "mysql://127.0.0.1/nothing")!)
        } throws: { "\($0)".contains("mysql URLs are not stores") }
        // A given model that does not fit is refused, naming the entities, for reading as for edits.
        let url = try BrowserFixture.postgreSQLStore(authors: 1)
        let other = BrowserFixture.model()
        other.entitiesByName["Book"]?.properties.removeAll { $0.name == "weight" }
        #expect {
            try Self.browser(url, model: other)
        } throws: {
            "\($0)".contains(
                "the model does not fit the store (entities whose version hashes differ or are missing: Book)")
        }
        #expect {
            try Self.browser(url, model: other, allowsEdits: true)
        } throws: { "\($0)".contains("--allow-edits needs a model that fits the store") }
    }

    /// Saves by other servers reach the browser's change feed (PostgreSQL's notifications),
    /// which `/events` sends to open pages.
    @Test func savesByOthersReachTheChangeFeed() async throws {
        let url = try BrowserFixture.postgreSQLStore(authors: 1)
        let browser = try Self.browser(url)
        defer { browser.close() }
        let updates = browser.changes.updates()
        try Self.withContext(url) { context in
            NSEntityDescription.insertNewObject(forEntityName: "Author", into: context).setValue("New", forKey: "name")
            try context.save()
        }
        let arrived = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in updates { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(arrived)
        #expect(browser.get("/entity/Author").text.contains("<td>New</td>"))
    }

    /// `cdtool-serve postgres://… --schema NAME`, the real server: pages over HTTP.
    @Test func theServerServesADatabaseByItsURL() async throws {
        let url = try BrowserFixture.postgreSQLStore(authors: 3, schema: "library")
        let (process, line) = try ServerProcessTests.serve(url, ["--schema", "library"])
        defer { process.terminate() }
        #expect(line.hasPrefix("http://127.0.0.1:") && line.hasSuffix("/?token=\(BrowserFixture.token)"))
        let session = URLSession(configuration: .ephemeral)
        let (body, response) = try await session.data(from: try #require(URL(string: line)))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let overview = String(decoding: body, as: UTF8.self)
        #expect(overview.contains("<td><b>Schema</b></td><td>library</td>"))
        var request = URLRequest(url: try #require(URL(string: String(line.prefix { $0 != "?" }) + "entity/Book")))
        request.setValue("cdtool_token=\(BrowserFixture.token)", forHTTPHeaderField: "Cookie")
        let (page, _) = try await session.data(for: request)
        #expect(String(decoding: page, as: UTF8.self).contains(#"<a href="/object/Book/p6">Book/p6</a>"#))
    }

    @Test func theServerRefusesASchemaForAFileAndADatabaseWithoutAStore() throws {
        func failure(_ arguments: [String]) throws -> (status: Int32, message: String) {
            let process = Process()
            process.executableURL = ServerProcessTests.server
            process.arguments = arguments
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            // A server that started instead would serve until stopped: stopped here, the test fails.
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning {
                process.terminate()
                Issue.record("cdtool-serve \(arguments) kept running")
            }
            process.waitUntilExit()
            return (
                process.terminationStatus,
                String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            )
        }
        let file = try failure([BrowserFixture.store(authors: 1).path, "--schema", "library"])
        #expect(file.status != 0 && file.message.contains("--schema names a PostgreSQL store's schema"))
        // A URL that does not parse is not echoed (it may hold a password).
        let garbled = try failure(["postgres://app:secret@[db/x"])
        #expect(garbled.status != 0 && garbled.message.contains("the PostgreSQL URL does not parse"))
        #expect(!garbled.message.contains("secret"), "\(garbled.message)")
        // One that parses but names no server reachable: the error shows it without the password.
        let unreachable = try failure(["postgres://app:secret@127.0.0.1:1/x"])
        #expect(unreachable.status == 1 && unreachable.message.contains("postgres://app:***@127.0.0.1:1/x"))
        #expect(!unreachable.message.contains("secret"), "\(unreachable.message)")
        let empty = try PostgreSQLTestServer.makeDatabase()
        let none = try failure([empty.absoluteString])
        #expect(none.status == 1 && none.message.hasPrefix("cdtool serve: error: "), "\(none.message)")
        #expect(none.message.contains("There is no store in schema 'public'"))
    }

    /// `body` with a context of a coordinator of its own on the database, as another server has.
    static func withContext<T>(
        _ url: URL, history: Bool = false, _ body: (NSManagedObjectContext) throws -> T
    ) throws -> T {
        try StoreEditTests().withContext(url, type: NSPostgreSQLStoreType, history: history, body)
    }
}
