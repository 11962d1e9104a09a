import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSManagedObject` classes as ported code names and finds them.
final class NSManagedObjectTests: XCTestCase {
    func testClassNamesAreTheBareNamesCoreDataAppsUse() {
        XCTAssertEqual(NSStringFromClass(Author.self), "Author")
        XCTAssertEqual(NSStringFromClass(NSManagedObject.self), "NSManagedObject")
        XCTAssertTrue(NSClassFromString("Author") == Author.self)
        #if !(canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST)
        // Without `@objc(Name)` the module-qualified name finds the class too.
        XCTAssertTrue(NSClassFromString("OpenCoreDataConformanceTests.Author") == Author.self)
        #endif
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
