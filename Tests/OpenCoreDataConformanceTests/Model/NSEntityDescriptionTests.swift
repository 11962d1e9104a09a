import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSEntityDescription`: looking entities up, inserting through them, inheritance.
final class NSEntityDescriptionTests: XCTestCase {
    func testEntitiesAreFoundByNameThroughAContext() throws {
        let context = try ConformanceModel.context()
        let book = try XCTUnwrap(NSEntityDescription.entity(forEntityName: "Book", in: context))
        XCTAssertEqual(book.name, "Book")
        XCTAssertNil(NSEntityDescription.entity(forEntityName: "Magazine", in: context))
        XCTAssertEqual(Set(book.attributesByName.keys), ["title", "pages"])
        XCTAssertEqual(Set(book.relationshipsByName.keys), ["author"])
        XCTAssertEqual(Set(book.propertiesByName.keys), ["title", "pages", "author"])
        XCTAssertEqual(book.attributesByName["pages"]?.attributeType, .integer32AttributeType)
        XCTAssertEqual(book.relationshipsByName["author"]?.destinationEntity?.name, "Author")
    }

    func testInsertingThroughTheEntityMakesItsClass() throws {
        let context = try ConformanceModel.context()
        let object = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
        XCTAssertTrue(object is Book)
        XCTAssertTrue(context.insertedObjects.contains(object))
        XCTAssertEqual(object.entity.name, "Book")
    }

    func testRelationshipsToADestination() throws {
        let context = try ConformanceModel.context()
        let author = try XCTUnwrap(NSEntityDescription.entity(forEntityName: "Author", in: context))
        let book = try XCTUnwrap(NSEntityDescription.entity(forEntityName: "Book", in: context))
        XCTAssertEqual(author.relationships(forDestination: book).map(\.name), ["books"])
        XCTAssertEqual(book.relationships(forDestination: book).map(\.name), [])
    }

    func testSubentitiesInheritPropertiesAndAreKindsOfTheirParent() throws {
        let item = NSEntityDescription()
        item.name = "Item"
        item.isAbstract = true
        item.properties = [ConformanceModel.attribute("name", .stringAttributeType)]
        let tool = NSEntityDescription()
        tool.name = "Tool"
        tool.properties = [ConformanceModel.attribute("weight", .doubleAttributeType)]
        item.subentities = [tool]
        let context = try ConformanceModel.context(entities: [item, tool])

        XCTAssertTrue(tool.superentity === item)
        XCTAssertEqual(Set(tool.propertiesByName.keys), ["name", "weight"])
        XCTAssertTrue(tool.isKindOf(entity: item))
        XCTAssertFalse(item.isKindOf(entity: tool))

        let hammer = NSEntityDescription.insertNewObject(forEntityName: "Tool", into: context)
        hammer.setValue("hammer", forKey: "name")
        try context.save()
        let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
        XCTAssertEqual(items.map { $0.entity.name }, ["Tool"])
        let exact = NSFetchRequest<NSManagedObject>(entityName: "Item")
        exact.includesSubentities = false
        XCTAssertEqual(try context.count(for: exact), 0)
    }
}
