import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSBatchDeleteResult`: what a batch delete hands back, shaped by the request's result type.
final class NSBatchDeleteResultTests: XCTestCase {
    private func execute(
        _ resultType: NSBatchDeleteRequestResultType, in context: NSManagedObjectContext, predicate: NSPredicate? = nil
    ) throws -> NSBatchDeleteResult {
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        fetch.predicate = predicate
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = resultType
        let result: NSPersistentStoreResult = try context.execute(request)
        return try XCTUnwrap(result as? NSBatchDeleteResult)
    }

    func testTheResultTypeIsTheRequestsAndStatusIsTrue() throws {
        let context = try ConformanceModel.library()
        let result = try execute(.resultTypeStatusOnly, in: context, predicate: NSPredicate(format: "title == 'Emma'"))
        XCTAssertEqual(result.resultType, .resultTypeStatusOnly)
        XCTAssertEqual(result.result as? Bool, true)
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 2)
    }

    func testTheCountResultCountsTheDeletedRowsOnly() throws {
        let context = try ConformanceModel.library()
        let result = try execute(
            .resultTypeCount, in: context, predicate: NSPredicate(format: "author.name == 'Austen'"))
        XCTAssertEqual(result.resultType, .resultTypeCount)
        XCTAssertEqual(result.result as? Int, 2)
        let nothing = try execute(.resultTypeCount, in: context, predicate: NSPredicate(format: "title == 'Ulysses'"))
        XCTAssertEqual(nothing.result as? Int, 0)
    }

    func testTheObjectIDsResultNamesExactlyTheDeletedRows() throws {
        let context = try ConformanceModel.library()
        let persuasion = NSFetchRequest<Book>(entityName: "Book")
        persuasion.predicate = NSPredicate(format: "title == 'Persuasion'")
        let expected = try XCTUnwrap(try context.fetch(persuasion).first?.objectID)

        let result = try execute(.resultTypeObjectIDs, in: context, predicate: persuasion.predicate)
        XCTAssertEqual(result.resultType, .resultTypeObjectIDs)
        XCTAssertEqual(result.result as? [NSManagedObjectID], [expected])

        let reader = try ConformanceModel.context(sharing: context)
        XCTAssertEqual(try reader.count(for: persuasion), 0)
        XCTAssertThrowsError(try reader.existingObject(with: expected))
    }

    func testMergingTheResultsIDsUpdatesAnotherContext() throws {
        let context = try ConformanceModel.library()
        let viewer = try ConformanceModel.context(sharing: context)
        let books = try viewer.fetch(NSFetchRequest<Book>(entityName: "Book"))
        XCTAssertEqual(books.count, 3)

        let result = try execute(.resultTypeObjectIDs, in: context)
        let ids = try XCTUnwrap(result.result as? [NSManagedObjectID])
        XCTAssertEqual(Set(ids), Set(books.map(\.objectID)))
        XCTAssertEqual(
            viewer.registeredObjects.filter { $0 is Book }.count, 3, "the store changed, the context did not")

        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [viewer])
        XCTAssertEqual(viewer.registeredObjects.filter { $0 is Book }.count, 0)
    }
}
