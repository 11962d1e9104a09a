import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

// Apple's key-value coding reaches any `@objc` member by name: apps section results
// controllers, sort and filter in memory by computed properties. The port writes
// `@KeyValueCoded` where Apple code writes `@objc`; everything else reads the same.

#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
extension Book {
    @objc var titleInitial: String { String((title ?? "#").prefix(1)) }
    @objc var isLong: Bool { pages > 300 }
}
#else
extension Book {
    @KeyValueCoded var titleInitial: String { String((title ?? "#").prefix(1)) }
    @KeyValueCoded var isLong: Bool { pages > 300 }
}
#endif

final class NSManagedObjectKeyValueCodingTests: XCTestCase {
    private func context(with titles: [(String, Int32)]) throws -> NSManagedObjectContext {
        let container = NSPersistentContainer(name: "KeyValueCoding", managedObjectModel: ConformanceModel.make())
        container.persistentStoreDescriptions.first?.url = URL(fileURLWithPath: "/dev/null")
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        let context = container.viewContext
        for (title, pages) in titles {
            let book = Book(context: context)
            book.title = title
            book.pages = pages
        }
        try context.save()
        return context
    }

    /// `value(forKey:)` reads a computed property; a Boolean comes back as `NSNumber`.
    func testValueForKeyReadsAComputedProperty() throws {
        let context = try context(with: [("Middlemarch", 880)])
        let book = try XCTUnwrap(try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        XCTAssertEqual(book.value(forKey: "titleInitial") as? String, "M")
        XCTAssertTrue(book.value(forKey: "isLong") is NSNumber)
        XCTAssertEqual(book.value(forKey: "isLong") as? Bool, true)
    }

    /// `setValuesForKeys(_:)` sets each entry (`NSNull` clears); `dictionaryWithValues(forKeys:)`
    /// reads them back, `NSNull` for nil.
    func testSetValuesForKeysAndDictionaryWithValues() throws {
        let context = try context(with: [("Emma", 474)])
        let book = try XCTUnwrap(try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        book.setValuesForKeys(["title": "Persuasion", "pages": 249 as NSNumber])
        XCTAssertEqual(book.title, "Persuasion")
        XCTAssertEqual(book.pages, 249)
        book.setValuesForKeys(["title": NSNull()])
        XCTAssertNil(book.title)
        let values = book.dictionaryWithValues(forKeys: ["title", "pages"])
        XCTAssertTrue(values["title"] is NSNull)
        XCTAssertEqual(values["pages"] as? Int32, 249)
    }

    /// A results controller sections by a computed property (`sectionNameKeyPath`).
    func testResultsControllerSectionsByAComputedProperty() throws {
        let context = try context(with: [
            ("Emma", 474), ("Middlemarch", 880), ("Mansfield Park", 507), ("Beloved", 324),
        ])
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: context,
            sectionNameKeyPath: "titleInitial", cacheName: nil)
        try controller.performFetch()
        XCTAssertEqual(controller.sections?.map(\.name), ["B", "E", "M"])
        XCTAssertEqual(controller.sections?.map(\.numberOfObjects), [1, 1, 2])
    }

    /// Predicates and sort descriptors evaluated in memory read computed keys.
    func testInMemoryPredicatesAndSortsReadComputedKeys() throws {
        let context = try context(with: [("Emma", 474), ("Middlemarch", 880), ("Beloved", 324), ("Mrs Dalloway", 194)])
        let books = try context.fetch(NSFetchRequest<Book>(entityName: "Book"))
        let long =
            (books as NSArray).filtered(using: NSPredicate(format: "isLong == YES AND titleInitial == 'M'")) as! [Book]
        XCTAssertEqual(long.map(\.title), ["Middlemarch"])
        let sorted =
            (books as NSArray).sortedArray(using: [
                NSSortDescriptor(key: "titleInitial", ascending: true),
                NSSortDescriptor(key: "pages", ascending: false),
            ]) as! [Book]
        XCTAssertEqual(sorted.map(\.title), ["Beloved", "Emma", "Middlemarch", "Mrs Dalloway"])
    }
}
