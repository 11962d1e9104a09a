import Foundation
@testable import OpenCoreDataCore
import OpenCoreData
import Testing

/// Xcode 3 model folders (issue 37): a `.xcdatamodel` holding an `elements` keyed archive
/// (and the diagram's `layout`) instead of `contents`, inside a `.xcdatamodeld` bundle as
/// Xcode 3.2 made them.
///
/// The fixture `Fixtures/Xcode3/Kitchen.xcdatamodeld` is made by ``Xcode3Archive`` from
/// `Fixtures/Xcode3/Sources/*.xml`: Core Data's archive of each model, with every model
/// object re-classed as the editor's subclass (the root an `XDPMModel`, as in Xcode 3's
/// files), its Core Data class kept as the superclass in `$classes`. Regenerate it with
/// `OPENCOREDATA_WRITE_FIXTURES=1 swift test --filter Xcode3ModelTests`.
@Suite struct Xcode3ModelTests {
    static let versions = ["Kitchen", "Kitchen 2"]

    private func bundle() throws -> URL { try ModelFixtures.url("Xcode3/Kitchen.xcdatamodeld") }

    private func source(_ version: String) throws -> NSManagedObjectModel {
        try ModelFixtures.load("Xcode3/Sources/\(version).xml")
    }

    @Test func theFixtureIsAnArchiveOfTheEditorsClasses() throws {
        let elements = try bundle().appendingPathComponent("Kitchen.xcdatamodel/elements")
        let root = try KeyedArchive(data: Data(contentsOf: elements)).topObject(forKey: "root")
        #expect(root.className == "XDPMModel")
        #expect(root.classChain == ["XDPMModel", "NSManagedObjectModel", "NSObject"])
        let entities = try #require(try root.field("NSEntities")?.entries())
        #expect(entities.allSatisfy { $0.value.className == "XDPMEntity" })
        #expect(
            !FileManager.default.fileExists(
                atPath: elements.deletingLastPathComponent().appendingPathComponent("contents").path))
    }

    @Test func aFolderWithOnlyElementsLoadsAsTheModelItWasMadeFrom() throws {
        for version in Self.versions {
            let folder = try bundle().appendingPathComponent("\(version).xcdatamodel")
            let model = try NSManagedObjectModel.load(contentsOf: folder)
            let expected = try source(version)
            #expect(model.entityVersionHashesByName == expected.entityVersionHashesByName, "\(version)")
            #expect(NSManagedObjectModel(contentsOf: folder) != nil)
        }
        let model = try NSManagedObjectModel.load(contentsOf: bundle().appendingPathComponent("Kitchen.xcdatamodel"))
        let recipe = try #require(model.entitiesByName["Recipe"])
        #expect(recipe.managedObjectClassName == "Recipe")
        #expect(recipe.attributesByName["rating"]?.defaultValue as? Int16 == 0)
        #expect(
            recipe.attributesByName["rating"]?.validationPredicates.map(\.predicateFormat) == [
                "SELF >= 0", "SELF <= 5",
            ])
        #expect(recipe.attributesByName["thumbnail"]?.valueTransformerName == "ImageToDataTransformer")
        #expect(recipe.relationshipsByName["ingredients"]?.inverseRelationship?.name == "recipe")
        #expect(recipe.relationshipsByName["ingredients"]?.deleteRule == .cascadeDeleteRule)
        let category = try #require(model.entitiesByName["Category"])
        #expect(category.userInfo?["note"] as? String == "kept since 2009")
        let favourites = try #require(category.propertiesByName["favourites"] as? NSFetchedPropertyDescription)
        #expect(favourites.fetchRequest?.predicate?.predicateFormat == "category == $FETCH_SOURCE AND rating >= 4")
        #expect(model.entitiesByName["Knife"]?.superentity?.name == "Utensil")
        #expect(model.entitiesByName["Utensil"]?.isAbstract == true)
        #expect(model.fetchRequestTemplate(forName: "recipesNamed")?.entityName == "Recipe")
        #expect(
            model.entities(forConfigurationName: "Cookbook")?.map { $0.name ?? "" }.sorted() == [
                "Category", "Ingredient", "Recipe",
            ])
    }

    @Test func theBundleLoadsEveryVersionAndItsCurrentOne() throws {
        let versions = try NSManagedObjectModel.versions(in: bundle())
        #expect(versions.versionNames == Self.versions)
        #expect(versions.currentVersionName == "Kitchen 2")
        #expect(versions.currentModel.entitiesByName["Recipe"]?.attributesByName["servings"] != nil)
        let current = try #require(NSManagedObjectModel(contentsOf: bundle()))
        #expect(current.entityVersionHashesByName == (try source("Kitchen 2")).entityVersionHashesByName)
    }

    /// A store made with the Xcode 3 model opens with the same model written as XML
    /// (same hashes, so no migration), and migrates to the bundle's current version.
    @Test func aStoreMadeWithTheOldModelOpensAndMigrates() throws {
        let url = temporaryStoreURL("Kitchen")
        let old = try NSManagedObjectModel.load(contentsOf: bundle().appendingPathComponent("Kitchen.xcdatamodel"))
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: old)
            let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let recipe = NSEntityDescription.insertNewObject(forEntityName: "Recipe", into: context)
                recipe.setValue("Soup", forKey: "name")
                let salt = NSEntityDescription.insertNewObject(forEntityName: "Ingredient", into: context)
                salt.setValue("Salt", forKey: "name")
                salt.setValue(recipe, forKey: "recipe")
                try context.save()
            }
            try coordinator.remove(store)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(try source("Kitchen").isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let current = try #require(NSManagedObjectModel(contentsOf: bundle()))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: current)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let recipes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Recipe"))
            #expect(recipes.map { $0.value(forKey: "name") as? String } == ["Soup"])
            #expect(recipes.first?.value(forKey: "servings") as? Int16 == 2)
            #expect((recipes.first?.value(forKey: "ingredients") as? Set<NSManagedObject>)?.count == 1)
        }
    }

    @Test func anArchiveThatIsNotAModelNamesTheFileTheClassAndTheRule() throws {
        let folder = try ModelFixtures.temporaryFolder().appendingPathComponent("Diagram.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var writer = KeyedArchiveWriter()
        let root = writer.object(classChain: ["XDDiagram", "NSObject"], fields: ["name": writer.string("Kitchen")])
        try writer.data(root: root).write(to: folder.appendingPathComponent("elements"))
        let error = try #require(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: folder) }
        #expect(error.description.contains("Diagram.xcdatamodel/elements"), "\(error)")
        #expect(error.description.contains("XDDiagram (XDDiagram → NSObject)"), "\(error)")
        #expect(error.description.contains("not a kind of NSManagedObjectModel"), "\(error)")

        try Data("not an archive".utf8).write(to: folder.appendingPathComponent("elements"), options: .atomic)
        #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: folder) }

        try FileManager.default.removeItem(at: folder.appendingPathComponent("elements"))
        let empty = try #require(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: folder) }
        #expect(
            empty.description.contains(
                "neither a 'contents' file (Xcode 4 and later) nor an 'elements' archive (Xcode 3)"))
    }

    /// An entity of an unknown editor class with no Core Data ancestor is refused by name,
    /// never read as something else.
    @Test func anObjectWithoutACoreDataAncestorIsRefusedByName() throws {
        let model = try source("Kitchen")
        let data = try Xcode3Archive.elements(
            of: model, classes: Xcode3Archive.editorClasses.merging(["NSEntityDescription": "XDWidget"]) { $1 },
            orphans: ["XDWidget"])
        let folder = try ModelFixtures.temporaryFolder().appendingPathComponent("Widgets.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try data.write(to: folder.appendingPathComponent("elements"))
        let error = try #require(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: folder) }
        #expect(error.description.contains("XDWidget"), "\(error)")
    }

    /// Writes the fixture when asked (see the suite's comment); either way checks that the
    /// committed archives read as the models their XML sources describe.
    @Test func theFixtureMatchesItsSources() throws {
        let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Xcode3")
        if ProcessInfo.processInfo.environment["OPENCOREDATA_WRITE_FIXTURES"] == "1" {
            try Xcode3Archive.writeFixture(
                into: committed.appendingPathComponent("Kitchen.xcdatamodeld"), from: committed)
        }
        for version in Self.versions {
            let made = try NSManagedObjectModel.load(
                contentsOf: committed.appendingPathComponent("Sources/\(version).xml"))
            let archived = try NSManagedObjectModel.load(
                contentsOf: committed.appendingPathComponent("Kitchen.xcdatamodeld/\(version).xcdatamodel"))
            #expect(archived.entityVersionHashesByName == made.entityVersionHashesByName, "\(version)")
            #expect(ModelFingerprint.lines(of: archived) == ModelFingerprint.lines(of: made), "\(version)")
        }
    }
}

/// Makes Xcode 3-shaped model archives: Core Data's keyed archive of a model with each
/// model object's class replaced by an editor subclass of it.
enum Xcode3Archive {
    /// The editor's class for each Core Data class. `XDPMModel` is the root class Xcode 3's
    /// files are known to have; the others follow its naming and only matter as names
    /// the reader does not know.
    static let editorClasses = [
        "NSManagedObjectModel": "XDPMModel", "NSEntityDescription": "XDPMEntity",
        "NSAttributeDescription": "XDPMAttribute", "NSRelationshipDescription": "XDPMRelationship",
        "NSFetchedPropertyDescription": "XDPMFetchedProperty",
    ]

    /// The `elements` archive of `model`: its compiled archive with the classes of
    /// `classes` replaced, their Core Data class kept in `$classes` except for `orphans`,
    /// whose only ancestor is `NSObject`.
    static func elements(
        of model: NSManagedObjectModel, classes: [String: String] = editorClasses, orphans: Set<String> = []
    ) throws -> Data {
        guard case var .dictionary(top) = try BinaryPropertyListReader(model.compiledModelData()).read(),
            case var .array(objects)? = top["$objects"]
        else { throw BinaryPropertyListError(description: "not a keyed archive") }
        for (index, object) in objects.enumerated() {
            guard case var .dictionary(info) = object, case let .string(name)? = info["$classname"],
                let editor = classes[name], case let .array(chain)? = info["$classes"]
            else { continue }
            info["$classname"] = .string(editor)
            info["$classes"] = .array([.string(editor)] + (orphans.contains(editor) ? [.string("NSObject")] : chain))
            objects[index] = .dictionary(info)
        }
        top["$objects"] = .array(objects)
        return BinaryPropertyListWriter.data(for: .dictionary(top))
    }

    /// A stand-in `layout` (the diagram's positions, which loading never reads).
    static func layout(of model: NSManagedObjectModel) -> Data {
        var writer = KeyedArchiveWriter()
        let positions = model.entities.enumerated().map { index, entity in
            (key: entity.name ?? "", value: writer.string("{\(40 + 220 * index), 40}"))
        }
        let root = writer.dictionary(positions)
        return writer.data(root: root)
    }

    /// Writes `Kitchen.xcdatamodeld` from the sources in `folder`.
    static func writeFixture(into bundle: URL, from folder: URL) throws {
        try? FileManager.default.removeItem(at: bundle)
        for version in Xcode3ModelTests.versions {
            let model = try NSManagedObjectModel.load(
                contentsOf: folder.appendingPathComponent("Sources/\(version).xml"))
            let directory = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try elements(of: model).write(to: directory.appendingPathComponent("elements"))
            try layout(of: model).write(to: directory.appendingPathComponent("layout"))
        }
        let current = try PropertyListSerialization.data(
            fromPropertyList: ["_XCCurrentVersionName": "Kitchen 2.xcdatamodel"], format: .xml, options: 0)
        try current.write(to: bundle.appendingPathComponent(".xccurrentversion"))
    }
}
