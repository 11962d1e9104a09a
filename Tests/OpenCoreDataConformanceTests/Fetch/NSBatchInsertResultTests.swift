import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSBatchInsertResult`: what a batch insert hands back, shaped by the request's result type.
final class NSBatchInsertResultTests: XCTestCase {
    private let rows: [[String: Any]] = [
        ["title": "Emma", "pages": 474], ["title": "Persuasion", "pages": 249], ["title": "Middlemarch", "pages": 880],
    ]

    private func execute(
        _ resultType: NSBatchInsertRequestResultType, in context: NSManagedObjectContext
    ) throws
        -> NSBatchInsertResult
    {
        let request = NSBatchInsertRequest(entityName: "Book", objects: rows)
        request.resultType = resultType
        let result: NSPersistentStoreResult = try context.execute(request)
        return try XCTUnwrap(result as? NSBatchInsertResult)
    }

    func testTheStatusResultIsTrue() throws {
        let context = try ConformanceModel.context()
        let result = try execute(.statusOnly, in: context)
        XCTAssertEqual(result.resultType, .statusOnly)
        XCTAssertEqual(result.result as? Bool, true)
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 3)
    }

    func testTheCountResultCountsTheInsertedRows() throws {
        let context = try ConformanceModel.context()
        XCTAssertEqual(try execute(.count, in: context).result as? Int, 3)
        let second = try execute(.count, in: context)
        XCTAssertEqual(second.resultType, .count)
        XCTAssertEqual(second.result as? Int, 3)
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 6)
    }

    func testTheObjectIDsResultNamesPermanentIDsOfTheNewRows() throws {
        let context = try ConformanceModel.context()
        let result = try execute(.objectIDs, in: context)
        XCTAssertEqual(result.resultType, .objectIDs)
        let ids = try XCTUnwrap(result.result as? [NSManagedObjectID])
        XCTAssertEqual(ids.count, 3)
        XCTAssertEqual(Set(ids).count, 3)
        XCTAssertTrue(ids.allSatisfy { !$0.isTemporaryID && $0.entity.name == "Book" })
        XCTAssertTrue(context.registeredObjects.isEmpty, "a batch insert makes no objects")

        let titles = try ids.map { try XCTUnwrap(context.existingObject(with: $0) as? Book).title ?? "" }
        XCTAssertEqual(Set(titles), ["Emma", "Persuasion", "Middlemarch"])
    }
}
