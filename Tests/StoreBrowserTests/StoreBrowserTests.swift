import Foundation
import OpenCoreData
import StoreBrowser
import Testing

/// The store browser's pages (`cdtool serve`), called directly: access, every page, paging,
/// filtering, exports, and escaping of what the store holds.
@Suite struct StoreBrowserTests {
    // MARK: Access

    @Test func everyRequestNeedsTheTokenWhichACookieKeeps() throws {
        let browser = try BrowserFixture.browser()
        #expect(browser.respond(to: BrowserRequest(path: "/")).status == 401)
        #expect(browser.respond(to: BrowserRequest(path: "/model", query: ["token": "wrong"])).status == 401)
        #expect(
            browser.respond(
                to: BrowserRequest(path: "/", cookies: ["cdtool_token": String(BrowserFixture.token.dropLast())])
            )
            .status == 401)
        let first = browser.respond(to: BrowserRequest(path: "/", query: ["token": BrowserFixture.token]))
        #expect(first.status == 200)
        let cookie = try #require(first.header("Set-Cookie"))
        #expect(cookie.hasPrefix("cdtool_token=\(BrowserFixture.token);"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let cookies = BrowserRequest.cookies(fromHeader: String(cookie.prefix { $0 != ";" }))
        #expect(browser.respond(to: BrowserRequest(path: "/model", cookies: cookies)).status == 200)
    }

    @Test func theServerIsReadOnlyAndUnknownPagesAre404() throws {
        let browser = try BrowserFixture.browser()
        let post = browser.respond(
            to: BrowserRequest(method: "POST", path: "/entity/Author", cookies: ["cdtool_token": BrowserFixture.token]))
        #expect(post.status == 405)
        let head = browser.respond(
            to: BrowserRequest(method: "HEAD", path: "/", cookies: ["cdtool_token": BrowserFixture.token]))
        #expect(head.status == 405)
        #expect(browser.get("/entity/Author", ["sort": "photo"]).status == 400)
        #expect(throws: (any Error).self) {
            try StoreBrowser(storeURL: URL(fileURLWithPath: "/tmp/x.sqlite"), model: nil, token: "short")
        }
        #expect(!StoreBrowser.isValidToken("0123456789abcdef;x=1"))
        #expect(browser.get("/nowhere").status == 404)
        #expect(browser.get("/entity/Nobody").status == 404)
        #expect(browser.get("/object/Author/p999").status == 404)
        #expect(browser.get("/object/Author/zz").status == 404)
        #expect(browser.get("/export/Author.xml").status == 404)
    }

    // MARK: Pages

    @Test func overviewShowsTheStoreTheModelAndTheEntities() throws {
        let browser = try BrowserFixture.browser(authors: 5)
        let page = browser.get("/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.text.contains("Library.sqlite"))
        #expect(page.text.contains("cached in the store (Z_MODELCACHE)"))
        #expect(page.text.contains(#"<td><a href="/entity/Author">Author</a></td><td>5</td>"#))
        #expect(page.text.contains(#"<td><a href="/entity/Book">Book</a></td><td>10</td>"#))
        #expect(!page.text.contains("Integrity check"))
        #expect(browser.get("/", ["check": "integrity"]).text.contains("<td><b>Integrity check</b></td><td>ok</td>"))
    }

    @Test func modelPageListsPropertiesWithInversesAndRules() throws {
        let page = try BrowserFixture.browser().get("/model").text
        #expect(
            page.contains(
                "<td>books</td><td>to-many</td><td>Book</td><td>optional, inverse author, delete rule cascade, count 0…∞</td>"
            ))
        #expect(page.contains("<td>rank</td><td>attribute</td><td>Integer 32</td><td>optional</td>"))
        // The diagram: a box per entity with its attributes, one labelled line per relationship pair.
        #expect(page.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(page.components(separatedBy: "<g class=\"entity\">").count - 1 == 2)
        #expect(page.contains(">rank: Integer 32</text>"))
        #expect(page.contains(">books * / author</text>"))
        #expect(page.components(separatedBy: "<line ").count - 1 == 1)
    }

    @Test func objectPageFollowsRelationshipsBothWays() throws {
        let browser = try BrowserFixture.browser(authors: 2)
        let author = browser.get("/object/Author/p2").text
        #expect(author.contains("x-coredata://"))
        #expect(author.contains("/Author/p2</code>"))
        #expect(author.contains(#"<h2 id="books">books (2 Book)</h2>"#))
        let bookLinks = author.components(separatedBy: #"<li><a href="/object/Book/"#).count - 1
        #expect(bookLinks == 2)
        let uri = try #require(author.range(of: "x-coredata://")).lowerBound
        let whole = String(author[uri...].prefix { $0 != "<" })
        #expect(browser.get("/object/" + whole).text.contains(#"<h2 id="books">books (2 Book)</h2>"#))
        #expect(browser.get("/object/x-coredata://OTHER-STORE/Author/p2").status == 404)
        let book = browser.get("/object/Book/p3").text
        #expect(book.contains(#"<td>author</td><td><a href="/object/Author/p2">Author/p2</a></td>"#))
    }

    @Test func historyListsTransactionsNewestFirstWithTheirChanges() throws {
        let browser = try StoreBrowser(
            storeURL: BrowserFixture.store(authors: 3, history: true), model: nil, token: BrowserFixture.token)
        let page = browser.get("/history")
        #expect(page.status == 200)
        let text = page.text
        let editor = try #require(text.range(of: "<td>editor</td>"))
        let importer = try #require(text.range(of: "<td>importer</td>"))
        #expect(editor.lowerBound < importer.lowerBound)
        #expect(text.contains(#"<li>update <a href="/object/Author/p2">Author/p2</a>: name</li>"#))
        #expect(text.contains(#"<li>insert <a href="/object/Book/p1">Book/p1</a></li>"#))
        let first = browser.get("/history", ["to": "1"]).text
        #expect(first.contains("<td>importer</td>") && !first.contains("<td>editor</td>"))
        #expect(browser.get("/history", ["from": "x"]).status == 400)
        // A negative bound is no transaction (the lowest would overflow the page's arithmetic).
        #expect(browser.get("/history", ["to": "-9223372036854775808"]).status == 400)
        let object = browser.get("/object/Author/p2").text
        #expect(object.contains(#"<h2 id="history">History</h2>"#))
        #expect(object.contains("<td>editor</td>") && object.contains("<td>importer</td>"))
        let none = try BrowserFixture.browser().get("/history").text
        #expect(none.contains("keeps no persistent history"))
    }

    /// A long history shows its newest hundred, counts the range, and links to the older ones.
    @Test func longHistoriesArePaged() throws {
        let store = try BrowserFixture.store(authors: 1, history: true)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BrowserFixture.model())
        let added = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: store,
            options: [NSPersistentHistoryTrackingKey: true as NSNumber])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            context.transactionAuthor = "loop"
            for index in 0..<120 {
                NSEntityDescription.insertNewObject(forEntityName: "Book", into: context).setValue(
                    "Loop \(index)", forKey: "title")
                try context.save()
            }
        }
        try coordinator.remove(added)
        let browser = try StoreBrowser(storeURL: store, model: nil, token: BrowserFixture.token)
        let page = browser.get("/history").text
        #expect(page.contains("121 transactions in range"))
        #expect(page.components(separatedBy: "<td>loop</td>").count - 1 == 100)
        #expect(page.contains(#"<tr><td>121</td>"#))
        #expect(page.contains(#"href="/history?to=21">older</a>"#))
        let older = browser.get("/history", ["to": "21"]).text
        #expect(older.contains("21 transactions in range"))
        #expect(older.contains("<td>importer</td>"))
        #expect(!older.contains("older</a>"))
    }

    // MARK: Tables

    /// The objects a table page lists, by their paths (`Author/p3`), and the query of its
    /// "Next page" link.
    static func rows(of page: BrowserResponse) -> (rows: [String], next: [String: String]?) {
        let text = page.text
        let rows = text.components(separatedBy: "<tr><td><a href=\"/object/").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
        guard let range = text.range(of: "\">Next page"),
            let start = text[..<range.lowerBound].range(of: "<a href=\"", options: .backwards)
        else { return (rows, nil) }
        let href = text[start.upperBound..<range.lowerBound].replacingOccurrences(of: "&amp;", with: "&")
        let items = URLComponents(string: href)?.queryItems ?? []
        return (rows, Dictionary(items.map { ($0.name, $0.value ?? "") }) { $1 })
    }

    /// Every page of a table, following "Next page".
    static func allRows(_ browser: StoreBrowser, _ path: String, _ query: [String: String]) -> [String] {
        var rows: [String] = []
        var next: [String: String]? = query
        while let query = next {
            let page = browser.get(path, query)
            #expect(page.status == 200, "\(page.text)")
            let read = Self.rows(of: page)
            #expect(read.rows.count <= 100)
            rows += read.rows
            next = read.next
            if rows.count > 10_000 { break }
        }
        return rows
    }

    @Test func pagesFollowOneAnotherWithoutGapsOrRepeats() throws {
        let browser = try BrowserFixture.browser(authors: 250)
        let first = Self.rows(of: browser.get("/entity/Author"))
        #expect(first.rows.count == 100)
        #expect(first.next?["after"] == "100")
        #expect(
            Self.rows(of: browser.get("/entity/Author", ["after": "240"])).rows == (241...250).map { "Author/p\($0)" })
        #expect(browser.get("/entity/Author", ["after": "x"]).status == 400)
        // Filtered, pages are windows.
        #expect(Self.rows(of: browser.get("/entity/Author", ["predicate": "TRUEPREDICATE"])).next?["page"] == "2")
        let all = Self.allRows(browser, "/entity/Author", [:])
        #expect(all == (1...250).map { "Author/p\($0)" })
        #expect(browser.get("/entity/Author", ["page": "0"]).status == 400)
        #expect(browser.get("/entity/Author", ["page": "9223372036854775807"]).status == 400)
        #expect(Self.rows(of: browser.get("/entity/Author", ["page": "9"])).rows.isEmpty)
    }

    /// Sorted by a column with ties and nils, either way, the pages together are the
    /// objects in that order (ties by primary key, nil first ascending and last descending).
    @Test func sortedPagesKeepTheOrderAcrossTiesAndNils() throws {
        let browser = try BrowserFixture.browser(authors: 250)
        func rank(_ index: Int) -> Int? { (index - 1) % 3 == 0 ? nil : (index - 1) % 7 }
        for ascending in [true, false] {
            let expected = (1...250).sorted { a, b in
                switch (rank(a), rank(b)) {
                case (nil, nil): return a < b
                case (nil, _): return ascending
                case (_, nil): return !ascending
                case let (x?, y?): return x == y ? a < b : (ascending ? x < y : x > y)
                }
            }.map { "Author/p\($0)" }
            let rows = Self.allRows(browser, "/entity/Author", ["sort": ascending ? "rank" : "-rank"])
            #expect(rows == expected, "ascending \(ascending)")
        }
    }

    @Test func aPredicateFiltersAndAMalformedOneIs400WithThePosition() throws {
        let browser = try BrowserFixture.browser(authors: 250)
        let rows = Self.allRows(browser, "/entity/Book", ["predicate": "price < 10 AND title ENDSWITH '-1'"])
        #expect(rows.count == 10)
        let bad = browser.get("/entity/Book", ["predicate": "price < < 10"])
        #expect(bad.status == 400)
        #expect(bad.text.contains("The predicate does not parse"))
        #expect(bad.text.contains("position"))
        #expect(browser.get("/entity/Book", ["sort": "nothing"]).status == 400)
        #expect(browser.get("/entity/Book", ["predicate": "nothing == 1"]).status == 400)
        #expect(browser.get("/entity/Book").status == 200)
    }

    @Test func exportsHoldTheWholeQueryAsCSVAndJSON() throws {
        let browser = try BrowserFixture.browser(authors: 150)
        let csv = browser.get("/export/Author.csv", ["predicate": "rank == 2", "sort": "-born"])
        #expect(csv.status == 200)
        #expect(csv.header("Content-Type") == "text/csv; charset=utf-8")
        // Streamed: nothing is held before the server sends it.
        #expect(csv.body.isEmpty && csv.stream != nil)
        let lines = String(decoding: try csv.collected(), as: UTF8.self).split(separator: "\n")
        #expect(lines.first == "objectID,entity,books,born,name,photo,rank")
        let expected = (1...150).filter { ($0 - 1) % 3 != 0 && ($0 - 1) % 7 == 2 }.reversed().map { "p\($0)," }
        #expect(
            lines.dropFirst().map { String($0.split(separator: "/", maxSplits: 3)[3].prefix { $0 != "," }) + "," }
                == expected)
        // A predicate that parses but that the store cannot run is a 400 before anything is sent.
        let unknown = browser.get("/export/Book.csv", ["predicate": "nosuchkey == 1"])
        #expect(unknown.status == 400 && unknown.stream == nil)
        let json = browser.get("/export/Book.json", ["predicate": "price > 148"])
        let objects = try #require(try JSONSerialization.jsonObject(with: json.collected()) as? [[String: Any]])
        #expect(objects.count == 4)
        #expect(objects.allSatisfy { ($0["price"] as? Double ?? 0) > 148 })
    }

    // MARK: Escaping

    /// What the store holds is shown as text: markup, quotes and control characters never
    /// reach a page as HTML.
    @Test func storeTextIsEscapedEverywhere() throws {
        let browser = try BrowserFixture.browser(authors: 2)
        for page in [
            browser.get("/entity/Author"), browser.get("/object/Author/p1"),
            browser.get("/entity/Author", ["predicate": "name == '<b>'"]),
            browser.get("/entity/Author", ["predicate": "name == == '<script>'"]),
        ] {
            #expect(!page.text.contains("<script>"), "\(page.text)")
            #expect(!page.text.contains("\u{1}"))
            #expect(page.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        }
        let table = browser.get("/entity/Author").text
        #expect(table.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;quoted&quot; &amp; \u{FFFD}bell"))
        #expect(
            browser.get("/entity/Author", ["predicate": "name == '<b>'"]).text.contains(
                "value=\"name == &#39;&lt;b&gt;&#39;\""))
    }

    @Test func valuesShowAsPeopleReadThem() throws {
        let browser = try BrowserFixture.browser(authors: 2)
        let table = browser.get("/entity/Author").text
        #expect(table.contains("<code>9 bytes: 89 50 4e 47 0d 0a 1a 0a 00</code>"))
        #expect(
            table.contains("<img alt=\"image\" style=\"max-height:64px\" src=\"data:image/png;base64,iVBORw0KGgoA\">"))
        // The column chooser.
        let chosen = browser.get("/entity/Author", ["columns": "name,rank"]).text
        #expect(
            chosen.contains(
                #"<th>Object</th><th><a href="/entity/Author?columns=name%2Crank&amp;sort=name">name</a></th><th><a href="/entity/Author?columns=name%2Crank&amp;sort=rank">rank</a></th></tr>"#
            ))
        #expect(!chosen.contains(">born</a></th>"))
        #expect(browser.get("/entity/Author", ["columns": "name,nothing"]).status == 400)
        #expect(browser.get("/entity/Author", ["columns": "rank,name"]).text.contains(">rank</a></th><th><a href="))
        #expect(browser.get("/entity/Author", ["columns": ""]).text.contains(">born</a></th>"))
        #expect(table.contains(#"<a href="/object/Author/p1#books">2 Book</a>"#))
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss zzz"
        formatter.timeZone = .current
        #expect(table.contains(formatter.string(from: Date(timeIntervalSince1970: 1_700_000_000))))
    }
}
