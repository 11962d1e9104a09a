import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSBatchDeleteRequest`: the store deletes rows; contexts learn of it by merging.
final class NSBatchDeleteRequestTests: XCTestCase {
    func testTheFetchRequestChoosesTheRowsAndTheCountIsReturned() throws {
        let context = try ConformanceModel.library()
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        fetch.predicate = NSPredicate(format: "title BEGINSWITH %@", "P")
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeCount
        XCTAssertEqual((try context.execute(request) as? NSBatchDeleteResult)?.result as? Int, 1)
        let other = try ConformanceModel.context(sharing: context)
        XCTAssertEqual(
            try other.fetch(NSFetchRequest<Book>(entityName: "Book")).compactMap(\.title).sorted(),
            ["Emma", "Middlemarch"])
    }

    func testDeletedIDsMergedIntoAContextRemoveItsObjects() throws {
        let context = try ConformanceModel.library()
        let books = try context.fetch(NSFetchRequest<Book>(entityName: "Book"))
        let request = NSBatchDeleteRequest(objectIDs: books.map(\.objectID))
        request.resultType = .resultTypeObjectIDs
        let ids = try XCTUnwrap((context.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
        XCTAssertEqual(Set(ids), Set(books.map(\.objectID)))

        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [context])
        XCTAssertTrue(context.registeredObjects.allSatisfy { !($0 is Book) })
        XCTAssertThrowsError(try context.existingObject(with: ids[0]))
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 0)
    }

    func testTheDefaultResultIsTheStatus() throws {
        let context = try ConformanceModel.library()
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Author"))
        XCTAssertEqual(request.resultType, .resultTypeStatusOnly)
        XCTAssertEqual((try context.execute(request) as? NSBatchDeleteResult)?.result as? Bool, true)
    }
}
