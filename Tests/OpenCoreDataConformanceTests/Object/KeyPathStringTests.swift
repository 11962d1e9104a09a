import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

// OpenCoreData's own macro: Core Data has `#keyPath` instead, so the compatibility run skips it.
#if !(canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST)
/// `#keyPathString`, OpenCoreData's stand-in for `#keyPath` (which needs the Objective-C runtime).
final class KeyPathStringTests: XCTestCase {
    /// A class of its own, as code uses `#keyPath` in a class's static keys.
    final class Shelf: NSManagedObject {
        @Managed var label: String?
        @Managed var favourite: Book?
        static let labelKey = #keyPathString(\Shelf.label)
    }

    func testExpandsToTheDottedKey() {
        XCTAssertEqual(#keyPathString(\Book.title), "title")
        XCTAssertEqual(#keyPathString(\Book.author?.name), "author.name")
        XCTAssertEqual(#keyPathString(\Book.author!.name), "author.name")
        XCTAssertEqual(#keyPathString(\Shelf.favourite?.author?.born), "favourite.author.born")
        XCTAssertEqual(Shelf.labelKey, "label")
    }

    func testWorksWhereKeysAreStrings() throws {
        let context = try ConformanceModel.context()
        let author = Author(context: context)
        author.name = "Ursula"
        let book = Book(context: context)
        book.title = "The Dispossessed"
        book.author = author
        try context.save()

        let request = Book.fetchRequest() as NSFetchRequest<Book>
        request.predicate = NSPredicate(format: "%K == %@", #keyPathString(\Book.author?.name), "Ursula")
        request.sortDescriptors = [NSSortDescriptor(key: #keyPathString(\Book.title), ascending: true)]
        XCTAssertEqual(try context.fetch(request).map(\.title), ["The Dispossessed"])
        XCTAssertEqual(book.value(forKeyPath: #keyPathString(\Book.author?.name)) as? String, "Ursula")
    }
}
#endif
