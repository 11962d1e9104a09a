import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// Stores strings as their ROT13 form in UTF-8 data, counting how often each direction runs.
final class ROT13Transformer: ValueTransformer, @unchecked Sendable {
    private let lock = NSLock()
    private var counts = (forward: 0, reverse: 0)

    var calls: (forward: Int, reverse: Int) {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }

    static func rotate(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    switch scalar.value {
                    case 65...90: Unicode.Scalar((scalar.value - 65 + 13) % 26 + 65) ?? scalar
                    case 97...122: Unicode.Scalar((scalar.value - 97 + 13) % 26 + 97) ?? scalar
                    default: scalar
                    }
                }))
    }

    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        lock.lock()
        counts.forward += 1
        lock.unlock()
        return (value as? String).map { Data(Self.rotate($0).utf8) }
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        lock.lock()
        counts.reverse += 1
        lock.unlock()
        return (value as? Data).map { Self.rotate(String(decoding: $0, as: UTF8.self)) }
    }
}

/// A transformer that only goes one way.
final class OneWayTransformer: ValueTransformer, @unchecked Sendable {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { false }
    override func transformedValue(_ value: Any?) -> Any? { (value as? String)?.count as NSNumber? }
}

/// `ValueTransformer`: named transformers, as transformable attributes look them up.
final class ValueTransformerTests: XCTestCase {
    private func transformer(named name: NSValueTransformerName) -> ValueTransformer? {
        ValueTransformer(forName: name)
    }

    func testARegisteredTransformerIsFoundByName() {
        let name = NSValueTransformerName("ValueTransformerTests.ROT13")
        let rot13 = ROT13Transformer()
        ValueTransformer.setValueTransformer(rot13, forName: name)
        XCTAssertTrue(transformer(named: name) === rot13)
        XCTAssertTrue(ValueTransformer.valueTransformerNames().contains(name))
        XCTAssertNil(transformer(named: NSValueTransformerName("ValueTransformerTests.NeverRegistered")))
    }

    func testTheSecureUnarchivingTransformerIsAlwaysRegistered() throws {
        let registered = try XCTUnwrap(transformer(named: .secureUnarchiveFromDataTransformerName))
        XCTAssertTrue(registered is NSSecureUnarchiveFromDataTransformer)
        let archived = try XCTUnwrap(registered.reverseTransformedValue(["a", "b"] as NSArray) as? Data)
        XCTAssertEqual(registered.transformedValue(archived) as? NSArray, ["a", "b"])
    }

    func testReversibilityIsAClassProperty() {
        XCTAssertTrue(ValueTransformer.allowsReverseTransformation(), "the default is true")
        XCTAssertTrue(ROT13Transformer.allowsReverseTransformation())
        XCTAssertFalse(OneWayTransformer.allowsReverseTransformation())
        XCTAssertTrue(OneWayTransformer.transformedValueClass() == NSNumber.self)
        XCTAssertEqual(OneWayTransformer().transformedValue("Emma") as? NSNumber, 4)
    }

    func testALookupThroughASubclassFindsOnlyItsInstances() {
        let name = NSValueTransformerName("ValueTransformerTests.TypedROT13")
        ValueTransformer.setValueTransformer(ROT13Transformer(), forName: name)
        XCTAssertNotNil(ROT13Transformer(forName: name))
        XCTAssertNil(OneWayTransformer(forName: name), "registered under the name, but of another class")
    }

    func testTheDefaultReverseTransformationAppliesTheForwardOne() throws {
        /// Reverses text: its own inverse, so it leaves the reverse direction to the default.
        final class Reversing: ValueTransformer, @unchecked Sendable {
            override func transformedValue(_ value: Any?) -> Any? { (value as? String).map { String($0.reversed()) } }
        }
        XCTAssertEqual(Reversing().reverseTransformedValue("Emma") as? String, "ammE")
    }

    func testFoundationsBuiltInTransformersAreRegistered() throws {
        let names = ValueTransformer.valueTransformerNames()
        for name in [
            NSValueTransformerName.negateBooleanTransformerName, .isNilTransformerName, .isNotNilTransformerName,
            .keyedUnarchiveFromDataTransformerName, .secureUnarchiveFromDataTransformerName,
        ] {
            XCTAssertTrue(names.contains(name), "\(name.rawValue) is registered")
        }
        XCTAssertEqual(NSValueTransformerName.negateBooleanTransformerName.rawValue, "NSNegateBoolean")
        XCTAssertEqual(NSValueTransformerName.isNilTransformerName.rawValue, "NSIsNil")
        XCTAssertEqual(NSValueTransformerName.isNotNilTransformerName.rawValue, "NSIsNotNil")
        XCTAssertEqual(
            NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue, "NSKeyedUnarchiveFromData")
        XCTAssertEqual(NSValueTransformerName.unarchiveFromDataTransformerName.rawValue, "NSUnarchiveFromData")

        let negate = try XCTUnwrap(transformer(named: .negateBooleanTransformerName))
        XCTAssertEqual(negate.transformedValue(NSNumber(value: true)) as? NSNumber, NSNumber(value: false))
        XCTAssertEqual(negate.reverseTransformedValue(NSNumber(value: false)) as? NSNumber, NSNumber(value: true))

        let isNil = try XCTUnwrap(transformer(named: .isNilTransformerName))
        XCTAssertFalse(type(of: isNil).allowsReverseTransformation())
        XCTAssertEqual(isNil.transformedValue(nil) as? NSNumber, NSNumber(value: true))
        XCTAssertEqual(isNil.transformedValue("Emma") as? NSNumber, NSNumber(value: false))
        XCTAssertEqual(isNil.transformedValue(NSNull()) as? NSNumber, NSNumber(value: false), "NSNull is an object")
        let isNotNil = try XCTUnwrap(transformer(named: .isNotNilTransformerName))
        XCTAssertEqual(isNotNil.transformedValue(nil) as? NSNumber, NSNumber(value: false))
        XCTAssertEqual(isNotNil.transformedValue("Emma") as? NSNumber, NSNumber(value: true))

        let keyed = try XCTUnwrap(transformer(named: .keyedUnarchiveFromDataTransformerName))
        let archived = try XCTUnwrap(keyed.reverseTransformedValue(["Emma", "Persuasion"] as NSArray) as? Data)
        XCTAssertEqual(keyed.transformedValue(archived) as? NSArray, ["Emma", "Persuasion"])
    }

    func testATransformableAttributeStoresThroughItsNamedTransformer() throws {
        let rot13 = ROT13Transformer()
        XCTAssertEqual(decoding(rot13.transformedValue("Emma") as? Data), "Rzzn")
        let name = NSValueTransformerName("ValueTransformerTests.StoredROT13")
        ValueTransformer.setValueTransformer(rot13, forName: name)

        let entity = NSEntityDescription()
        entity.name = "Note"
        let secret = NSAttributeDescription()
        secret.name = "secret"
        secret.attributeType = .transformableAttributeType
        secret.valueTransformerName = name.rawValue
        entity.properties = [secret]
        let context = try ConformanceModel.context(entities: [entity])
        let note = NSManagedObject(entity: entity, insertInto: context)
        note.setValue("Persuasion", forKey: "secret")
        let before = rot13.calls
        try context.save()
        XCTAssertGreaterThan(rot13.calls.forward, before.forward, "saving runs the forward direction")

        let reader = try ConformanceModel.context(sharing: context)
        let fetched = try XCTUnwrap(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first)
        XCTAssertEqual(fetched.value(forKey: "secret") as? String, "Persuasion")
        XCTAssertGreaterThan(rot13.calls.reverse, before.reverse, "reading runs the reverse direction")
    }

    private func decoding(_ data: Data?) -> String {
        data.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
