import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSSortDescriptor`, as Apple documents it.
final class NSSortDescriptorTests: XCTestCase {
    func testKeyAndAscending() {
        let byName = NSSortDescriptor(key: "name", ascending: true)
        XCTAssertEqual(byName.key, "name")
        XCTAssertTrue(byName.ascending)
        let reversed = byName.reversedSortDescriptor as? NSSortDescriptor
        XCTAssertEqual(reversed?.ascending, false)
        XCTAssertEqual(byName.compare(["name": "a"], to: ["name": "b"]), .orderedAscending)
    }

    func testSelectorNamesTheComparison() {
        let descriptor = NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:")
        XCTAssertEqual(descriptor.compare(["name": "b"], to: ["name": "A"]), .orderedDescending)
    }

    func testSortsFoundationAndSwiftCollections() {
        let people: [[String: Any]] = [["name": "b", "age": 2], ["name": "a", "age": 2], ["name": "c", "age": 1]]
        let sorted = (people as NSArray).sortedArray(using: [
            NSSortDescriptor(key: "age", ascending: false), NSSortDescriptor(key: "name", ascending: true),
        ])
        XCTAssertEqual(sorted.compactMap { ($0 as? [String: Any])?["name"] as? String }, ["a", "b", "c"])
    }

    func testComparatorDescriptor() {
        let byLength = NSSortDescriptor(key: "self", ascending: true) { lhs, rhs in
            let (l, r) = ((lhs as? String)?.count ?? 0, (rhs as? String)?.count ?? 0)
            return l < r ? .orderedAscending : l > r ? .orderedDescending : .orderedSame
        }
        XCTAssertEqual(["ccc", "a", "bb"].sorted(using: [byLength]), ["a", "bb", "ccc"])
    }

    func testKeyPathInitializerNamesTheManagedProperty() {
        let byTitle = NSSortDescriptor(keyPath: \Book.title, ascending: true)
        XCTAssertEqual(byTitle.key, "title")
        XCTAssertEqual(byTitle.keyPath, \Book.title)
        XCTAssertEqual(NSSortDescriptor(keyPath: \Book.pages, ascending: false).key, "pages")
        // Through a to-one: one key per object along the chain.
        XCTAssertEqual(NSSortDescriptor(keyPath: \Book.author?.name, ascending: true).key, "author.name")
        XCTAssertEqual(NSSortDescriptor(keyPath: \Book.author, ascending: true).key, "author")
        let reversed = byTitle.reversedSortDescriptor as? NSSortDescriptor
        XCTAssertEqual(reversed?.keyPath, \Book.title)
        XCTAssertEqual(reversed?.ascending, false)
    }

    func testKeyPathDescriptorsSortAFetch() throws {
        let context = try ConformanceModel.context()
        for (title, author) in [("B", "Zed"), ("A", "Amy"), ("C", "Amy")] {
            let book = Book(context: context)
            book.title = title
            let writer = Author(context: context)
            writer.name = author
            book.author = writer
        }
        try context.save()
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.sortDescriptors = [
            NSSortDescriptor(keyPath: \Book.author?.name, ascending: true),
            NSSortDescriptor(keyPath: \Book.title, ascending: false),
        ]
        XCTAssertEqual(try context.fetch(request).map(\.title), ["C", "A", "B"])
        let books = try context.fetch(NSFetchRequest<Book>(entityName: "Book")) as NSArray
        let inMemory = books.sortedArray(using: [NSSortDescriptor(keyPath: \Book.title, ascending: true)])
        XCTAssertEqual(inMemory.compactMap { ($0 as? Book)?.title }, ["A", "B", "C"])
    }
}
