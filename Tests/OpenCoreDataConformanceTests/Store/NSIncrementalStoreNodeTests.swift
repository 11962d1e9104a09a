import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSIncrementalStoreNode` and `NSSaveChangesRequest` on their own.
final class NSIncrementalStoreNodeTests: XCTestCase {
    private func authorID() throws -> NSManagedObjectID {
        NSPersistentStoreCoordinator.registerStoreClass(JSONIncrementalStore.self, type: JSONIncrementalStore.typeName)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try XCTUnwrap(
            try coordinator.addPersistentStore(
                ofType: JSONIncrementalStore.typeName, configurationName: nil,
                at: URL(fileURLWithPath: "/dev/null"), options: nil) as? NSIncrementalStore)
        let author = try XCTUnwrap(coordinator.managedObjectModel.entitiesByName["Author"])
        return store.newObjectID(for: author, referenceObject: "austen")
    }

    func testANodeKeepsTheModeledValuesAndItsVersion() throws {
        let id = try authorID()
        let node = NSIncrementalStoreNode(
            objectID: id, withValues: ["name": "Austen", "books": [NSManagedObjectID](), "shoeSize": 38], version: 3)
        XCTAssertEqual(node.objectID, id)
        XCTAssertEqual(node.version, 3)
        let entity = id.entity
        XCTAssertEqual(node.value(for: try XCTUnwrap(entity.propertiesByName["name"])) as? String, "Austen")
        XCTAssertEqual((node.value(for: try XCTUnwrap(entity.propertiesByName["books"])) as? [Any])?.count, 0)
        XCTAssertNil(node.value(for: try XCTUnwrap(entity.propertiesByName["born"])), "a value left out is nil")
    }

    func testUpdateReplacesTheValuesAndTheVersion() throws {
        let id = try authorID()
        let node = NSIncrementalStoreNode(objectID: id, withValues: ["name": "Austen"], version: 1)
        node.update(withValues: ["born": Date(timeIntervalSince1970: 0)], version: 2)
        XCTAssertEqual(node.version, 2)
        XCTAssertNil(node.value(for: try XCTUnwrap(id.entity.propertiesByName["name"])), "the old values are gone")
        XCTAssertEqual(
            node.value(for: try XCTUnwrap(id.entity.propertiesByName["born"])) as? Date, Date(timeIntervalSince1970: 0))
    }

    func testASaveChangesRequestCarriesItsObjects() throws {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = try ConformanceModel.coordinator()
        let austen = Author(context: context)
        let emma = Book(context: context)
        let request = NSSaveChangesRequest(inserted: [austen], updated: [emma], deleted: nil, locked: [])
        XCTAssertEqual(request.requestType, .saveRequestType)
        XCTAssertEqual(request.insertedObjects, [austen])
        XCTAssertEqual(request.updatedObjects, [emma])
        XCTAssertNil(request.deletedObjects)
        XCTAssertEqual(request.lockedObjects, [])
    }
}
