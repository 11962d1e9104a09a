import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPersistentStore`: a store a coordinator added, as code inspects it.
final class NSPersistentStoreTests: XCTestCase {
    private func addStore(
        to coordinator: NSPersistentStoreCoordinator, options: [AnyHashable: Any]? = nil
    ) throws -> (NSPersistentStore, URL) {
        let url = try temporaryDirectory().appendingPathComponent("Store.sqlite")
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        return (store, url)
    }

    func testAnAddedStoreKnowsItsTypeFileCoordinatorAndIdentity() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let (store, url) = try addStore(to: coordinator, options: [NSSQLitePragmasOption: ["journal_mode": "WAL"]])
        XCTAssertEqual(store.type, NSSQLiteStoreType)
        XCTAssertEqual(store.url?.standardizedFileURL, url.standardizedFileURL)
        XCTAssertEqual(store.configurationName, "PF_DEFAULT_CONFIGURATION_NAME")
        XCTAssertTrue(store.persistentStoreCoordinator === coordinator)
        XCTAssertFalse(store.isReadOnly)
        XCTAssertNotNil(store.options?[NSSQLitePragmasOption])
        let identifier = try XCTUnwrap(store.identifier)
        XCTAssertNotNil(UUID(uuidString: identifier), "a UUID string: \(identifier)")
        XCTAssertEqual(store.metadata[NSStoreUUIDKey] as? String, identifier)
        XCTAssertEqual(store.metadata[NSStoreTypeKey] as? String, NSSQLiteStoreType)
        XCTAssertEqual(NSPersistentStore.StoreType.sqlite.rawValue, NSSQLiteStoreType)
    }

    func testTheIdentifierIsTheHostOfObjectIDURIs() throws {
        let context = try ConformanceModel.library()
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first)
        let book = try XCTUnwrap(try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        XCTAssertEqual(book.objectID.uriRepresentation().host, store.identifier)
        XCTAssertTrue(book.objectID.persistentStore === store)
    }

    func testMetadataSetOnTheStoreIsWrittenWithTheNextSave() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let (store, url) = try addStore(to: coordinator)
        var metadata = try XCTUnwrap(store.metadata)
        metadata["LastImport"] = "2026-11-29"
        store.metadata = metadata
        XCTAssertEqual(store.metadata["LastImport"] as? String, "2026-11-29", "kept in memory at once")

        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let onDisk = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        XCTAssertEqual(onDisk["LastImport"] as? String, "2026-11-29")
    }

    func testAReadOnlyStoreRefusesSaves() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let (writable, url) = try addStore(to: coordinator)
        let writer = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: writer)
        try coordinator.remove(writable)

        let reader = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try reader.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSReadOnlyPersistentStoreOption: true as NSNumber])
        XCTAssertTrue(store.isReadOnly)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = reader
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 1, "reads work")
        XCTAssertThrowsError(try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: context))
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 2, "unsaved, still pending")
        context.rollback()
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 1, "nothing was written")
    }
}
