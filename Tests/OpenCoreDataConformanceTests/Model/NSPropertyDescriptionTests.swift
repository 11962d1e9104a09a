import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPropertyDescription`: what every attribute, relationship and fetched property shares.
final class NSPropertyDescriptionTests: XCTestCase {
    func testANewPropertyIsOptionalAndStored() {
        let property = NSAttributeDescription()
        XCTAssertTrue(property.isOptional)
        XCTAssertFalse(property.isTransient)
        XCTAssertFalse(property.isIndexed)
        XCTAssertNil(property.renamingIdentifier)
        XCTAssertNil(property.versionHashModifier)
        XCTAssertEqual(property.validationPredicates.count, 0)
        XCTAssertEqual(property.validationWarnings.count, 0)
    }

    func testPropertiesKnowTheirEntity() throws {
        let model = ConformanceModel.make()
        let author = try XCTUnwrap(model.entitiesByName["Author"])
        let name = try XCTUnwrap(author.propertiesByName["name"])
        let books = try XCTUnwrap(author.propertiesByName["books"])
        XCTAssertTrue(name.entity === author)
        XCTAssertTrue(books.entity === author)
        XCTAssertTrue(model.entitiesByName["Book"]?.propertiesByName["title"]?.entity === model.entitiesByName["Book"])
    }

    func testTheVersionHashFollowsNameAndModifierButNotUserInfo() {
        func make(_ name: String, modifier: String? = nil, userInfo: [AnyHashable: Any]? = nil) -> Data {
            let attribute = ConformanceModel.attribute(name, .stringAttributeType)
            attribute.versionHashModifier = modifier
            attribute.userInfo = userInfo
            return attribute.versionHash
        }
        XCTAssertEqual(make("title"), make("title"), "equal descriptions hash alike")
        XCTAssertNotEqual(make("title"), make("subtitle"))
        XCTAssertNotEqual(make("title"), make("title", modifier: "2"))
        XCTAssertEqual(make("title"), make("title", userInfo: ["note": "kept out of the hash"]))

        let optional = ConformanceModel.attribute("title", .stringAttributeType)
        let required = ConformanceModel.attribute("title", .stringAttributeType)
        required.isOptional = false
        XCTAssertNotEqual(optional.versionHash, required.versionHash)
    }

    func testARequiredPropertyWithoutAValueFailsTheSave() throws {
        let book = NSEntityDescription()
        book.name = "Book"
        let title = ConformanceModel.attribute("title", .stringAttributeType)
        title.isOptional = false
        book.properties = [title]
        let context = try ConformanceModel.context(entities: [book])
        let object = NSManagedObject(entity: book, insertInto: context)
        do {
            try context.save()
            XCTFail("a required property without a value cannot be saved")
        } catch let error as NSError {
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSValidationMissingMandatoryPropertyError)
            XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "title")
            XCTAssertTrue(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === object)
        }
        object.setValue("Emma", forKey: "title")
        XCTAssertNoThrow(try context.save())
    }

    func testValidationPredicatesCheckValuesOnSave() throws {
        let book = NSEntityDescription()
        book.name = "Book"
        let title = ConformanceModel.attribute("title", .stringAttributeType)
        title.setValidationPredicates(
            [NSPredicate(format: "SELF BEGINSWITH 'The'")], withValidationWarnings: ["titles begin with The"])
        XCTAssertEqual(title.validationPredicates.map(\.predicateFormat), ["SELF BEGINSWITH \"The\""])
        XCTAssertEqual(title.validationWarnings, ["titles begin with The"])
        book.properties = [title]
        let context = try ConformanceModel.context(entities: [book])
        let object = NSManagedObject(entity: book, insertInto: context)
        object.setValue("Emma", forKey: "title")
        XCTAssertThrowsError(try object.validateForInsert()) { error in
            XCTAssertEqual((error as NSError).domain, NSCocoaErrorDomain)
            XCTAssertEqual((error as NSError).userInfo[NSValidationKeyErrorKey] as? String, "title")
        }
        XCTAssertThrowsError(try context.save())
        object.setValue("The Waves", forKey: "title")
        XCTAssertNoThrow(try context.save())
    }
}
