import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPersistentStoreResult`: the common base of what `execute(_:)` returns.
final class NSPersistentStoreResultTests: XCTestCase {
    func testBatchRequestsReturnStoreResults() throws {
        let context = try ConformanceModel.library()
        let insert = NSBatchInsertRequest(entityName: "Book", objects: [["title": "Ulysses"]])
        let update = NSBatchUpdateRequest(entityName: "Book")
        update.propertiesToUpdate = ["pages": 10]
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Book"))
        let requests: [NSPersistentStoreRequest] = [insert, update, delete]
        let results: [NSPersistentStoreResult] = try requests.map { try context.execute($0) }
        XCTAssertTrue(results[0] is NSBatchInsertResult)
        XCTAssertTrue(results[1] is NSBatchUpdateResult)
        XCTAssertTrue(results[2] is NSBatchDeleteResult)
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 0)
    }

    func testHistoryRequestsReturnStoreResults() throws {
        let context = try historyTrackingContext()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        let result: NSPersistentStoreResult = try context.execute(request)
        let history = try XCTUnwrap(result as? NSPersistentHistoryResult)
        XCTAssertEqual((history.result as? [NSPersistentHistoryTransaction])?.count, 1)
    }

    func testAsynchronousFetchesReturnAsynchronousStoreResults() throws {
        let context = try NSAsynchronousFetchRequestTests.libraryContext()
        let done = expectation(description: "completion")
        let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<Book>(entityName: "Book")) { _ in
            done.fulfill()
        }
        let result: NSPersistentStoreResult = try context.performAndWait { try context.execute(request) }
        wait(for: [done], timeout: 10)
        XCTAssertTrue(result is NSPersistentStoreAsynchronousResult)
        XCTAssertEqual((result as? NSAsynchronousFetchResult<Book>)?.finalResult?.count, 3)
    }
}
