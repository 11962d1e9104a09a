import Foundation
import OpenCoreData
import XCTest

/// A library's Core Data stack as it is written for Apple platforms: the model is found by
/// its compiled name among the target's resources (`Model.momd`, made at build time by the
/// `OpenCoreDataModelCompiler` plugin from the `.xcdatamodeld` beside this file).
final class CompiledModelResourceTests: XCTestCase {
    /// The source bundle, as the target copies it among its resources.
    private func sourceBundle() throws -> URL {
        try XCTUnwrap(Bundle.module.url(forResource: "Model", withExtension: "xcdatamodeld"))
    }

    func testTheMomdIsAResourceAndLoadsAsTheSourceModel() throws {
        let url = try XCTUnwrap(
            Bundle.module.url(forResource: "Model", withExtension: "momd"),
            "the plugin's Model.momd is not among the resources")
        let model = try XCTUnwrap(NSManagedObjectModel(contentsOf: url))
        let source = try XCTUnwrap(NSManagedObjectModel(contentsOf: try sourceBundle()))
        XCTAssertEqual(model.entities.map { $0.name }, source.entities.map { $0.name })
        XCTAssertFalse(model.entities.isEmpty)
        XCTAssertEqual(model.entityVersionHashesByName, source.entityVersionHashesByName)
        for entity in source.entities {
            let compiled = try XCTUnwrap(model.entitiesByName[entity.name ?? ""])
            XCTAssertEqual(
                Set(compiled.propertiesByName.keys), Set(entity.propertiesByName.keys),
                "properties of \(entity.name ?? "")")
        }
    }

    func testTheMomdHoldsEveryVersionAndNamesTheCurrentOne() throws {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Model", withExtension: "momd"))
        let files = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
        XCTAssertEqual(files, ["Library 2.mom", "Library.mom", "VersionInfo.plist"])
        let info = try XCTUnwrap(
            PropertyListSerialization.propertyList(
                from: Data(contentsOf: url.appendingPathComponent("VersionInfo.plist")), format: nil) as? [String: Any])
        XCTAssertEqual(info["NSManagedObjectModel_CurrentVersionName"] as? String, "Library 2")
        let versions = try NSManagedObjectModel.versions(in: url)
        let sources = try NSManagedObjectModel.versions(in: try sourceBundle())
        XCTAssertEqual(versions.versionNames, sources.versionNames)
        XCTAssertEqual(versions.currentVersionName, sources.currentVersionName)
        let hashes = try XCTUnwrap(info["NSManagedObjectModel_VersionHashes"] as? [String: Any])
        for name in sources.versionNames {
            let expected = try XCTUnwrap(sources.modelsByVersionName[name]).entityVersionHashesByName
            XCTAssertEqual(versions.modelsByVersionName[name]?.entityVersionHashesByName, expected, "version \(name)")
            XCTAssertEqual(
                (hashes[name] as? [String: Any])?.compactMapValues { $0 as? Data }, expected,
                "VersionInfo.plist hashes of \(name)")
        }
    }

    func testALoneModelCompilesToAMom() throws {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Single", withExtension: "mom"))
        let model = try XCTUnwrap(NSManagedObjectModel(contentsOf: url))
        let source = try XCTUnwrap(
            NSManagedObjectModel(
                contentsOf: try XCTUnwrap(Bundle.module.url(forResource: "Single", withExtension: "xcdatamodel"))))
        XCTAssertEqual(model.entityVersionHashesByName, source.entityVersionHashesByName)
    }

    func testAContainerSavesWithTheCompiledModel() throws {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Model", withExtension: "momd"))
        let model = try XCTUnwrap(NSManagedObjectModel(contentsOf: url))
        let container = NSPersistentContainer(name: "Model", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        XCTAssertNil(loadError)
        let book = NSManagedObject(
            entity: try XCTUnwrap(model.entitiesByName["Book"]), insertInto: container.viewContext)
        book.setValue("Dune", forKey: "title")
        try container.viewContext.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
        XCTAssertEqual(try container.viewContext.fetch(request).map { $0.value(forKey: "title") as? String }, ["Dune"])
    }
}
