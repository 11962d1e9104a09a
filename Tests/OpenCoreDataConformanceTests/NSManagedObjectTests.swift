import Foundation
import XCTest
import OpenCoreData

/// `NSManagedObject` classes as ported code names and finds them.
final class NSManagedObjectTests: XCTestCase {
    func testClassNamesAreTheBareNamesCoreDataAppsUse() {
        XCTAssertEqual(NSStringFromClass(Author.self), "Author")
        XCTAssertEqual(NSStringFromClass(NSManagedObject.self), "NSManagedObject")
        XCTAssertTrue(NSClassFromString("Author") == Author.self)
        XCTAssertTrue(NSClassFromString("OpenCoreDataConformanceTests.Author") == Author.self)
        XCTAssertTrue(NSClassFromString("NSManagedObject") == NSManagedObject.self)
        XCTAssertNil(NSClassFromString("NoClassOfThisName"))
    }

    func testNamesFromTheRegistryBuildEntities() throws {
        // The pattern ported code uses to fill managedObjectClassName.
        let context = try ConformanceModel.context()
        let entity = try XCTUnwrap(NSEntityDescription.entity(forEntityName: "Book", in: context))
        XCTAssertEqual(entity.managedObjectClassName, "Book")
        let objectClass = try XCTUnwrap(NSClassFromString(entity.managedObjectClassName) as? NSManagedObject.Type)
        let book = objectClass.init(entity: entity, insertInto: context)
        XCTAssertTrue(book is Book)
    }

    func testFoundationClassesKeepFoundationsNames() {
        XCTAssertEqual(NSStringFromClass(NSDictionary.self), Foundation.NSStringFromClass(NSDictionary.self))
    }
}
