import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSFetchRequest`, including the untyped `NSFetchRequest<NSFetchRequestResult>` that
/// Xcode-era code writes and casts.
final class NSFetchRequestTests: XCTestCase {
    private var context: NSManagedObjectContext!

    override func setUpWithError() throws {
        context = try ConformanceModel.context()
        try ConformanceModel.shelve(
            [("Le Guin", ["Earthsea", "The Dispossessed"]), ("Herbert", ["Dune"])], in: context)
    }

    func testUntypedRequestResultsCastToTheEntityClass() throws {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Author")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let authors = try context.fetch(request) as! [Author]
        XCTAssertEqual(authors.map(\.name), ["Herbert", "Le Guin"])
        XCTAssertNil(
            try context.fetch(request) as? [Book], "a cast to another class fails as in Swift on Apple platforms")
        XCTAssertEqual(try context.count(for: request), 2)
    }

    func testManagedObjectFetchRequestIsUntyped() throws {
        let request: NSFetchRequest<NSFetchRequestResult> = Book.fetchRequest()
        XCTAssertEqual(request.entityName, "Book")
        request.predicate = NSPredicate(format: "author.name == %@", "Le Guin")
        let titles = (try context.fetch(request) as? [Book])?.compactMap(\.title).sorted()
        XCTAssertEqual(titles, ["Earthsea", "The Dispossessed"])
    }

    func testCastsBetweenRequestTypesSucceed() throws {
        // Without Xcode's typed method (Book) and with it (Author).
        let books = Book.fetchRequest() as! NSFetchRequest<Book>
        XCTAssertEqual(try context.fetch(books).count, 3)
        let authors = Author.fetchRequest() as! NSFetchRequest<Author>
        XCTAssertEqual(try context.fetch(authors).count, 2)
        let typed: NSFetchRequest<Author> = Author.fetchRequest()
        XCTAssertEqual(typed.entityName, "Author")
    }

    func testDictionaryObjectIDAndCountResults() throws {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["title"]
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let rows = try context.fetch(request) as? [NSDictionary]
        XCTAssertEqual(rows?.compactMap { $0["title"] as? String }, ["Dune", "Earthsea", "The Dispossessed"])

        request.resultType = .managedObjectIDResultType
        let ids = try context.fetch(request) as! [NSManagedObjectID]
        XCTAssertEqual(ids.count, 3)
        XCTAssertEqual(Set(ids.map { $0.entity.name }), ["Book"])

        request.resultType = .countResultType
        XCTAssertEqual((try context.fetch(request) as? [NSNumber])?.first?.intValue, 3)
    }

    func testDictionaryNumbersAndAggregatesAreNSNumbers() throws {
        // Core Data hands numeric attributes and computed values back as NSNumber.
        let books = try context.fetch(NSFetchRequest<Book>(entityName: "Book"))
        for (index, book) in books.enumerated() { book.pages = Int32(100 * (index + 1)) }
        try context.save()
        let request = NSFetchRequest<NSDictionary>(entityName: "Book")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["pages"]
        let rows = try context.fetch(request)
        XCTAssertEqual(rows.count, 3)
        for row in rows {
            XCTAssertTrue(row["pages"] is NSNumber)
            XCTAssertNotNil(row["pages"] as? Int)
        }
        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "pages")])
        total.expressionResultType = .integer64AttributeType
        let count = NSExpressionDescription()
        count.name = "count"
        count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "title")])
        count.expressionResultType = .integer64AttributeType
        request.propertiesToFetch = [total, count]
        let aggregate = try XCTUnwrap(try context.fetch(request).first)
        XCTAssertTrue(aggregate["total"] is NSNumber)
        XCTAssertEqual(aggregate["total"] as? Int, 600)
        XCTAssertEqual(aggregate["count"] as? Int, 3)
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 3, "count(for:) stays an Int")
    }

    func testShouldRefreshRefetchedObjectsUpdatesFetchedObjectsFromTheStore() throws {
        // By default a refetch leaves the values of objects already in the context; with
        // shouldRefreshRefetchedObjects it updates them from the store.
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.predicate = NSPredicate(format: "title == 'Dune'")
        let dune = try XCTUnwrap(try context.fetch(request).first)
        XCTAssertEqual(dune.title, "Dune")
        let other = try ConformanceModel.context(sharing: context)
        let copy = try XCTUnwrap(try other.fetch(request).first)
        copy.pages = 412
        try other.save()

        request.predicate = NSPredicate(format: "author.name == 'Herbert'")
        XCTAssertEqual(try context.fetch(request).first, dune)
        XCTAssertEqual(dune.pages, 0, "a plain refetch keeps the values the context has")
        request.shouldRefreshRefetchedObjects = true
        XCTAssertEqual(try context.fetch(request).first, dune)
        XCTAssertEqual(dune.pages, 412, "the refetch updates the object from the store")
        XCTAssertFalse(dune.hasChanges)
    }

    func testTypedDictionaryRequest() throws {
        let request = NSFetchRequest<NSDictionary>(entityName: "Author")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name"]
        XCTAssertEqual(Set(try context.fetch(request).compactMap { $0["name"] as? String }), ["Herbert", "Le Guin"])
    }

    func testBatchDeleteTakesAnUntypedRequest() throws {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        request.predicate = NSPredicate(format: "title BEGINSWITH 'The'")
        let delete = NSBatchDeleteRequest(fetchRequest: request)
        delete.resultType = .resultTypeCount
        let result = try context.execute(delete) as? NSBatchDeleteResult
        XCTAssertEqual(result?.result as? Int, 1)
        XCTAssertEqual(try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Book")), 2)
    }

    // MARK: NSManagedObject's own keys: self, objectID, entity

    private func library() throws -> (NSManagedObjectContext, Author, Author, Book) {
        let context = try ConformanceModel.context()
        let (austen, bronte) = (Author(context: context), Author(context: context))
        austen.name = "Austen"
        bronte.name = "Brontë"
        let book = Book(context: context)
        book.title = "Emma"
        book.author = austen
        try context.save()
        return (context, austen, bronte, book)
    }

    /// Runs `format` as a fetch and in memory; both must agree.
    private func names(
        _ context: NSManagedObjectContext, _ format: String, _ arguments: [Any], file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> [String] {
        let request = Author.fetchRequest()
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let fetched = try context.fetch(request).compactMap(\.name)
        let all = try context.fetch(Author.fetchRequest())
        let inMemory = all.filter { request.predicate!.evaluate(with: $0) }.compactMap(\.name).sorted()
        XCTAssertEqual(fetched, inMemory, "store and memory agree on \(format)", file: file, line: line)
        return fetched
    }

    func testPredicatesReadSelfObjectIDAndEntity() throws {
        let (context, austen, bronte, book) = try library()
        XCTAssertEqual(try names(context, "self == %@", [austen]), ["Austen"])
        XCTAssertEqual(try names(context, "objectID == %@", [bronte.objectID]), ["Brontë"])
        XCTAssertEqual(try names(context, "NOT (self IN %@)", [[austen]]), ["Brontë"])
        XCTAssertEqual(try names(context, "entity == %@", [austen.entity]), ["Austen", "Brontë"])
        XCTAssertEqual(try names(context, "entity != %@", [book.entity]), ["Austen", "Brontë"])
        XCTAssertEqual(try names(context, "entity.name == %@", ["Author"]), ["Austen", "Brontë"])
        XCTAssertEqual(try names(context, "ANY books.entity.name == 'Book'", []), ["Austen"])

        let books = Book.fetchRequest() as NSFetchRequest<Book>
        books.predicate = NSPredicate(
            format: "author.objectID == %@ AND author.entity == %@", austen.objectID, austen.entity)
        XCTAssertEqual(try context.fetch(books), [book])
    }

    func testPropertiesToFetchReadSelfObjectIDAndEntity() throws {
        let (context, austen, _, _) = try library()
        let request = NSFetchRequest<NSDictionary>(entityName: "Author")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", "objectID", "self", "entity"]
        request.predicate = NSPredicate(format: "name == 'Austen'")
        let row = try XCTUnwrap(try context.fetch(request).first)
        XCTAssertEqual(row["name"] as? String, "Austen")
        XCTAssertEqual(row["objectID"] as? NSManagedObjectID, austen.objectID)
        XCTAssertEqual(row["self"] as? NSManagedObjectID, austen.objectID)
        XCTAssertTrue(row["entity"] as? NSEntityDescription === austen.entity)
        // The same keys by key-value coding on the object.
        XCTAssertEqual(austen.value(forKey: "objectID") as? NSManagedObjectID, austen.objectID)
        XCTAssertEqual(austen.value(forKeyPath: "entity.name") as? String, "Author")
    }
}
