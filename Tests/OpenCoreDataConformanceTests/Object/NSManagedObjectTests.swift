import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// A managed object class that no entity of any model names.
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
@objc(UnclaimedRecord)
#endif
final class UnclaimedRecord: NSManagedObject {}

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

    func testKeyValueCodingHandsNumbersOutAsNSNumbers() throws {
        // Key-value coding boxes numbers, so ported casts such as `as? Int` work whatever the
        // attribute's width, and aggregates of key paths come back the same way.
        let context = try ConformanceModel.context()
        let author = Author(context: context)
        for pages in [100, 200] {
            let book = Book(context: context)
            book.pages = Int32(pages)
            book.author = author
        }
        let book = try XCTUnwrap(author.books?.anyObject() as? Book)
        XCTAssertTrue(book.value(forKey: "pages") is NSNumber)
        XCTAssertNotNil(book.value(forKey: "pages") as? Int)
        XCTAssertEqual(author.value(forKeyPath: "books.@count") as? Int, 2)
        XCTAssertEqual(author.value(forKeyPath: "books.@sum.pages") as? Int, 300)
        let average = author.value(forKeyPath: "books.@avg.pages")
        XCTAssertEqual(
            average as? Int, 150,
            "an average is an NSNumber, which casts to Int when whole: \(type(of: average as Any))")
        XCTAssertEqual(author.value(forKeyPath: "books.@max.pages") as? Int, 200)
    }

    func testEntityOfAClassNoModelNamesHasNoName() {
        // Core Data logs that +entity is confused and answers an entity without a name, so the
        // common `entity().name ?? String(describing: self)` falls back to the class name.
        XCTAssertNil(UnclaimedRecord.entity().name)
        XCTAssertEqual(UnclaimedRecord.entity().name ?? String(describing: UnclaimedRecord.self), "UnclaimedRecord")
    }

    func testAnObjectOfAModelNoCoordinatorUsesHoldsValues() throws {
        // A model made in code and never given to a coordinator: objects outside any context
        // (as a migration policy or a unit test makes them) still hold and report values.
        let model = ConformanceModel.make()
        let entity = try XCTUnwrap(model.entitiesByName["Book"])
        let book = NSManagedObject(entity: entity, insertInto: nil)
        XCTAssertNil(book.managedObjectContext)
        XCTAssertEqual(book.value(forKey: "pages") as? Int, 0, "the attribute's default")
        book.setValue("Emma", forKey: "title")
        XCTAssertEqual(book.value(forKey: "title") as? String, "Emma")
        XCTAssertTrue(book.objectID.isTemporaryID)
    }
}
