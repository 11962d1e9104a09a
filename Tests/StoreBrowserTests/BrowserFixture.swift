import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataTestSupport
import StoreBrowser

/// A store made for the browser's tests: `authors` authors (every third without a rank,
/// ranks repeating, so sorting has ties and nils) and two books each; the first author's
/// name and bio hold markup, quotes and control characters.
enum BrowserFixture {
    static let token = "0123456789abcdef0123456789abcdef"
    static let hostileName = "<script>alert('x')</script>\"quoted\" & \u{1}bell"

    static func model() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }
        let author = NSEntityDescription()
        author.name = "Author"
        let book = NSEntityDescription()
        book.name = "Book"
        let books = NSRelationshipDescription()
        books.name = "books"
        books.destinationEntity = book
        books.maxCount = 0
        books.deleteRule = .cascadeDeleteRule
        let writer = NSRelationshipDescription()
        writer.name = "author"
        writer.destinationEntity = author
        writer.maxCount = 1
        books.inverseRelationship = writer
        writer.inverseRelationship = books
        let rank = attribute("rank", .integer32AttributeType)
        rank.setValidationPredicates(
            [NSPredicate(format: "SELF <= 100")], withValidationWarnings: ["a rank is at most 100"])
        author.properties = [
            attribute("name", .stringAttributeType), rank,
            attribute("born", .dateAttributeType), attribute("photo", .binaryDataAttributeType), books,
        ]
        book.properties = [
            attribute("title", .stringAttributeType), attribute("price", .doubleAttributeType), writer,
            attribute("cost", .decimalAttributeType), attribute("weight", .floatAttributeType),
            attribute("isbn", .UUIDAttributeType), attribute("link", .URIAttributeType),
            attribute("inPrint", .booleanAttributeType),
        ]
        let model = NSManagedObjectModel()
        model.entities = [author, book]
        return model
    }

    /// A new store file with `authors` authors, closed again; with `history`, the store
    /// keeps persistent history, the authors come in one transaction by "importer" and a
    /// second one by "editor" renames the second author.
    static func store(authors: Int, history: Bool = false) throws -> URL {
        let folder = testFilesFolder.appendingPathComponent("StoreBrowser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("Library.sqlite")
        try fill(url, type: NSSQLiteStoreType, authors: authors, history: history)
        return url
    }

    /// A new store as ``store(authors:history:)`` makes it, in a new database of the tests'
    /// PostgreSQL server (in `schema` when given); the database's URL.
    static func postgreSQLStore(authors: Int, history: Bool = false, schema: String? = nil) throws -> URL {
        let url = try PostgreSQLTestServer.makeDatabase()
        try fill(
            url, type: NSPostgreSQLStoreType, options: schema.map(postgreSQLOptions) ?? [:], authors: authors,
            history: history)
        return url
    }

    /// The options of a PostgreSQL store in `schema`.
    static func postgreSQLOptions(schema: String) -> [String: NSObject] {
        [NSPostgreSQLSchemaNameOption: schema as NSString]
    }

    /// Writes the fixture's objects to a new store of `type` at `url`, and closes it.
    static func fill(
        _ url: URL, type: String, options: [String: NSObject] = [:], authors: Int, history: Bool
    ) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        var storeOptions: [AnyHashable: Any] = options
        if history { storeOptions[NSPersistentHistoryTrackingKey] = true as NSNumber }
        let store = try coordinator.addPersistentStore(
            ofType: type, configurationName: nil, at: url, options: storeOptions)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            context.transactionAuthor = "importer"
            for index in 0..<authors {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue(index == 0 ? hostileName : "Author \(index)", forKey: "name")
                if index % 3 != 0 { author.setValue(Int32(index % 7), forKey: "rank") }
                // Fractions of a millisecond, which the edit form's dates do not show.
                author.setValue(
                    Date(timeIntervalSince1970: 1_700_000_000.000_25 + Double(index) * 86_400), forKey: "born")
                author.setValue(
                    Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, UInt8(index % 256)]), forKey: "photo")
                for number in 0..<2 {
                    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
                    book.setValue("Book \(index)-\(number)", forKey: "title")
                    book.setValue(Double(index) + 0.5, forKey: "price")
                    book.setValue(author, forKey: "author")
                    if index == 0 && number == 0 {
                        // Values whose text must come back from a form as it went.
                        book.setValue(NSDecimalNumber(string: "12.345"), forKey: "cost")
                        book.setValue(Float(0.1), forKey: "weight")
                        book.setValue(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), forKey: "isbn")
                        book.setValue(URL(string: "https://example.com/books?id=1&x=%20"), forKey: "link")
                        book.setValue(true, forKey: "inPrint")
                    }
                }
            }
            try context.save()
            if history, authors > 1 {
                context.transactionAuthor = "editor"
                let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
                request.predicate = NSPredicate(format: "name == 'Author 1'")
                try context.fetch(request).first?.setValue("Renamed", forKey: "name")
                try context.save()
            }
        }
        try coordinator.remove(store)
    }

    /// A browser on a new store of `authors` authors, with the store's cached model.
    static func browser(authors: Int = 5, history: Bool = false, allowsEdits: Bool = false) throws -> StoreBrowser {
        try StoreBrowser(
            storeURL: store(authors: authors, history: history), model: nil, token: token, allowsEdits: allowsEdits)
    }
}

extension StoreBrowser {
    /// `path` with `query`, as a browser that already has the token's cookie asks for it.
    func get(_ path: String, _ query: [String: String] = [:]) -> BrowserResponse {
        respond(
            to: BrowserRequest(
                path: path, query: query, cookies: ["cdtool_token": BrowserFixture.token]))
    }

    /// `form` posted to `path`, as a browser with the token's cookie sends it.
    func post(_ path: String, _ form: [String: String]) -> BrowserResponse {
        respond(
            to: BrowserRequest(
                method: "POST", path: path, cookies: ["cdtool_token": BrowserFixture.token], form: form))
    }
}
