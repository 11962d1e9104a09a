import Foundation
import OpenCoreData
import StoreBrowser
import Testing

/// The store browser in a real browser: headless Chromium from the system's packages loads
/// the pages `cdtool-serve` serves, keeps the token's cookie in its profile between runs,
/// renders tables, filters, pages and links, takes a screenshot, and runs none of the
/// script a store's strings hold. Skipped where Chromium is not installed, unless
/// `OPENCOREDATA_REQUIRE_CHROMIUM=1` (CI installs it and sets that).
@Suite(.serialized) struct ChromiumTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static var required: Bool { ProcessInfo.processInfo.environment["OPENCOREDATA_REQUIRE_CHROMIUM"] == "1" }

    /// A running `cdtool-serve` on a store of `authors` authors, and a browser profile.
    struct Session {
        let server: Process
        let address: String
        let base: String
        let profile: URL

        /// Chromium's rendered DOM of `path` (after any script would have run).
        func dom(_ path: String) throws -> String {
            String(decoding: try ChromiumTests.run(["--dump-dom", base + path], profile: profile), as: UTF8.self)
        }
    }

    static func start(authors: Int) throws -> Session {
        let store = try BrowserFixture.store(authors: authors)
        let (process, line) = try ServerProcessTests.serve(store)
        let profile = store.deletingLastPathComponent().appendingPathComponent("chromium-profile")
        return Session(
            server: process, address: line, base: String(line.prefix { $0 != "?" }).dropLast() + "", profile: profile)
    }

    /// Runs headless Chromium with `arguments` and returns what it printed.
    static func run(_ arguments: [String], profile: URL) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(chromium))
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=\(profile.path)",
            ]
            + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // A browser that hangs is stopped after a minute rather than holding the suite.
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        return data
    }

    @Test func aBrowserKeepsTheTokenAndFollowsThePages() throws {
        guard Self.chromium != nil || Self.required else { return }
        #expect(Self.chromium != nil, "OPENCOREDATA_REQUIRE_CHROMIUM=1 but no Chromium is installed")
        let session = try Self.start(authors: 150)
        defer { session.server.terminate() }

        // Without the token: 401. With it once, the cookie does the rest.
        #expect(try session.dom("/").contains("Access token needed"))
        #expect(
            try String(decoding: Self.run(["--dump-dom", session.address], profile: session.profile), as: UTF8.self)
                .contains("Library.sqlite"))
        let overview = try session.dom("/")
        #expect(overview.contains(#"<a href="/entity/Author">Author</a></td><td>150</td>"#))

        // Page through a table, filter with a predicate, follow a to-many.
        let first = try session.dom("/entity/Author")
        #expect(first.components(separatedBy: "<tr><td><a href=\"/object/Author/").count - 1 == 100)
        #expect(first.contains(#"href="/entity/Author?after=100">Next page"#))
        let second = try session.dom("/entity/Author?after=100")
        #expect(second.contains(#"<a href="/object/Author/p150">Author/p150</a>"#))
        #expect(!second.contains(#"<a href="/object/Author/p100">"#))
        let filtered = try session.dom("/entity/Author?predicate=name+BEGINSWITH+%27Author+14%27")
        #expect(filtered.components(separatedBy: "<tr><td><a href=\"/object/Author/").count - 1 == 11)
        let author = try session.dom("/object/Author/p2")
        #expect(author.contains(#"<h2 id="books">books (2 Book)</h2>"#))
        let book = try session.dom("/object/Book/p3")
        #expect(book.contains(#"<a href="/object/Author/p2">Author/p2</a>"#))
    }

    /// The store's strings render as text; the markup in them never runs.
    @Test func storeStringsRunNoScript() throws {
        guard Self.chromium != nil || Self.required else { return }
        #expect(Self.chromium != nil, "OPENCOREDATA_REQUIRE_CHROMIUM=1 but no Chromium is installed")
        let session = try Self.start(authors: 3)
        defer { session.server.terminate() }
        _ = try Self.run(["--dump-dom", session.address], profile: session.profile)
        let dom = try session.dom("/entity/Author")
        #expect(dom.contains("&lt;script&gt;alert('x')&lt;/script&gt;\"quoted\" &amp; \u{FFFD}bell"))
        // The one script is the browser's own file.
        #expect(dom.components(separatedBy: "<script").count - 1 == 1)
        #expect(dom.contains(#"<script src="/browser.js" defer=""></script>"#))
    }

    #if canImport(Glibc)
    /// Driven over the DevTools protocol: an open table shows an author another process saves,
    /// without the page being loaded again; an edit typed into the form is saved (cookie,
    /// CSRF token and the page's policy as a real browser applies them).
    @Test func aLivePageFollowsAnotherProcessAndAFormSaves() throws {
        guard let chromium = Self.chromium ?? (Self.required ? "/usr/bin/chromium" : nil) else { return }
        #expect(Self.chromium != nil, "OPENCOREDATA_REQUIRE_CHROMIUM=1 but no Chromium is installed")
        let store = try BrowserFixture.store(authors: 3)
        let (server, address) = try ServerProcessTests.serve(store, ["--allow-edits"])
        defer { server.terminate() }
        let base = String(address.prefix { $0 != "?" }).dropLast()
        let browser = try DevTools(
            chromium: chromium, profile: store.deletingLastPathComponent().appendingPathComponent("devtools-profile"))
        defer { browser.quit() }

        let page = try browser.open(address)
        #expect(try browser.wait(until: "document.title.includes('Library.sqlite')", session: page))
        try browser.call("Page.navigate", ["url": base + "/entity/Author"], session: page)
        #expect(try browser.wait(until: "document.body.dataset.live === 'connected'", session: page))
        #expect(try browser.wait(until: "document.querySelector('main').innerText.includes('Author 2')", session: page))
        // A mark on this document: a page loaded again would not have it.
        _ = try browser.evaluate("window.sameDocument = 42", session: page)

        // Another process (this test's) saves a new author.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BrowserFixture.model())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                .setValue("Saved elsewhere", forKey: "name")
            try context.save()
        }
        #expect(
            try browser.wait(
                until: "document.querySelector('main').innerText.includes('Saved elsewhere')", session: page))
        #expect(try browser.evaluate("window.sameDocument", session: page) as? Int == 42)
        let png = try browser.screenshot(session: page)
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(png.count > 20_000, "\(png.count) bytes: a blank page?")

        // An edit typed into the form and sent as a person would.
        try browser.call("Page.navigate", ["url": base + "/object/Author/p2/edit"], session: page)
        #expect(try browser.wait(until: "document.querySelector('form[method=post]')", session: page))
        _ = try browser.evaluate(
            """
            document.querySelector('textarea[name="value:name"]').value = 'Typed in Chromium';
            document.querySelector('form[method=post] button[type=submit]').click();
            """, session: page)
        #expect(try browser.wait(until: "location.pathname === '/object/Author/p2'", session: page))
        #expect(
            try browser.wait(
                until: "document.querySelector('main').innerText.includes('Saved.')"
                    + " && document.querySelector('main').innerText.includes('Typed in Chromium')", session: page))
        let typed = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.predicate = NSPredicate(format: "name == 'Typed in Chromium'")
            return try context.count(for: request)
        }
        #expect(typed == 1)
    }
    #endif

    /// A screenshot of a table: a real picture of the page, kept for the README.
    @Test func aScreenshotShowsTheTable() throws {
        guard Self.chromium != nil || Self.required else { return }
        #expect(Self.chromium != nil, "OPENCOREDATA_REQUIRE_CHROMIUM=1 but no Chromium is installed")
        let session = try Self.start(authors: 30)
        defer { session.server.terminate() }
        _ = try Self.run(["--dump-dom", session.address], profile: session.profile)
        let picture = session.profile.deletingLastPathComponent().appendingPathComponent("table.png")
        _ = try Self.run(
            ["--window-size=1200,800", "--screenshot=\(picture.path)", session.base + "/entity/Author"],
            profile: session.profile)
        let png = try Data(contentsOf: picture)
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        // A blank 1200×800 page compresses to a few kilobytes; a table of text does not.
        #expect(png.count > 30_000, "\(png.count) bytes")
    }
}
