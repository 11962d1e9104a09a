import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSBatchUpdateResult`: what a batch update hands back, shaped by the request's result type.
final class NSBatchUpdateResultTests: XCTestCase {
    private func execute(
        _ resultType: NSBatchUpdateRequestResultType, in context: NSManagedObjectContext, predicate: NSPredicate?
    ) throws -> NSBatchUpdateResult {
        let request = NSBatchUpdateRequest(entityName: "Book")
        request.predicate = predicate
        request.propertiesToUpdate = ["pages": 100]
        request.resultType = resultType
        let result: NSPersistentStoreResult = try context.execute(request)
        return try XCTUnwrap(result as? NSBatchUpdateResult)
    }

    private func pages(in context: NSManagedObjectContext) throws -> [String: Int32] {
        let reader = try ConformanceModel.context(sharing: context)
        let books = try reader.fetch(NSFetchRequest<Book>(entityName: "Book"))
        return Dictionary(uniqueKeysWithValues: books.map { ($0.title ?? "", $0.pages) })
    }

    func testTheDefaultResultIsTheStatus() throws {
        let context = try ConformanceModel.library()
        XCTAssertEqual(NSBatchUpdateRequest(entityName: "Book").resultType, .statusOnlyResultType)
        let result = try execute(.statusOnlyResultType, in: context, predicate: NSPredicate(format: "title == 'Emma'"))
        XCTAssertEqual(result.resultType, .statusOnlyResultType)
        XCTAssertEqual(result.result as? Bool, true)
        XCTAssertEqual(try pages(in: context), ["Emma": 100, "Persuasion": 0, "Middlemarch": 0])
    }

    func testTheCountResultCountsTheMatchingRows() throws {
        let context = try ConformanceModel.library()
        let result = try execute(
            .updatedObjectsCountResultType, in: context, predicate: NSPredicate(format: "author.name == 'Austen'"))
        XCTAssertEqual(result.resultType, .updatedObjectsCountResultType)
        XCTAssertEqual(result.result as? Int, 2)
        XCTAssertEqual(try pages(in: context), ["Emma": 100, "Persuasion": 100, "Middlemarch": 0])
    }

    func testTheObjectIDsResultNamesTheUpdatedRows() throws {
        let context = try ConformanceModel.library()
        let middlemarch = NSFetchRequest<Book>(entityName: "Book")
        middlemarch.predicate = NSPredicate(format: "title == 'Middlemarch'")
        let book = try XCTUnwrap(try context.fetch(middlemarch).first)

        let result = try execute(.updatedObjectIDsResultType, in: context, predicate: middlemarch.predicate)
        XCTAssertEqual(result.resultType, .updatedObjectIDsResultType)
        XCTAssertEqual(result.result as? [NSManagedObjectID], [book.objectID])
    }

    func testMergingTheResultsIDsRefreshesRegisteredObjects() throws {
        let context = try ConformanceModel.library()
        let books = try context.fetch(NSFetchRequest<Book>(entityName: "Book"))
        XCTAssertEqual(Set(books.map(\.pages)), [0])

        let result = try execute(.updatedObjectIDsResultType, in: context, predicate: nil)
        let ids = try XCTUnwrap(result.result as? [NSManagedObjectID])
        XCTAssertEqual(Set(ids), Set(books.map(\.objectID)))
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [context])
        XCTAssertEqual(Set(books.map(\.pages)), [100])
    }
}
