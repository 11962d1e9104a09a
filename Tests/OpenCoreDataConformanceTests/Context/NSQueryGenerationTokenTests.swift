import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSQueryGenerationToken`: pins a context's reads to one state of a SQLite (WAL) store.
final class NSQueryGenerationTokenTests: XCTestCase {
    /// Two main-queue contexts on one coordinator of a SQLite file holding Austen.
    private func contexts() throws -> (pinned: NSManagedObjectContext, writer: NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil,
            at: try temporaryDirectory().appendingPathComponent("Generations.sqlite"), options: nil)
        let writer = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: writer)
        let pinned = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        pinned.persistentStoreCoordinator = coordinator
        return (pinned, writer)
    }

    private func names(in context: NSManagedObjectContext) throws -> [String] {
        let fetch = Author.fetchRequest()
        fetch.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(fetch).compactMap(\.name)
    }

    func testAContextIsUnpinnedUntilToldOtherwise() throws {
        let (pinned, _) = try contexts()
        XCTAssertNil(pinned.queryGenerationToken)
        XCTAssertEqual(NSQueryGenerationToken.current, NSQueryGenerationToken.current)
        try pinned.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(in: pinned), ["Austen"])
        XCTAssertNotNil(pinned.queryGenerationToken)
    }

    func testAPinnedContextDoesNotSeeLaterSaves() throws {
        let (pinned, writer) = try contexts()
        try pinned.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(in: pinned), ["Austen"])

        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: writer)
        XCTAssertEqual(try names(in: pinned), ["Austen"], "pinned to the generation of its first read")
        XCTAssertEqual(try pinned.count(for: NSFetchRequest<Book>(entityName: "Book")), 1)
        XCTAssertEqual(try names(in: writer), ["Austen", "Eliot"])
    }

    func testPinningToTheCurrentGenerationAgainMovesOn() throws {
        let (pinned, writer) = try contexts()
        try pinned.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(in: pinned), ["Austen"])
        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: writer)

        try pinned.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(in: pinned), ["Austen", "Eliot"])
    }

    func testUnpinningReadsTheLatestData() throws {
        let (pinned, writer) = try contexts()
        try pinned.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(in: pinned), ["Austen"])
        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: writer)

        try pinned.setQueryGenerationFrom(nil)
        XCTAssertNil(pinned.queryGenerationToken)
        XCTAssertEqual(try names(in: pinned), ["Austen", "Eliot"])
    }

    func testAnotherContextCanBePinnedToTheSameGeneration() throws {
        let (pinned, writer) = try contexts()
        try pinned.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(in: pinned), ["Austen"])
        let token = try XCTUnwrap(pinned.queryGenerationToken)
        XCTAssertEqual(token.copy() as? NSQueryGenerationToken, token)
        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: writer)

        let follower = try ConformanceModel.context(sharing: writer)
        try follower.setQueryGenerationFrom(token)
        XCTAssertEqual(try names(in: follower), ["Austen"])
    }
}
