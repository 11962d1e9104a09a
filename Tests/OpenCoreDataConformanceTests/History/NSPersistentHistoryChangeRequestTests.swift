import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// Persistent history: what each save did, read back with `NSPersistentHistoryChangeRequest`.
final class NSPersistentHistoryChangeRequestTests: XCTestCase {
    private func trackedContext() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let folder = try temporaryDirectory()
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil,
            at: folder.appendingPathComponent("History.sqlite"),
            options: [NSPersistentHistoryTrackingKey: true as NSNumber])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func transactions(
        _ request: NSPersistentHistoryChangeRequest, in context: NSManagedObjectContext
    ) throws -> [NSPersistentHistoryTransaction] {
        let result = try XCTUnwrap(context.execute(request) as? NSPersistentHistoryResult)
        return try XCTUnwrap(result.result as? [NSPersistentHistoryTransaction])
    }

    func testEachSaveIsATransactionWithItsChanges() throws {
        let context = try trackedContext()
        context.name = "editor"
        context.transactionAuthor = "importer"
        let book = Book(context: context)
        book.title = "Emma"
        try context.save()
        context.transactionAuthor = nil
        book.pages = 474
        try context.save()

        let history = try transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        XCTAssertEqual(history.count, 2)
        XCTAssertEqual(history[0].author, "importer")
        XCTAssertEqual(history[0].contextName, "editor")
        XCTAssertNil(history[1].author)
        XCTAssertEqual(history[0].changes?.map(\.changeType), [.insert])
        XCTAssertEqual(history[0].changes?.first?.changedObjectID, book.objectID)
        let update = try XCTUnwrap(history[1].changes?.first)
        XCTAssertEqual(update.changeType, .update)
        XCTAssertEqual(update.updatedProperties?.map(\.name), ["pages"])
        XCTAssertLessThan(history[0].transactionNumber, history[1].transactionNumber)
    }

    func testFetchingAfterATokenSkipsWhatWasAlreadyRead() throws {
        let context = try trackedContext()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let seen = try transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        let token = try XCTUnwrap(seen.last?.token)
        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: context)
        let later = try transactions(.fetchHistory(after: token), in: context)
        XCTAssertEqual(later.count, 1)
        XCTAssertEqual(later[0].changes?.count, 2)
    }

    /// A token marks the last transaction processed, so deleting "before" it deletes it too
    /// (docs/DEVIATIONS.md, "Boundaries"); deleting before a transaction keeps that transaction.
    func testDeletingHistoryBeforeATokenDeletesThroughItsTransaction() throws {
        let context = try trackedContext()
        for author in ["Austen", "Eliot", "Woolf"] { try ConformanceModel.shelve([(author, [])], in: context) }
        let all = try transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        XCTAssertEqual(all.count, 3)
        _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: all[0].token))
        let left = try transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        XCTAssertEqual(left.map(\.transactionNumber), [all[1].transactionNumber, all[2].transactionNumber])
        _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: left[1]))
        let last = try transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        XCTAssertEqual(last.map(\.transactionNumber), [all[2].transactionNumber])
    }
}
