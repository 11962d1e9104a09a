@testable import CDToolCore
import OpenCoreData
import Testing

/// What `cdtool` shows of composite attributes: their elements in `model`, their
/// dictionaries in `dump`, and `[String: Any]?` properties in `codegen`.
@Suite struct CompositeCDToolTests {
    static func model() -> NSManagedObjectModel {
        let geo = NSCompositeAttributeDescription()
        geo.name = "geo"
        geo.elements = [CDToolFixture.attribute("lat", .doubleAttributeType)]
        let address = NSCompositeAttributeDescription()
        address.name = "address"
        address.elements = [
            CDToolFixture.attribute("street", .stringAttributeType, optional: false),
            CDToolFixture.attribute("zip", .integer32AttributeType), geo,
        ]
        let place = CDToolFixture.entity("Place", [CDToolFixture.attribute("name", .stringAttributeType), address])
        let model = NSManagedObjectModel()
        model.entities = [place]
        return model
    }

    @Test func theModelDescriptionListsTheElements() {
        let text = ModelDescription.text(of: Self.model())
        #expect(
            text.contains(
                "  attribute address: Composite, optional\n    element street: String, required\n    element zip: Integer 32, optional\n    element geo: Composite, optional\n      element lat: Double, optional\n"
            ), "\(text)")
    }

    @Test func codegenDeclaresADictionary() throws {
        let files = try CodeGenerator().files(for: Self.model())
        let properties = try #require(files.first { $0.name == "Place+CoreDataProperties.swift" })
        #expect(properties.contents.contains("@Managed public var address: [String: Any]?"), "\(properties.contents)")
    }

    @Test func dumpWritesTheDictionary() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "CompositeCDTool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Places.sqlite")
        let model = Self.model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
            place.setValue("Home", forKey: "name")
            place.setValue(["street": "Main", "zip": 12345, "geo": ["lat": 1.5]] as [String: Any], forKey: "address")
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }

        var dump = ObjectDump(storeURL: url)
        dump.model = model
        var output = ""
        _ = try dump.run(output: { output += $0 })
        let objects = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        let address = try #require(objects.first?["address"] as? [String: Any])
        #expect(address["street"] as? String == "Main")
        #expect(address["zip"] as? Int == 12345)
        #expect((address["geo"] as? [String: Any])?["lat"] as? Double == 1.5)
    }
}
