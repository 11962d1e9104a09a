@testable import OpenCoreDataCore
import Testing

/// Models found among a bundle's resources: `mergedModel(from:)`, its metadata-matching
/// form, and containers created by name.
@Suite struct ModelResourceSearchTests {
    /// A bundle folder holding a compiled `Library.momd`, a source `Library.xcdatamodeld`
    /// of the same name (the compiled one wins) and a source `Xcode4.xcdatamodel`.
    private func bundle() throws -> Bundle {
        let fixtures = CompiledModelTests.fixtures.deletingLastPathComponent()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ModelResourceSearchTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for item in ["Compiled/Library.momd", "Library.xcdatamodeld", "Xcode4.xcdatamodel"] {
            let source = fixtures.appendingPathComponent(item)
            try FileManager.default.copyItem(at: source, to: folder.appendingPathComponent(source.lastPathComponent))
        }
        return try #require(Bundle(url: folder))
    }

    @Test func findsOneModelPerNamePreferringCompiledOnes() throws {
        let found = ModelResourceSearch.modelURLs(in: try bundle()).map(\.lastPathComponent)
        #expect(found == ["Library.momd", "Xcode4.xcdatamodel"])
    }

    @Test func mergedModelHoldsEveryModelsEntitiesConfigurationsAndTemplates() throws {
        let model = try #require(NSManagedObjectModel.mergedModel(from: [try bundle()]))
        #expect(
            model.entities.compactMap(\.name).sorted() == [
                "Athlete", "Author", "Book", "Ebook", "Player", "Squad", "Tag",
            ])
        #expect(
            model.entitiesByName["Book"]?.attributesByName["subtitle"] != nil,
            "the current version of the compiled bundle")
        #expect(model.configurations == ["Catalog", "Labels"])
        #expect(model.fetchRequestTemplate(forName: "BooksByAuthor")?.entityName == "Book")
        #expect(NSManagedObjectModel.mergedModel(from: []) != nil, "no bundles: an empty model")
    }

    @Test func mergedModelForStoreMetadataPicksTheVersionTheStoreWasMadeWith() throws {
        let resources = try bundle()
        // A store made with the first version of the library and the Xcode 4 model.
        let versions = try NSManagedObjectModel.versions(in: resources.bundleURL.appendingPathComponent("Library.momd"))
        let first = try #require(versions.modelsByVersionName["Library"])
        let other = try NSManagedObjectModel.load(
            contentsOf: resources.bundleURL.appendingPathComponent("Xcode4.xcdatamodel"))
        let original = try #require(NSManagedObjectModel(byMerging: [first, other]))
        let url = temporaryStoreURL()
        _ = try makeContext(original, url: url)
        let metadata = try NSPersistentStore.metadataForPersistentStore(with: url)

        let matched = try #require(NSManagedObjectModel.mergedModel(from: [resources], forStoreMetadata: metadata))
        #expect(
            matched.entitiesByName["Book"]?.attributesByName["subtitle"] == nil, "the version the store was made with")
        #expect(matched.entityVersionHashesByName == original.entityVersionHashesByName)
        #expect(try makeContext(matched, url: url).persistentStoreCoordinator?.persistentStores.count == 1)

        var foreign = metadata
        foreign[NSStoreModelVersionHashesKey] = ["Nobody": Data([1])]
        #expect(NSManagedObjectModel.mergedModel(from: [resources], forStoreMetadata: foreign) == nil)
    }

    @Test func containerNamedAfterAMissingModelReportsIt() throws {
        let container = NSPersistentContainer(name: "NoSuchModel-\(UUID().uuidString)")
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: temporaryStoreURL())]
        var reported: Error?
        container.loadPersistentStores { _, error in reported = error }
        #expect((reported as NSError?)?.localizedDescription.contains("was found in the app's bundles") == true)
    }
}
