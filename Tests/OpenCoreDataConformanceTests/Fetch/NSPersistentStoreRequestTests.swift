import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPersistentStoreRequest`: the common base of the requests a context executes.
final class NSPersistentStoreRequestTests: XCTestCase {
    func testTheRequestTypesHaveTheirCValues() {
        XCTAssertEqual(NSPersistentStoreRequestType.fetchRequestType.rawValue, 1)
        XCTAssertEqual(NSPersistentStoreRequestType.saveRequestType.rawValue, 2)
        XCTAssertEqual(NSPersistentStoreRequestType.batchInsertRequestType.rawValue, 5)
        XCTAssertEqual(NSPersistentStoreRequestType.batchUpdateRequestType.rawValue, 6)
        XCTAssertEqual(NSPersistentStoreRequestType.batchDeleteRequestType.rawValue, 7)
    }

    func testEachRequestClassReportsItsType() {
        let requests: [(NSPersistentStoreRequest, NSPersistentStoreRequestType)] = [
            (NSFetchRequest<Book>(entityName: "Book"), .fetchRequestType),
            (NSBatchInsertRequest(entityName: "Book", objects: []), .batchInsertRequestType),
            (NSBatchUpdateRequest(entityName: "Book"), .batchUpdateRequestType),
            (
                NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Book")),
                .batchDeleteRequestType
            ),
        ]
        for (request, type) in requests {
            XCTAssertEqual(request.requestType, type, "\(Swift.type(of: request))")
        }
    }

    func testAffectedStoresIsNilUntilSetAndCopiesKeepIt() throws {
        let coordinator = try ConformanceModel.coordinator()
        let store = try XCTUnwrap(coordinator.persistentStores.first)
        let fetch = NSFetchRequest<Book>(entityName: "Book")
        XCTAssertNil(fetch.affectedStores)
        fetch.affectedStores = [store]
        XCTAssertEqual(fetch.affectedStores, [store])
        let copy = try XCTUnwrap(fetch.copy() as? NSFetchRequest<Book>)
        XCTAssertEqual(copy.affectedStores, [store])
    }

    func testARequestLimitedToTheStoreRunsThere() throws {
        let context = try ConformanceModel.library()
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first)
        let fetch = NSFetchRequest<Book>(entityName: "Book")
        fetch.affectedStores = [store]
        XCTAssertEqual(try context.count(for: fetch), 3)

        let update = NSBatchUpdateRequest(entityName: "Book")
        update.affectedStores = [store]
        update.propertiesToUpdate = ["pages": 1]
        update.resultType = .updatedObjectsCountResultType
        XCTAssertEqual((try context.execute(update) as? NSBatchUpdateResult)?.result as? Int, 3)
    }
}
