import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSManagedObjectID`: temporary until saved, then permanent, and an URI that finds it again.
final class NSManagedObjectIDTests: XCTestCase {
    func testAnInsertedObjectsIDIsTemporaryUntilItIsSaved() throws {
        let context = try ConformanceModel.context()
        let book = Book(context: context)
        let temporary = book.objectID
        XCTAssertTrue(temporary.isTemporaryID)
        XCTAssertEqual(temporary.entity.name, "Book")
        try context.save()
        XCTAssertFalse(book.objectID.isTemporaryID)
        XCTAssertNotEqual(book.objectID, temporary)
        XCTAssertTrue(context.object(with: book.objectID) === book)
    }

    func testObtainingPermanentIDsBeforeTheSave() throws {
        let context = try ConformanceModel.context()
        let book = Book(context: context)
        try context.obtainPermanentIDs(for: [book])
        let permanent = book.objectID
        XCTAssertFalse(permanent.isTemporaryID)
        try context.save()
        XCTAssertEqual(book.objectID, permanent)
    }

    func testTheURIRepresentationFindsTheSameObject() throws {
        let context = try ConformanceModel.context()
        let book = Book(context: context)
        book.title = "Emma"
        try context.save()
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        let store = try XCTUnwrap(coordinator.persistentStores.first)
        let uri = book.objectID.uriRepresentation()
        XCTAssertEqual(uri.scheme, "x-coredata")
        XCTAssertEqual(uri.host, store.identifier)
        XCTAssertTrue(book.objectID.persistentStore === store)

        let id = try XCTUnwrap(coordinator.managedObjectID(forURIRepresentation: uri))
        XCTAssertEqual(id, book.objectID)
        XCTAssertEqual(id.hashValue, book.objectID.hashValue)
        let other = try ConformanceModel.context(sharing: context)
        XCTAssertEqual((try other.existingObject(with: id) as? Book)?.title, "Emma")
    }

    func testTwoContextsShareTheID() throws {
        let context = try ConformanceModel.context()
        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: context)
        let other = try ConformanceModel.context(sharing: context)
        let mine = try XCTUnwrap(try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        let theirs = try XCTUnwrap(try other.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        XCTAssertFalse(mine === theirs)
        XCTAssertEqual(mine.objectID, theirs.objectID)
    }
}
