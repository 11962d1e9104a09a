import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSAtomicStoreCacheNode`: one object's record in an atomic store.
final class NSAtomicStoreCacheNodeTests: XCTestCase {
    override func setUp() {
        super.setUp()
        NSPersistentStoreCoordinator.registerStoreClass(JSONAtomicStore.self, type: JSONAtomicStore.typeName)
    }

    /// A context on a new JSON atomic store in a temporary folder, and the store.
    private func jsonContext() throws -> (context: NSManagedObjectContext, store: JSONAtomicStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let added = try coordinator.addPersistentStore(
            ofType: JSONAtomicStore.typeName, configurationName: nil,
            at: try temporaryDirectory().appendingPathComponent("Library.json"), options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, try XCTUnwrap(added as? JSONAtomicStore))
    }

    func testANodeKeepsValuesByKey() throws {
        let (context, _) = try jsonContext()
        let author = Author(context: context)
        try context.obtainPermanentIDs(for: [author])
        let node = NSAtomicStoreCacheNode(objectID: author.objectID)
        XCTAssertEqual(node.objectID, author.objectID)
        XCTAssertNil(node.propertyCache)
        node.setValue("Austen", forKey: "name")
        XCTAssertEqual(node.propertyCache?["name"] as? String, "Austen", "setting a value makes the cache")
        XCTAssertEqual(node.value(forKey: "name") as? String, "Austen")
        node.setValue(nil, forKey: "name")
        XCTAssertNil(node.value(forKey: "name"))
    }

    func testAReplacedPropertyCacheIsWhatTheNodeReads() throws {
        let (context, _) = try jsonContext()
        let book = Book(context: context)
        try context.obtainPermanentIDs(for: [book])
        let node = NSAtomicStoreCacheNode(objectID: book.objectID)
        node.propertyCache = NSMutableDictionary(dictionary: ["title": "Emma", "pages": 474])
        XCTAssertEqual(node.value(forKey: "title") as? String, "Emma")
        XCTAssertEqual((node.value(forKey: "pages") as? NSNumber)?.intValue, 474)
    }

    func testSavedObjectsHaveNodesHoldingTheirAttributes() throws {
        let (context, store) = try jsonContext()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let book = try XCTUnwrap(try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        let node = try XCTUnwrap(store.cacheNode(for: book.objectID))
        XCTAssertEqual(node.objectID, book.objectID)
        XCTAssertEqual(node.value(forKey: "title") as? String, "Emma")
        XCTAssertTrue(store.cacheNode(for: book.objectID) === node, "one node per object")

        book.pages = 474
        try context.save()
        XCTAssertEqual((store.cacheNode(for: book.objectID)?.value(forKey: "pages") as? NSNumber)?.intValue, 474)
    }

    func testRelationshipsAreKeptAsNodes() throws {
        let (context, store) = try jsonContext()
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"])], in: context)
        let author = try XCTUnwrap(try context.fetch(Author.fetchRequest()).first)
        let authorNode = try XCTUnwrap(store.cacheNode(for: author.objectID))
        let books = try XCTUnwrap(authorNode.value(forKey: "books") as? Set<NSAtomicStoreCacheNode>)
        XCTAssertEqual(Set(books.compactMap { $0.value(forKey: "title") as? String }), ["Emma", "Persuasion"])
        for bookNode in books {
            XCTAssertTrue(bookNode.value(forKey: "author") as? NSAtomicStoreCacheNode === authorNode)
        }
    }
}
