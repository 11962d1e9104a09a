import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSFetchedPropertyDescription`: a property whose value is the result of a fetch made for
/// the object that reads it.
final class NSFetchedPropertyDescriptionTests: XCTestCase {
    /// The shared model with Author gaining `longBooks`: its books of more than 300 pages, by title.
    private func longBooksContext() throws -> NSManagedObjectContext {
        let model = ConformanceModel.make()
        let author = try XCTUnwrap(model.entitiesByName["Author"])
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        fetch.entity = model.entitiesByName["Book"]
        fetch.predicate = NSPredicate(format: "author == $FETCH_SOURCE AND pages > 300")
        fetch.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let longBooks = NSFetchedPropertyDescription()
        longBooks.name = "longBooks"
        longBooks.fetchRequest = fetch
        author.properties.append(longBooks)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = try ConformanceModel.coordinator(model: model)
        try ConformanceModel.shelve(
            [("Austen", ["Emma", "Persuasion", "Mansfield Park"]), ("Eliot", ["Middlemarch"])], in: context)
        let pages = ["Emma": 474, "Persuasion": 249, "Mansfield Park": 507, "Middlemarch": 880]
        for book in try context.fetch(NSFetchRequest<Book>(entityName: "Book")) {
            book.pages = Int32(pages[book.title ?? ""] ?? 0)
        }
        try context.save()
        return context
    }

    private func author(_ name: String, in context: NSManagedObjectContext) throws -> Author {
        let fetch = Author.fetchRequest()
        fetch.predicate = NSPredicate(format: "name == %@", name)
        return try XCTUnwrap(try context.fetch(fetch).first)
    }

    private func titles(_ value: Any?) -> [String] {
        if let array = value as? [Any] { return array.compactMap { ($0 as? Book)?.title } }
        return (value as? NSArray)?.compactMap { ($0 as? Book)?.title } ?? []
    }

    func testANewDescriptionHasNoRequest() {
        let property = NSFetchedPropertyDescription()
        XCTAssertNil(property.fetchRequest)
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        property.fetchRequest = fetch
        XCTAssertEqual(property.fetchRequest?.entityName, "Book")
    }

    func testReadingThePropertyFetchesForTheObject() throws {
        let context = try longBooksContext()
        let austen = try author("Austen", in: context)
        XCTAssertEqual(titles(austen.value(forKey: "longBooks")), ["Emma", "Mansfield Park"])
        let eliot = try author("Eliot", in: context)
        XCTAssertEqual(titles(eliot.value(forKey: "longBooks")), ["Middlemarch"])
    }

    func testTheFetchedObjectsBelongToTheReadersContext() throws {
        let context = try longBooksContext()
        let austen = try author("Austen", in: context)
        let books = (austen.value(forKey: "longBooks") as? [Any])?.compactMap { $0 as? Book } ?? []
        XCTAssertEqual(books.count, 2)
        XCTAssertTrue(books.allSatisfy { $0.managedObjectContext === context && $0.author === austen })
    }

    func testRefreshingTheObjectFetchesAgain() throws {
        let context = try longBooksContext()
        let austen = try author("Austen", in: context)
        XCTAssertEqual(titles(austen.value(forKey: "longBooks")), ["Emma", "Mansfield Park"])
        let persuasion = try XCTUnwrap((austen.books as? Set<Book>)?.first { $0.title == "Persuasion" })
        persuasion.pages = 400
        try context.save()

        context.refresh(austen, mergeChanges: false)
        XCTAssertEqual(titles(austen.value(forKey: "longBooks")), ["Emma", "Mansfield Park", "Persuasion"])
    }
}
