import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPersistentHistoryResult`: what a history request hands back, shaped by its result type.
final class NSPersistentHistoryResultTests: XCTestCase {
    private func execute(
        _ resultType: NSPersistentHistoryResultType, in context: NSManagedObjectContext
    ) throws -> NSPersistentHistoryResult {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        request.resultType = resultType
        let result: NSPersistentStoreResult = try context.execute(request)
        return try XCTUnwrap(result as? NSPersistentHistoryResult)
    }

    /// A tracked store with two saves: Austen with Emma, then Eliot with Middlemarch.
    private func twoSaves() throws -> NSManagedObjectContext {
        let context = try historyTrackingContext()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: context)
        return context
    }

    func testTheDefaultResultHoldsTransactionsWithTheirChanges() throws {
        let context = try twoSaves()
        XCTAssertEqual(
            NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?).resultType,
            .transactionsAndChanges)
        let result = try execute(.transactionsAndChanges, in: context)
        XCTAssertEqual(result.resultType, .transactionsAndChanges)
        let transactions = try XCTUnwrap(result.result as? [NSPersistentHistoryTransaction])
        XCTAssertEqual(transactions.map { $0.changes?.count }, [2, 2])
    }

    func testChangesOnlyListsEveryChange() throws {
        let context = try twoSaves()
        let result = try execute(.changesOnly, in: context)
        XCTAssertEqual(result.resultType, .changesOnly)
        let changes = try XCTUnwrap(result.result as? [NSPersistentHistoryChange])
        XCTAssertEqual(changes.count, 4)
        let authors = try context.fetch(Author.fetchRequest()).map(\.objectID)
        XCTAssertTrue(Set(authors).isSubset(of: Set(changes.map(\.changedObjectID))))
    }

    func testTheStatusResultIsTrue() throws {
        let context = try twoSaves()
        let result = try execute(.statusOnly, in: context)
        XCTAssertEqual(result.resultType, .statusOnly)
        XCTAssertEqual(result.result as? Bool, true)
    }

    func testTheResultTypesHaveTheirCValues() {
        XCTAssertEqual(NSPersistentHistoryResultType.statusOnly.rawValue, 0)
        XCTAssertEqual(NSPersistentHistoryResultType.objectIDs.rawValue, 1)
        XCTAssertEqual(NSPersistentHistoryResultType.count.rawValue, 2)
        XCTAssertEqual(NSPersistentHistoryResultType.transactionsOnly.rawValue, 3)
        XCTAssertEqual(NSPersistentHistoryResultType.changesOnly.rawValue, 4)
        XCTAssertEqual(NSPersistentHistoryResultType.transactionsAndChanges.rawValue, 5)
    }
}
