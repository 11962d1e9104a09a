import Foundation
import GRDB
import OpenCoreData
import OpenCoreDataTestSupport
import StoreBrowser
import Testing

/// `cdtool serve --allow-edits`: objects edited through a form, saved through a managed
/// object context. Writes need the access cookie and the form's CSRF token; values that do
/// not parse or fail validation come back with reasons; a save by someone else since the
/// form was shown is a conflict, never overwritten.
@Suite struct StoreEditTests {
    @Test func aReadOnlyBrowserHasNoFormsAndRefusesWrites() throws {
        let browser = try BrowserFixture.browser(authors: 2)
        #expect(browser.get("/object/Author/p1/edit").status == 403)
        #expect(!browser.get("/object/Author/p1").text.contains("/edit"))
        let post = browser.post("/object/Author/p1/edit", ["value:name": "x"])
        #expect(post.status == 405)
        #expect(try names(in: browser.storeURL) == ["Author 1", BrowserFixture.hostileName].sorted())
    }

    @Test func writesNeedTheCookieAndTheFormsCSRFToken() throws {
        let browser = try BrowserFixture.browser(authors: 2, allowsEdits: true)
        let page = browser.get("/object/Author/p2")
        #expect(page.text.contains(#"<a href="/object/Author/p2/edit">Edit this object</a>"#))
        var form = try Self.form(of: browser.get("/object/Author/p2/edit"))
        #expect(form["csrf"]?.count == 32)
        #expect(form["version"] == "1")
        form["value:name"] = "Changed"

        var missing = form
        missing["csrf"] = nil
        #expect(browser.post("/object/Author/p2/edit", missing).status == 403)
        var wrong = form
        wrong["csrf"] = String(repeating: "0", count: 32)
        #expect(browser.post("/object/Author/p2/edit", wrong).status == 403)
        // Without the access token (cookie or address), the CSRF token alone is refused.
        let anonymous = browser.respond(
            to: BrowserRequest(method: "POST", path: "/object/Author/p2/edit", form: form))
        #expect(anonymous.status == 401)
        #expect(browser.post("/entity/Author", form).status == 405)
        #expect(try names(in: browser.storeURL) == ["Author 1", BrowserFixture.hostileName].sorted())

        let saved = browser.post("/object/Author/p2/edit", form)
        #expect(saved.status == 303)
        #expect(saved.header("Location") == "/object/Author/p2?saved=1")
        #expect(try names(in: browser.storeURL) == ["Changed", BrowserFixture.hostileName].sorted())
    }

    @Test func anEditSavesAttributesAndRelationshipsAndTheReadPagesShowIt() throws {
        let browser = try BrowserFixture.browser(authors: 3, history: true, allowsEdits: true)
        var form = try Self.form(of: browser.get("/object/Author/p2/edit"))
        #expect(form["value:books"]?.split(separator: "\n").sorted() == ["Book/p3", "Book/p4"])
        form["value:name"] = "Ada\r\nLovelace"
        form["value:rank"] = "42"
        form["value:born"] = "1815-12-10T12:00:00Z"
        // Book/p3 leaves this author, Book/p5 (the third author's) comes.
        form["value:books"] = "Book/p4\r\nBook/p5"
        #expect(browser.post("/object/Author/p2/edit", form).status == 303)

        let page = browser.get("/object/Author/p2", ["saved": "1"])
        #expect(page.text.contains("Saved."))
        #expect(page.text.contains("Ada\nLovelace"))
        #expect(page.text.contains("<td>42</td>"))
        #expect(page.text.contains(#"<a href="/object/Book/p5">Book/p5</a>"#))
        #expect(!page.text.contains(#"<a href="/object/Book/p3">Book/p3</a>"#))
        // The change is in the store's history, by the browser's author, with the changed properties.
        #expect(page.text.contains("cdtool serve"))

        let bookForm = try Self.form(of: browser.get("/object/Book/p3/edit"))
        #expect(bookForm["value:author"] == "" && bookForm["nil:author"] == "on")
        var moved = bookForm
        moved["nil:author"] = nil
        moved["value:author"] = "Author/p3"
        #expect(browser.post("/object/Book/p3/edit", moved).status == 303)

        try withContext(browser.storeURL, history: true) { context in
            let author = try context.existingObject(with: id(context, "Author/p2"))
            #expect(author.value(forKey: "name") as? String == "Ada\nLovelace")
            #expect(author.value(forKey: "rank") as? Int32 == 42)
            #expect(author.value(forKey: "born") as? Date == Date(timeIntervalSince1970: -4_861_684_800))
            let titles = (author.value(forKey: "books") as? Set<NSManagedObject>)?.compactMap {
                $0.value(forKey: "title") as? String
            }
            #expect(titles?.sorted() == ["Book 1-1", "Book 2-0"])
            let book = try context.existingObject(with: id(context, "Book/p3"))
            let third = try id(context, "Author/p3")
            #expect((book.value(forKey: "author") as? NSManagedObject)?.objectID == third)
        }
    }

    @Test func submittingTheFormAsShownChangesNothing() throws {
        let browser = try BrowserFixture.browser(authors: 2, allowsEdits: true)
        // The first author's name holds markup, quotes and a control character; its birth date
        // has more precision than the form shows: neither is rewritten by a form sent back as it came.
        let page = browser.get("/object/Author/p1/edit")
        let form = try Self.form(of: page)
        // The name's control character would come back as U+FFFD: shown, not offered.
        #expect(form["value:name"] == nil && form["value:rank"] == "")
        #expect(page.text.contains("not editable here"))
        let before = try version(of: "ZAUTHOR", key: 1, in: browser.storeURL)
        let response = browser.post("/object/Author/p1/edit", form)
        #expect(response.status == 303)
        #expect(response.header("Location") == "/object/Author/p1")
        #expect(try version(of: "ZAUTHOR", key: 1, in: browser.storeURL) == before)
        // Nor does a form made by hand change it.
        var crafted = form
        crafted["value:name"] = "plain"
        #expect(browser.post("/object/Author/p1/edit", crafted).status == 422)
        #expect(try names(in: browser.storeURL).contains(BrowserFixture.hostileName))
    }

    /// Every type's text goes back as it came: decimals, floats, UUIDs, URIs, Booleans,
    /// a nil Boolean (the empty choice), a set of members listed in another order.
    @Test func eachTypesTextComesBackUnchanged() throws {
        let browser = try BrowserFixture.browser(authors: 2, allowsEdits: true)
        for path in ["/object/Book/p1/edit", "/object/Book/p2/edit", "/object/Author/p2/edit"] {
            let form = try Self.form(of: browser.get(path))
            let response = browser.post(path, form)
            #expect(response.status == 303, "\(path)")
            #expect(response.header("Location")?.hasSuffix("saved=1") == false, "\(path): rewritten")
        }
        let book = try Self.form(of: browser.get("/object/Book/p1/edit"))
        #expect(book["value:cost"] == "12.345" && book["value:weight"] == "0.1" && book["value:inPrint"] == "true")
        #expect(try Self.form(of: browser.get("/object/Book/p2/edit"))["value:inPrint"] == "")
        var reordered = try Self.form(of: browser.get("/object/Author/p2/edit"))
        reordered["value:books"] = "Book/p4\nBook/p3"
        #expect(browser.post("/object/Author/p2/edit", reordered).header("Location") == "/object/Author/p2")
        #expect(try version(of: "ZAUTHOR", key: 2, in: browser.storeURL) == 1)
        #expect(try version(of: "ZBOOK", key: 1, in: browser.storeURL) == 1)
    }

    @Test func valuesThatDoNotParseOrValidateComeBackWithReasons() throws {
        let browser = try BrowserFixture.browser(authors: 2, allowsEdits: true)
        let form = try Self.form(of: browser.get("/object/Author/p2/edit"))
        for (field, text, reason) in [
            ("rank", "many", "&#39;many&#39; is not a whole number from -2147483648 to 2147483647"),
            ("rank", "99999999999", "is not a whole number"),
            ("born", "yesterday", "is not an ISO 8601 date"),
            ("books", "Book/p999", "there is no object Book/p999"),
            ("books", "Author/p1", "Author/p1 is not a Book"),
            // Typed markup comes back as text.
            ("rank", "<b>1</b>", "&#39;&lt;b&gt;1&lt;/b&gt;&#39; is not a whole number"),
            // The model's own validation, through the context's save.
            ("rank", "500", "a rank is at most 100"),
        ] {
            var bad = form
            bad["value:\(field)"] = text
            bad["value:name"] = "Not saved"
            let response = browser.post("/object/Author/p2/edit", bad)
            #expect(response.status == 422, "\(field) = \(text)")
            #expect(response.text.contains(reason), "\(field) = \(text)")
            #expect(response.text.contains("Nothing was saved"))
            // The form comes back with what was typed, to correct.
            #expect(try Self.form(of: response)["value:\(field)"] == text)
        }
        #expect(try names(in: browser.storeURL) == ["Author 1", BrowserFixture.hostileName].sorted())
        #expect(try version(of: "ZAUTHOR", key: 2, in: browser.storeURL) == 1)
    }

    @Test func numbersAreReadWholeAndWithinTheirType() throws {
        let browser = try BrowserFixture.browser(authors: 1, allowsEdits: true)
        let form = try Self.form(of: browser.get("/object/Book/p1/edit"))
        for (field, text) in [
            ("cost", "1,5"), ("cost", "12abc"), ("cost", "1.2.3"), ("weight", "1e39"), ("price", "1e400"),
        ] {
            var bad = form
            bad["value:\(field)"] = text
            #expect(browser.post("/object/Book/p1/edit", bad).status == 422, "\(field) = \(text)")
        }
        var good = form
        good["value:cost"] = "-0.5e2"
        good["value:price"] = "-inf"
        #expect(browser.post("/object/Book/p1/edit", good).status == 303)
        try withContext(browser.storeURL) { context in
            let book = try context.existingObject(with: id(context, "Book/p1"))
            #expect((book.value(forKey: "cost") as? NSDecimalNumber)?.decimalValue == Decimal(-50))
            #expect(book.value(forKey: "price") as? Double == -.infinity)
        }
    }

    @Test func anObjectDeletedSinceTheFormWasShownIsAConflict() throws {
        let browser = try BrowserFixture.browser(authors: 2, allowsEdits: true)
        var form = try Self.form(of: browser.get("/object/Book/p3/edit"))
        form["value:title"] = "Too late"
        try withContext(browser.storeURL) { context in
            context.delete(try context.existingObject(with: id(context, "Book/p3")))
            try context.save()
        }
        let response = browser.post("/object/Book/p3/edit", form)
        #expect(response.status == 409)
        #expect(response.text.contains("was deleted since the form was shown"))
    }

    @Test func aSaveByAnotherProcessSinceTheFormWasShownIsAConflict() throws {
        let browser = try BrowserFixture.browser(authors: 2, allowsEdits: true)
        var form = try Self.form(of: browser.get("/object/Author/p2/edit"))
        form["value:rank"] = "9"
        // Someone else renames the author meanwhile.
        try withContext(browser.storeURL) { context in
            try context.existingObject(with: id(context, "Author/p2")).setValue("Theirs", forKey: "name")
            try context.save()
        }
        let response = browser.post("/object/Author/p2/edit", form)
        #expect(response.status == 409)
        #expect(response.text.contains("another process saved Author/p2 since this form was shown"))
        // What the reader tried to save is shown beside what the store holds now.
        #expect(response.text.contains("<td>rank</td><td>9</td><td>1</td>"))
        #expect(try names(in: browser.storeURL) == ["Theirs", BrowserFixture.hostileName].sorted())
        // The form shown again carries the new version: sent now, it saves.
        var again = try Self.form(of: response)
        #expect(again["version"] == "2" && again["value:name"] == "Theirs")
        again["value:rank"] = "9"
        #expect(browser.post("/object/Author/p2/edit", again).status == 303)
        try withContext(browser.storeURL) { context in
            let author = try context.existingObject(with: id(context, "Author/p2"))
            #expect(author.value(forKey: "name") as? String == "Theirs")
            #expect(author.value(forKey: "rank") as? Int32 == 9)
        }
    }

    /// The editor saved an object, another process saved it after, and the reader edits it
    /// again from a fresh form: the editor reads the row as the store holds it now, not as its
    /// own last save left it, so the save goes through (no conflict from a stale snapshot), and
    /// the other process's change is kept.
    @Test func anEditAfterAnotherProcessSavedTheObjectAgainSaves() throws {
        let browser = try BrowserFixture.browser(authors: 2, allowsEdits: true)
        var first = try Self.form(of: browser.get("/object/Author/p2/edit"))
        first["value:rank"] = "5"
        #expect(browser.post("/object/Author/p2/edit", first).status == 303)
        try withContext(browser.storeURL) { context in
            try context.existingObject(with: id(context, "Author/p2")).setValue("Theirs", forKey: "name")
            try context.save()
        }
        var again = try Self.form(of: browser.get("/object/Author/p2/edit"))
        #expect(again["value:name"] == "Theirs" && again["version"] == "3")
        again["value:rank"] = "6"
        let saved = browser.post("/object/Author/p2/edit", again)
        #expect(saved.status == 303, "\(saved.text)")
        try withContext(browser.storeURL) { context in
            let author = try context.existingObject(with: id(context, "Author/p2"))
            #expect(author.value(forKey: "name") as? String == "Theirs")
            #expect(author.value(forKey: "rank") as? Int32 == 6)
        }
    }

    /// A store kept in another journal mode than WAL keeps it when the browser edits it.
    @Test func anEditKeepsTheStoresJournalMode() throws {
        let folder = testFilesFolder.appendingPathComponent("StoreBrowser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("Library.sqlite")
        try BrowserFixture.fill(
            url, type: NSSQLiteStoreType,
            options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"] as NSDictionary], authors: 2, history: false)
        func journalMode() throws -> String? {
            try DatabaseQueue(path: url.path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        }
        #expect(try journalMode() == "delete")
        let browser = try StoreBrowser(storeURL: url, model: nil, token: BrowserFixture.token, allowsEdits: true)
        var form = try Self.form(of: browser.get("/object/Author/p2/edit"))
        form["value:name"] = "Kept in DELETE mode"
        #expect(browser.post("/object/Author/p2/edit", form).status == 303)
        browser.close()
        #expect(try journalMode() == "delete")
        #expect(try names(in: url).contains("Kept in DELETE mode"))
    }

    @Test func editsNeedTheStoresOwnModel() throws {
        let url = try BrowserFixture.store(authors: 1)
        let database = try DatabaseQueue(path: url.path)
        try database.write { try $0.execute(sql: "DROP TABLE Z_MODELCACHE") }
        try database.close()
        // Read-only, a model inferred from the tables will do; to write, it will not.
        _ = try StoreBrowser(storeURL: url, model: nil, token: BrowserFixture.token)
        #expect {
            try StoreBrowser(storeURL: url, model: nil, token: BrowserFixture.token, allowsEdits: true)
        } throws: { "\($0)".contains("--allow-edits needs the store's own model") }
        let given = try StoreBrowser(
            storeURL: url, model: BrowserFixture.model(), token: BrowserFixture.token, allowsEdits: true)
        #expect(given.get("/object/Author/p1/edit").status == 200)

        // A model that does not fit is refused for writing, and the store is left as it was
        // (never migrated to it).
        let other = BrowserFixture.model()
        other.entitiesByName["Book"]?.properties.removeAll { $0.name == "weight" }
        let before = try Data(contentsOf: url)
        #expect {
            try StoreBrowser(storeURL: url, model: other, token: BrowserFixture.token, allowsEdits: true)
        } throws: { "\($0)".contains("--allow-edits needs a model that fits the store") }
        #expect(try Data(contentsOf: url) == before)
    }

    // MARK: Helpers

    /// The fields a browser submits for the page's form: hidden and text inputs, text areas
    /// (the line break after the tag dropped), the selected option, the checked boxes (`on`).
    static func form(of response: BrowserResponse) throws -> [String: String] {
        let html = response.text
        var fields: [String: String] = [:]
        func matches(_ pattern: String) throws -> [[String]] {
            let expression = try NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
            return expression.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { match in
                (1..<match.numberOfRanges).map { String(html[Range(match.range(at: $0), in: html)!]) }
            }
        }
        for found in try matches(#"<input (?:type="hidden" )?name="([^"]*)"[^>]*? value="([^"]*)">"#) {
            fields[unescape(found[0])] = unescape(found[1])
        }
        for found in try matches(#"<textarea name="([^"]*)"[^>]*>\n(.*?)</textarea>"#) {
            fields[unescape(found[0])] = unescape(found[1])
        }
        for found in try matches(#"<select name="([^"]*)">.*?<option selected>([^<]*)</option>.*?</select>"#) {
            fields[unescape(found[0])] = unescape(found[1])
        }
        for found in try matches(#"<input type="checkbox" name="([^"]*)" checked>"#) {
            fields[unescape(found[0])] = "on"
        }
        return fields
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The authors' names in the store, sorted.
    func names(in url: URL) throws -> [String] {
        try withContext(url) { context in
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).compactMap {
                $0.value(forKey: "name") as? String
            }.sorted()
        }
    }

    /// A row's `Z_OPT`.
    func version(of table: String, key: Int, in url: URL) throws -> Int? {
        try DatabaseQueue(path: url.path).read {
            try Int.fetchOne($0, sql: "SELECT Z_OPT FROM \(table) WHERE Z_PK = ?", arguments: [key])
        }
    }

    func id(_ context: NSManagedObjectContext, _ path: String) throws -> NSManagedObjectID {
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        let uri = try #require(URL(string: "x-coredata://\(store.identifier ?? "")/\(path)"))
        return try #require(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
    }

    /// `body` with a context of a coordinator of its own on the store, as another process has.
    func withContext<T>(
        _ url: URL, type: String = NSSQLiteStoreType, history: Bool = false,
        _ body: (NSManagedObjectContext) throws -> T
    ) throws -> T {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BrowserFixture.model())
        let store = try coordinator.addPersistentStore(
            ofType: type, configurationName: nil, at: url,
            options: history ? [NSPersistentHistoryTrackingKey: true as NSNumber] : nil)
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { try body(context) }
    }
}
