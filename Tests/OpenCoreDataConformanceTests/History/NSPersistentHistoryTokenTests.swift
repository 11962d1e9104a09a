import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

extension XCTestCase {
    /// A main-queue context on a SQLite store in a temporary folder that records history.
    func historyTrackingContext(
        model: NSManagedObjectModel = ConformanceModel.make()
    ) throws
        -> NSManagedObjectContext
    {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil,
            at: try temporaryDirectory().appendingPathComponent("History.sqlite"),
            options: [NSPersistentHistoryTrackingKey: true as NSNumber])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The transactions `request` fetches in `context`.
    func historyTransactions(
        _ request: NSPersistentHistoryChangeRequest, in context: NSManagedObjectContext
    ) throws -> [NSPersistentHistoryTransaction] {
        let result = try XCTUnwrap(context.execute(request) as? NSPersistentHistoryResult)
        return try XCTUnwrap(result.result as? [NSPersistentHistoryTransaction])
    }
}

/// `NSPersistentHistoryToken`: a bookmark in a store's history.
final class NSPersistentHistoryTokenTests: XCTestCase {
    func testTheCurrentTokenIsTheLastTransactionsToken() throws {
        let context = try historyTrackingContext()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: context)
        let history = try historyTransactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        XCTAssertEqual(history.count, 2)
        let current = try XCTUnwrap(context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil))
        XCTAssertEqual(current, history[1].token)
        XCTAssertNotEqual(history[0].token, history[1].token)
    }

    func testNothingFollowsTheCurrentTokenUntilTheNextSave() throws {
        let context = try historyTrackingContext()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        let token = try XCTUnwrap(coordinator.currentPersistentHistoryToken(fromStores: nil))
        XCTAssertEqual(try historyTransactions(.fetchHistory(after: token), in: context).count, 0)

        let author = Author(context: context)
        author.name = "Woolf"
        try context.save()
        let later = try historyTransactions(.fetchHistory(after: token), in: context)
        XCTAssertEqual(later.count, 1)
        XCTAssertEqual(later.first?.changes?.map(\.changedObjectID), [author.objectID])
    }

    func testATokenSurvivesSecureArchiving() throws {
        XCTAssertTrue(NSPersistentHistoryToken.supportsSecureCoding)
        let context = try historyTrackingContext()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let token = try XCTUnwrap(context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil))
        let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let restored = try XCTUnwrap(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: data))
        XCTAssertEqual(restored, token)

        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: context)
        let later = try historyTransactions(.fetchHistory(after: restored), in: context)
        XCTAssertEqual(later.count, 1, "a restored token bookmarks the same place")
        XCTAssertEqual(later.first?.changes?.count, 2)
    }

    func testAStoreWithoutHistoryHasNoToken() throws {
        let context = try ConformanceModel.context()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        XCTAssertNil(context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil))
    }
}
