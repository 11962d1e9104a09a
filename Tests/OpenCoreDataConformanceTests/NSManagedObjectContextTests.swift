import XCTest
import Foundation
import OpenCoreData

/// `NSManagedObjectContext`, as Apple documents it.
final class NSManagedObjectContextTests: XCTestCase {
    func testConcurrencyTypeHasItsCName() {
        let type: NSManagedObjectContextConcurrencyType = .privateQueueConcurrencyType
        let context = NSManagedObjectContext(concurrencyType: type)
        XCTAssertEqual(context.concurrencyType, .privateQueueConcurrencyType)
        XCTAssertEqual(NSManagedObjectContextConcurrencyType.mainQueueConcurrencyType.rawValue, 2)
        XCTAssertEqual(NSManagedObjectContextConcurrencyType.privateQueueConcurrencyType.rawValue, 1)
        XCTAssertEqual(NSManagedObjectContextConcurrencyType.confinementConcurrencyType.rawValue, 0)
    }

    func testAssignToTheStoreAnInsertedObjectIsSavedTo() throws {
        let context = try ConformanceModel.context()
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first)
        let author = Author(context: context)
        author.name = "Woolf"
        context.assign(author, to: store)
        try context.save()
        XCTAssertEqual(author.objectID.persistentStore, store)
        XCTAssertFalse(author.objectID.isTemporaryID)
    }
}
