import OpenCoreDataTestSupport
@testable import CDToolCore
import OpenCoreData
import Testing

/// `cdtool model` and `cdtool codegen` on model files committed under `Fixtures/`.
@Suite struct CDToolModelFileTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test func modelPrintsAFileModelAndValidatesIt() throws {
        let model = try ModelFile.load(at: Self.fixtures.appendingPathComponent("Catalog.xcdatamodeld"))
        #expect(model.problemsPreventingUse.isEmpty)
        let text = ModelDescription.text(of: model)
        #expect(text.hasPrefix("3 entities\n"))
        #expect(
            text.contains(
                "entity Item (class Item)\n  version hash \(model.entitiesByName["Item"]!.versionHash.base64EncodedString())\n"
            ))
        #expect(text.contains("  attribute title: String, required, default \"Untitled\"\n"))
        #expect(text.contains("  attribute count: Integer 32, optional, default 0\n"))
        #expect(text.contains("  attribute titleKey: String, derived from lowercase:(title), optional"))
        #expect(
            text.contains(
                "  relationship items: to-many ordered Item, inverse shelf, delete rule cascade, optional, count 0…∞\n")
        )
        #expect(text.contains("  fetched property cheapItems: Item where shelf == $FETCH_SOURCE AND price < 10\n"))
    }

    /// The model shapes Core Data accepts (issue 37), from the library tests' fixtures.
    @Test func modelPrintsTheShapesCoreDataAccepts() throws {
        let library = Self.fixtures.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("OpenCoreDataTests/Fixtures")
        let shapes = try ModelFile.load(at: library.appendingPathComponent("Shapes.xcdatamodel"))
        #expect(shapes.problemsPreventingUse.isEmpty)
        let text = ModelDescription.text(of: shapes)
        #expect(text.contains("  attribute searchName: String, derived from canonical:(name), optional\n"))
        #expect(text.contains("  attribute scratch: Undefined, optional, transient\n"))
        #expect(text.contains("  relationship bestPet: to-one Pet, inverse none,"))
        let inverses = try ModelFile.load(at: library.appendingPathComponent("SubentityInverse.xcdatamodel"))
        #expect(inverses.problemsPreventingUse.isEmpty)
        #expect(
            ModelDescription.text(of: inverses).contains(
                "  relationship animals: to-many Animal, inverse owner, delete rule cascade, optional, count 0…∞\n"))
    }

    /// A store made with each shape opens in `cdtool inspect`: the model fits it, and the
    /// compiled model cached in the store reads back with the same version hashes.
    @Test func inspectOpensStoresMadeWithTheShapes() throws {
        let library = Self.fixtures.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("OpenCoreDataTests/Fixtures")
        for (name, entity) in [("Shapes", "Person"), ("SubentityInverse", "Owner")] {
            let model = try ModelFile.load(at: library.appendingPathComponent("\(name).xcdatamodel"))
            let directory = testFilesFolder.appendingPathComponent("cdtool-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let url = directory.appendingPathComponent("\(name).sqlite")
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                _ = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                try context.save()
            }
            try coordinator.remove(store)

            let inspection = try StoreInspection.inspect(storeAt: url, model: model)
            #expect(inspection.compatibility?.isCompatible == true, "\(name)")
            #expect(inspection.entities.first { $0.name == entity }?.rows == 1)
            let cached = try StoreInspection.inspect(storeAt: url, model: nil)
            #expect(cached.inferredModelSource == .modelCache)
            #expect(cached.inferredModel?.entityVersionHashesByName == model.entityVersionHashesByName, "\(name)")
        }
    }

    /// A copy of the library tests' Xcode 3 bundle (`Kitchen.xcdatamodeld`) in a new folder.
    static func copyOfXcode3Bundle() throws -> URL {
        let fixture = fixtures.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("OpenCoreDataTests/Fixtures/Xcode3/Kitchen.xcdatamodeld")
        let bundle = testFilesFolder.appendingPathComponent("cdtool-\(UUID().uuidString)/Kitchen.xcdatamodeld")
        try FileManager.default.createDirectory(
            at: bundle.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixture, to: bundle)
        return bundle
    }

    /// An Xcode 3 bundle (issue 37): `cdtool model` reads its `elements` archives, and
    /// `--upgrade` writes each version's `contents` beside them, with the same hashes.
    @Test func modelReadsAndUpgradesAnXcode3Bundle() throws {
        let bundle = try Self.copyOfXcode3Bundle()
        let before = try ModelFile.load(at: bundle)
        #expect(before.problemsPreventingUse.isEmpty)
        #expect(ModelDescription.text(of: before).contains("entity Knife : Utensil (class NSManagedObject)\n"))

        let lines = try ModelUpgrade.upgrade(at: bundle)
        #expect(
            lines == [
                "Kitchen.xcdatamodel: wrote 'contents' (5 entities, version hashes unchanged); 'elements' and 'layout' left in place",
                "Kitchen 2.xcdatamodel: wrote 'contents' (5 entities, version hashes unchanged); 'elements' and 'layout' left in place",
            ])
        for version in ["Kitchen", "Kitchen 2"] {
            let folder = bundle.appendingPathComponent("\(version).xcdatamodel")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("contents").path))
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("elements").path))
        }
        let after = try ModelFile.load(at: bundle)
        #expect(after.entityVersionHashesByName == before.entityVersionHashesByName)
        #expect(ModelDescription.text(of: after) == ModelDescription.text(of: before))
        #expect(
            try ModelUpgrade.upgrade(at: bundle.appendingPathComponent("Kitchen.xcdatamodel")) == [
                "Kitchen.xcdatamodel: already has 'contents' (today's format); left as it is"
            ])
        #expect(
            throws: CDToolError(
                "--upgrade takes a .xcdatamodel folder or .xcdatamodeld bundle, not Catalog.xcdatamodeld.mom")
        ) {
            try ModelUpgrade.upgrade(at: URL(fileURLWithPath: "/tmp/Catalog.xcdatamodeld.mom"))
        }
    }

    /// A version that cannot be upgraded leaves the whole bundle as it was; a `contents`
    /// that does not load is reported, not taken for an upgrade already made.
    @Test func upgradeWritesAllVersionsOrNone() throws {
        let bundle = try Self.copyOfXcode3Bundle()
        let broken = bundle.appendingPathComponent("Kitchen 2.xcdatamodel/elements")
        try Data("not an archive".utf8).write(to: broken)
        #expect(throws: CDToolError.self) { try ModelUpgrade.upgrade(at: bundle) }
        let first = bundle.appendingPathComponent("Kitchen.xcdatamodel/contents")
        #expect(!FileManager.default.fileExists(atPath: first.path))

        try Data("<model".utf8).write(to: first)
        let error = #expect(throws: CDToolError.self) {
            try ModelUpgrade.upgrade(at: bundle.appendingPathComponent("Kitchen.xcdatamodel"))
        }
        #expect(error?.description.contains("Kitchen.xcdatamodel/contents") == true, "\(String(describing: error))")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: first.deletingLastPathComponent().path)
        #expect(leftovers.sorted() == ["contents", "elements", "layout"])
    }

    @Test func invalidModelsAndBadPathsGiveClearErrors() throws {
        let invalid = try ModelFile.load(at: Self.fixtures.appendingPathComponent("Invalid.xcdatamodel"))
        let problems = invalid.problemsPreventingUse
        #expect(problems.contains("relationship 'Thing.parts' has a minimum count above its maximum"))
        #expect(problems.count >= 2, "\(problems)")
        let missing = Self.fixtures.appendingPathComponent("Missing.xcdatamodeld")
        #expect(throws: CDToolError("no model at \(missing.path)")) { try ModelFile.load(at: missing) }
        let notAModel = Self.fixtures.deletingLastPathComponent().appendingPathComponent("CDToolTests.swift")
        let error = #expect(throws: CDToolError.self) { try ModelFile.load(at: notAModel) }
        #expect(error?.description.contains("CDToolTests.swift") == true)
        #expect(error?.description.contains("\n") == false)
    }

    @Test func codegenFollowsXcodesSettingsOnlyWhenAsked() throws {
        let model = try ModelFile.load(at: Self.fixtures.appendingPathComponent("Catalog.xcdatamodeld"))
        var generator = CodeGenerator()
        #expect(
            try generator.files(for: model).map(\.name) == [
                "Archive+CoreDataClass.swift", "Archive+CoreDataProperties.swift",
                "Item+CoreDataClass.swift", "Item+CoreDataProperties.swift",
                "Shelf+CoreDataClass.swift", "Shelf+CoreDataProperties.swift",
            ])
        let item = try #require(try generator.files(for: model).first { $0.name == "Item+CoreDataProperties.swift" })
        #expect(item.contents.contains("    @Managed public var count: Int32\n"))
        #expect(item.contents.contains("    @Managed public var price: NSNumber?\n"))
        #expect(item.contents.contains("    @Managed public var shelf: Shelf?\n"))
        let shelf = try #require(try generator.files(for: model).first { $0.name == "Shelf+CoreDataProperties.swift" })
        #expect(shelf.contents.contains("    @Managed public var items: NSOrderedSet?\n"))
        #expect(
            shelf.contents.contains(
                "    public var cheapItems: [NSManagedObject]? { value(forKey: \"cheapItems\") as? [NSManagedObject] }\n"
            ))

        generator.followsCodegenSetting = true
        // Item is "class", Shelf "category", Archive manual.
        #expect(
            try generator.files(for: model).map(\.name) == [
                "Item+CoreDataClass.swift", "Item+CoreDataProperties.swift", "Shelf+CoreDataProperties.swift",
            ])
        let single = try generator.singleFile(named: "Catalog+CoreDataClasses.swift", for: model).contents
        #expect(single.contains("public class Item: NSManagedObject {"))
        #expect(!single.contains("public class Shelf"))
        #expect(single.contains("extension Shelf {"))
        #expect(!single.contains("Archive"))
    }
}
