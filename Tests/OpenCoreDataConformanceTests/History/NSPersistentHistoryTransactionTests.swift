import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPersistentHistoryTransaction`: one save as the store's history recorded it.
final class NSPersistentHistoryTransactionTests: XCTestCase {
    func testATransactionRecordsItsStoreTimeAndChanges() throws {
        let context = try historyTrackingContext()
        let before = Date()
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"])], in: context)
        let after = Date()
        let history = try historyTransactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        let transaction = try XCTUnwrap(history.first)
        XCTAssertEqual(history.count, 1)
        XCTAssertEqual(transaction.storeID, context.persistentStoreCoordinator?.persistentStores.first?.identifier)
        XCTAssertGreaterThanOrEqual(transaction.timestamp.timeIntervalSince(before), -1)
        XCTAssertLessThanOrEqual(transaction.timestamp.timeIntervalSince(after), 1)
        XCTAssertEqual(transaction.changes?.count, 3)
        XCTAssertEqual(Set(transaction.changes?.map(\.changeType) ?? []), [.insert])
        XCTAssertEqual(
            Set(transaction.changes?.compactMap(\.changedObjectID.entity.name) ?? []), ["Author", "Book"])
    }

    func testTransactionNumbersGrowWithEachSave() throws {
        let context = try historyTrackingContext()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let book = try XCTUnwrap(try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        book.pages = 474
        try context.save()
        context.delete(book)
        try context.save()
        let history = try historyTransactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        XCTAssertEqual(history.count, 3)
        XCTAssertEqual(history.map(\.transactionNumber), history.map(\.transactionNumber).sorted())
        XCTAssertEqual(Set(history.map(\.transactionNumber)).count, 3)
        let update = history[1].changes?.first { $0.changedObjectID == book.objectID }
        XCTAssertEqual(update?.changeType, .update)
        XCTAssertEqual(update?.updatedProperties?.map(\.name), ["pages"])
        let deletes = history[2].changes?.filter { $0.changeType == .delete }
        XCTAssertEqual(deletes?.map(\.changedObjectID), [book.objectID])
    }

    func testTheObjectIDNotificationMergesIntoAnotherContext() throws {
        let context = try historyTrackingContext()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let token = try XCTUnwrap(context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil))
        let viewer = try ConformanceModel.context(sharing: context)
        let shown = try XCTUnwrap(try viewer.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        XCTAssertEqual(shown.pages, 0)

        let book = try XCTUnwrap(try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        book.pages = 474
        try context.save()
        let history = try historyTransactions(.fetchHistory(after: token), in: context)
        XCTAssertEqual(history.count, 1)
        let notification = try XCTUnwrap(history.first?.objectIDNotification())
        XCTAssertEqual(notification.name, .NSManagedObjectContextDidSave)
        viewer.mergeChanges(fromContextDidSave: notification)
        XCTAssertEqual(shown.pages, 474)
    }

    func testTheTransactionFetchRequestFiltersByAuthor() throws {
        let context = try historyTrackingContext()
        context.transactionAuthor = "importer"
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        context.transactionAuthor = "editor"
        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: context)

        let fetch = try XCTUnwrap(NSPersistentHistoryTransaction.fetchRequest)
        fetch.predicate = NSPredicate(format: "author == %@", "editor")
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        request.fetchRequest = fetch
        let history = try historyTransactions(request, in: context)
        XCTAssertEqual(history.map(\.author), ["editor"])
        XCTAssertEqual(history.first?.changes?.count, 2)
    }
}
