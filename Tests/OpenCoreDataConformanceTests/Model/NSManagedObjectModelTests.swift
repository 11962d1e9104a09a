import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSManagedObjectModel`, as Apple documents it.
final class NSManagedObjectModelTests: XCTestCase {
    func testModelsDescribingTheSameEntitiesAreEqual() throws {
        let first = ConformanceModel.make()
        let second = ConformanceModel.make()
        XCTAssertFalse(first === second)
        XCTAssertEqual(first, second)
        XCTAssertTrue(first.isEqual(second))
        XCTAssertEqual(first.hash, second.hash)
        XCTAssertEqual(Set([first, second]).count, 1)
        // A model in use still equals a fresh copy.
        _ = try ConformanceModel.coordinator(model: first)
        XCTAssertEqual(first, ConformanceModel.make())
    }

    func testAnyEntityDifferenceMakesModelsUnequal() {
        let renamed = ConformanceModel.make()
        renamed.entities.first { $0.name == "Book" }?.properties.first { $0.name == "title" }?.name = "heading"
        XCTAssertNotEqual(ConformanceModel.make(), renamed)

        let extra = ConformanceModel.make()
        let shelf = NSEntityDescription()
        shelf.name = "Shelf"
        extra.entities.append(shelf)
        XCTAssertNotEqual(ConformanceModel.make(), extra)

        let configured = ConformanceModel.make()
        configured.setEntities(configured.entities.filter { $0.name == "Book" }, forConfigurationName: "Books")
        XCTAssertNotEqual(ConformanceModel.make(), configured, "configurations are part of a model")
        XCTAssertFalse(ConformanceModel.make().isEqual("Library"))
    }
}
