import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// Turns strings into their UTF-8 data going forward, as a custom transformer written for
/// a transformable attribute does.
final class UppercasingTransformer: ValueTransformer, @unchecked Sendable {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override func transformedValue(_ value: Any?) -> Any? { (value as? String).map { Data($0.uppercased().utf8) } }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        (value as? Data).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// `NSSecureUnarchiveFromDataTransformer` and transformable attributes, as Apple documents them.
final class NSSecureUnarchiveFromDataTransformerTests: XCTestCase {
    func testForwardUnarchivesAndReverseArchives() throws {
        let transformer = NSSecureUnarchiveFromDataTransformer()
        let value: NSDictionary = ["tags": ["a", "b"], "count": 2]
        let data = try XCTUnwrap(transformer.reverseTransformedValue(value) as? Data, "the reverse direction archives")
        XCTAssertEqual(transformer.transformedValue(data) as? NSDictionary, value, "the forward direction unarchives")
        XCTAssertNil(transformer.transformedValue(value), "the forward direction takes data only")
        XCTAssertNil(transformer.transformedValue(Data("not an archive".utf8)))
    }

    func testTransformableAttributesRoundTripThroughTheStore() throws {
        let entity = NSEntityDescription()
        entity.name = "Settings"
        let plain = NSAttributeDescription()
        plain.name = "values"
        plain.attributeType = .transformableAttributeType
        plain.valueTransformerName = NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue
        let custom = NSAttributeDescription()
        custom.name = "shout"
        custom.attributeType = .transformableAttributeType
        custom.valueTransformerName = "UppercasingTransformer"
        ValueTransformer.setValueTransformer(
            UppercasingTransformer(), forName: NSValueTransformerName("UppercasingTransformer"))
        entity.properties = [plain, custom]
        let model = NSManagedObjectModel()
        model.entities = [entity]

        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = try ConformanceModel.coordinator(model: model)
        let settings = NSManagedObject(entity: entity, insertInto: context)
        settings.setValue(["volume": 11] as NSDictionary, forKey: "values")
        settings.setValue("quiet", forKey: "shout")
        try context.save()
        context.reset()

        let fetched = try XCTUnwrap(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Settings")).first)
        XCTAssertEqual(fetched.value(forKey: "values") as? NSDictionary, ["volume": 11])
        XCTAssertEqual(
            fetched.value(forKey: "shout") as? String, "QUIET",
            "stored through the custom transformer's forward direction")
    }
}
