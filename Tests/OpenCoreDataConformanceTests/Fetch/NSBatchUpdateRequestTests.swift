import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSBatchUpdateRequest`: the store changes rows in place; contexts learn of it by merging.
final class NSBatchUpdateRequestTests: XCTestCase {
    func testThePredicateChoosesTheRowsAndTheCountIsReturned() throws {
        let context = try ConformanceModel.library()
        let request = NSBatchUpdateRequest(entityName: "Book")
        request.predicate = NSPredicate(format: "author.name == %@", "Austen")
        request.propertiesToUpdate = ["pages": 300]
        request.resultType = .updatedObjectsCountResultType
        XCTAssertEqual((try context.execute(request) as? NSBatchUpdateResult)?.result as? Int, 2)

        let other = try ConformanceModel.context(sharing: context)
        let fetch = NSFetchRequest<Book>(entityName: "Book")
        fetch.predicate = NSPredicate(format: "pages == 300")
        XCTAssertEqual(try other.fetch(fetch).compactMap(\.title).sorted(), ["Emma", "Persuasion"])
    }

    func testAnExpressionIsEvaluatedPerRow() throws {
        let context = try ConformanceModel.library()
        let request = NSBatchUpdateRequest(entityName: "Book")
        request.propertiesToUpdate = ["pages": NSExpression(format: "pages + 10")]
        _ = try context.execute(request)
        let other = try ConformanceModel.context(sharing: context)
        XCTAssertEqual(try other.fetch(NSFetchRequest<Book>(entityName: "Book")).map(\.pages), [10, 10, 10])
    }

    func testRegisteredObjectsChangeOnlyWhenTheIDsAreMerged() throws {
        let context = try ConformanceModel.library()
        let emma = try XCTUnwrap(
            try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first { $0.title == "Emma" })
        let request = NSBatchUpdateRequest(entityName: "Book")
        request.predicate = NSPredicate(format: "title == %@", "Emma")
        request.propertiesToUpdate = ["title": "Emma (annotated)"]
        request.resultType = .updatedObjectIDsResultType
        let ids = try XCTUnwrap((context.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
        XCTAssertEqual(ids, [emma.objectID])
        XCTAssertEqual(emma.title, "Emma")

        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [context])
        XCTAssertEqual(emma.title, "Emma (annotated)")
    }
}
