import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSCompositeAttributeDescription`, as Apple documents it: values are dictionaries
/// keyed by element name, elements are reached by namespaced key paths in predicates,
/// and composites nest.
final class CompositeAttributeDescriptionTests: XCTestCase {
    private static func element(
        _ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil
    ) -> NSAttributeDescription {
        let element = NSAttributeDescription()
        element.name = name
        element.attributeType = type
        element.isOptional = optional
        element.defaultValue = defaultValue
        return element
    }

    /// `Quake`: `place`, and `magnitude`, an optional composite of `richter` (required
    /// Double), `depth` (Double) and `source`, a nested composite of `network` (String).
    private static func model(magnitudeDefault: Any? = nil) -> NSManagedObjectModel {
        let quake = NSEntityDescription()
        quake.name = "Quake"
        quake.managedObjectClassName = "NSManagedObject"
        let place = element("place", .stringAttributeType)
        let source = NSCompositeAttributeDescription()
        source.name = "source"
        source.elements = [element("network", .stringAttributeType)]
        let magnitude = NSCompositeAttributeDescription()
        magnitude.name = "magnitude"
        magnitude.defaultValue = magnitudeDefault
        magnitude.elements = [
            element("richter", .doubleAttributeType, optional: false), element("depth", .doubleAttributeType), source,
        ]
        quake.properties = [place, magnitude]
        let model = NSManagedObjectModel()
        model.entities = [quake]
        return model
    }

    private func context(at url: URL? = nil, model: NSManagedObjectModel = model()) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil,
            at: url ?? URL(fileURLWithPath: "/dev/null"), options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func insertQuake(
        _ place: String, _ magnitude: [String: Any]?, into context: NSManagedObjectContext
    ) -> NSManagedObject {
        let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
        quake.setValue(place, forKey: "place")
        quake.setValue(magnitude, forKey: "magnitude")
        return quake
    }

    func testTheAttributeTypeIsComposite() {
        let composite = NSCompositeAttributeDescription()
        XCTAssertEqual(composite.attributeType, .compositeAttributeType)
        XCTAssertTrue(composite.elements.isEmpty)
        composite.elements = [Self.element("richter", .doubleAttributeType)]
        XCTAssertEqual(composite.elements.map(\.name), ["richter"])
    }

    func testTheValueIsADictionaryKeyedByElementName() throws {
        let context = try context()
        let quake = insertQuake("Tokyo", ["richter": 4.6, "source": ["network": "JMA"]], into: context)
        let magnitude = try XCTUnwrap(quake.value(forKey: "magnitude") as? [String: Any])
        XCTAssertEqual(magnitude["richter"] as? Double, 4.6)
        XCTAssertNil(magnitude["depth"], "an element without a value is absent")
        XCTAssertEqual(quake.value(forKeyPath: "magnitude.richter") as? Double, 4.6)
        XCTAssertEqual(quake.value(forKeyPath: "magnitude.source.network") as? String, "JMA")
        try context.save()
        context.reset()
        let fetched = try XCTUnwrap(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake")).first)
        XCTAssertEqual(fetched.value(forKeyPath: "magnitude.richter") as? Double, 4.6)
        XCTAssertEqual(fetched.value(forKeyPath: "magnitude.source.network") as? String, "JMA")
    }

    func testNamespacedKeyPathsFilterAndSort() throws {
        let context = try context()
        for (place, richter) in [("a", 3.0), ("b", 5.5), ("c", 4.6), ("d", 7.1)] {
            _ = insertQuake(place, ["richter": richter, "depth": 10 - richter], into: context)
        }
        _ = insertQuake("unmeasured", nil, into: context)
        try context.save()
        context.reset()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
        request.predicate = NSPredicate(format: "magnitude.richter > 4.5")
        request.sortDescriptors = [NSSortDescriptor(key: "magnitude.depth", ascending: true)]
        XCTAssertEqual(try context.fetch(request).map { $0.value(forKey: "place") as? String }, ["d", "b", "c"])
    }

    func testAMissingRequiredElementFailsValidation() throws {
        let context = try context()
        _ = insertQuake("somewhere", ["depth": 3.0], into: context)
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual((error as NSError).code, NSValidationMissingMandatoryPropertyError)
        }
    }

    func testDefaultValuesAreDictionaries() throws {
        let context = try context(model: Self.model(magnitudeDefault: ["richter": 1.0]))
        let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: context)
        XCTAssertEqual(quake.value(forKeyPath: "magnitude.richter") as? Double, 1)
    }

    func testValuesSurviveAFileStoreRelaunch() throws {
        let url = try temporaryDirectory().appendingPathComponent("Quakes.sqlite")
        let model = Self.model()
        let first = try context(at: url, model: model)
        _ = insertQuake("Lisbon", ["richter": 8.5, "depth": 25.0], into: first)
        try first.save()
        for store in first.persistentStoreCoordinator?.persistentStores ?? [] {
            try first.persistentStoreCoordinator?.remove(store)
        }

        let second = try context(at: url, model: model)
        let quake = try XCTUnwrap(try second.fetch(NSFetchRequest<NSManagedObject>(entityName: "Quake")).first)
        let magnitude = try XCTUnwrap(quake.value(forKey: "magnitude") as? [String: Any])
        XCTAssertEqual(magnitude["richter"] as? Double, 8.5)
        XCTAssertEqual(magnitude["depth"] as? Double, 25)
    }
}
