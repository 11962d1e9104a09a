import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSBatchInsertRequest`: rows go straight to the store, no objects are made in the context.
final class NSBatchInsertRequestTests: XCTestCase {
    func testDictionariesBecomeRowsWithoutObjectsInTheContext() throws {
        let context = try ConformanceModel.context()
        let request = NSBatchInsertRequest(
            entityName: "Book", objects: [["title": "Emma", "pages": 474], ["title": "Persuasion", "pages": 249]])
        request.resultType = .count
        let result = try XCTUnwrap(context.execute(request) as? NSBatchInsertResult)
        XCTAssertEqual(result.resultType, .count)
        XCTAssertEqual(result.result as? Int, 2)
        XCTAssertTrue(context.registeredObjects.isEmpty)

        let fetch = NSFetchRequest<Book>(entityName: "Book")
        fetch.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let books = try context.fetch(fetch)
        XCTAssertEqual(books.map(\.title), ["Emma", "Persuasion"])
        XCTAssertEqual(books.map(\.pages), [474, 249])
    }

    func testObjectIDsNameTheNewRows() throws {
        let context = try ConformanceModel.context()
        let request = NSBatchInsertRequest(entity: Book.entity(), objects: [["title": "Middlemarch"]])
        request.resultType = .objectIDs
        let ids = try XCTUnwrap((context.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
        XCTAssertEqual(ids.count, 1)
        XCTAssertFalse(ids[0].isTemporaryID)
        let book = try XCTUnwrap(context.existingObject(with: ids[0]) as? Book)
        XCTAssertEqual(book.title, "Middlemarch")
    }

    func testTheDictionaryHandlerIsCalledUntilItReturnsTrue() throws {
        let context = try ConformanceModel.context()
        var made = 0
        let request = NSBatchInsertRequest(
            entityName: "Book",
            dictionaryHandler: { row in
                // The row filled by the call that returns true is not inserted.
                if made == 3 { return true }
                row["title"] = "Volume \(made + 1)"
                made += 1
                return false
            })
        request.resultType = .count
        XCTAssertEqual((try context.execute(request) as? NSBatchInsertResult)?.result as? Int, 3)
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 3)
    }

    func testTheDefaultResultIsTheStatus() throws {
        let context = try ConformanceModel.context()
        let request = NSBatchInsertRequest(entityName: "Book", objects: [["title": "Ivanhoe"]])
        XCTAssertEqual(request.resultType, .statusOnly)
        XCTAssertEqual((try context.execute(request) as? NSBatchInsertResult)?.result as? Bool, true)
    }
}
