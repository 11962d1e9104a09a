import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSAttributeDescription`, as Apple documents it.
final class NSAttributeDescriptionTests: XCTestCase {
    func testTypeIsTheSwiftFormOfAttributeType() {
        let attribute = NSAttributeDescription()
        XCTAssertEqual(attribute.type, .undefined)
        attribute.type = .string
        XCTAssertEqual(attribute.attributeType, .stringAttributeType)
        attribute.attributeType = .integer64AttributeType
        XCTAssertEqual(attribute.type, .integer64)
        XCTAssertEqual(attribute.type.rawValue, .integer64AttributeType)
        let pairs: [(NSAttributeDescription.AttributeType, NSAttributeType)] = [
            (.undefined, .undefinedAttributeType), (.integer16, .integer16AttributeType),
            (.integer32, .integer32AttributeType),
            (.integer64, .integer64AttributeType), (.decimal, .decimalAttributeType), (.double, .doubleAttributeType),
            (.float, .floatAttributeType), (.string, .stringAttributeType), (.boolean, .booleanAttributeType),
            (.date, .dateAttributeType), (.binaryData, .binaryDataAttributeType), (.uuid, .UUIDAttributeType),
            (.uri, .URIAttributeType), (.transformable, .transformableAttributeType),
            (.objectID, .objectIDAttributeType),
            (.composite, .compositeAttributeType),
        ]
        for (swift, original) in pairs {
            XCTAssertEqual(swift.rawValue, original)
            XCTAssertEqual(NSAttributeDescription.AttributeType(rawValue: original), swift)
        }
        XCTAssertEqual(Set(pairs.map(\.0)).count, NSAttributeType.allCases.count, "one Swift name per attribute type")
    }

    func testModelBuiltWithSwiftTypesSaves() throws {
        let entity = NSEntityDescription()
        entity.name = "Reading"
        let value = NSAttributeDescription()
        value.name = "value"
        value.type = .double
        entity.properties = [value, ConformanceModel.attribute("taken", .dateAttributeType)]
        XCTAssertEqual(entity.attributesByName["taken"]?.type, .date)
        let context = try ConformanceModel.context(entities: [entity])
        let reading = NSManagedObject(entity: entity, insertInto: context)
        reading.setValue(21.5, forKey: "value")
        try context.save()
        context.reset()
        let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Reading"))
        XCTAssertEqual(fetched.first?.value(forKey: "value") as? Double, 21.5)
    }
}
