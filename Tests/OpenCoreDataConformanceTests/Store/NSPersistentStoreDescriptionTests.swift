import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPersistentStoreDescription`: its documented defaults, and a container that uses it.
final class NSPersistentStoreDescriptionTests: XCTestCase {
    func testDefaults() {
        let description = NSPersistentStoreDescription()
        XCTAssertEqual(description.type, NSSQLiteStoreType)
        XCTAssertNil(description.url)
        XCTAssertNil(description.configuration)
        XCTAssertFalse(description.isReadOnly)
        XCTAssertFalse(description.shouldAddStoreAsynchronously)
        XCTAssertTrue(description.shouldMigrateStoreAutomatically)
        XCTAssertTrue(description.shouldInferMappingModelAutomatically)
        XCTAssertEqual(description.timeout, 240)
    }

    func testOptionsAndPragmasAreKeptByName() {
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        XCTAssertEqual(description.url?.path, "/dev/null")
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setValue("OFF" as NSString, forPragmaNamed: "synchronous")
        XCTAssertEqual(description.options[NSPersistentHistoryTrackingKey] as? NSNumber, true as NSNumber)
        XCTAssertEqual(description.sqlitePragmas["synchronous"] as? String, "OFF")
        description.setOption(nil, forKey: NSPersistentHistoryTrackingKey)
        XCTAssertNil(description.options[NSPersistentHistoryTrackingKey])
    }

    func testAContainerLoadsTheStoresItsDescriptionsName() throws {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: ConformanceModel.make())
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        var loaded: [NSPersistentStoreDescription] = []
        container.loadPersistentStores { description, error in
            XCTAssertNil(error)
            loaded.append(description)
        }
        XCTAssertEqual(loaded.map(\.type), [NSInMemoryStoreType])
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.map(\.type), [NSInMemoryStoreType])
    }
}
