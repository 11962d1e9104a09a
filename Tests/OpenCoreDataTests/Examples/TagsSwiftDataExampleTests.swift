import Foundation
import OpenCoreData
import Testing

/// The Tags example's SwiftData variant (Examples/TagsSwiftData) beside its Core Data one
/// (Examples/Tags): the same commands print the same lines, and a store written by either
/// opens in the other, with no migration (the entity version hashes are equal).
@Suite struct TagsSwiftDataExampleTests {
    /// The Core Data variant's model, from its model file.
    static func coreDataModel() throws -> NSManagedObjectModel {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return try NSManagedObjectModel.load(contentsOf: root.appendingPathComponent("Examples/Tags/Tags.xcdatamodeld"))
    }

    /// The store both variants use by default in `app`'s home.
    static func store(of app: ExampleProcess) -> URL {
        app.home.appendingPathComponent("data/Tags/Tags.sqlite")
    }

    /// The entity version hashes in the store's metadata, which name the model it was made by.
    static func storedHashes(_ store: URL) throws -> [String: Data] {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
        return try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data])
    }

    @Test func theSameCommandsPrintTheSameLines() throws {
        let script: [[String]] = [
            ["tag", "shaking", "Earthquake 1", "--url", "https://example.com/1.jpg"],
            ["tag", "shaking", "Earthquake 2"],
            // Finder's order: "calm" before "Delta", "zone 9" before "zone 10".
            ["tag", "calm", "Lake"], ["tag", "Delta", "Pond"], ["tag", "zone 10", "Ten"], ["tag", "zone 9", "Nine"],
            [], ["list"], ["show", "shaking"], ["delete", "calm"], [],
            ["show", "calm"], ["delete", "nothing"],
        ]
        let coreData = ExampleProcess("Tags")
        let swiftData = ExampleProcess("TagsSwiftData")
        for arguments in script {
            let expected = try coreData.run(arguments)
            let actual = try swiftData.run(arguments)
            #expect(actual.status == expected.status, "\(arguments): \(actual.output)")
            #expect(actual.output == expected.output, "\(arguments)")
        }
        #expect(
            try swiftData.run().lines == [
                "Delta (1 image): Pond", "shaking (2 images): Earthquake 1, Earthquake 2",
                "zone 9 (1 image): Nine", "zone 10 (1 image): Ten",
            ])
    }

    @Test func aStoreTheCoreDataVariantWroteOpensInTheSwiftDataVariantAndBack() throws {
        let coreData = ExampleProcess("Tags")
        let swiftData = ExampleProcess("TagsSwiftData", sharingHomeWith: coreData)
        let model = try Self.coreDataModel()
        #expect(try coreData.run("tag", "shaking", "Earthquake 1", "--url", "https://example.com/1.jpg").status == 0)
        #expect(try coreData.run("tag", "shaking", "Earthquake 2").status == 0)
        #expect(try coreData.run("tag", "calm", "Lake").status == 0)
        #expect(try Self.storedHashes(Self.store(of: coreData)) == model.entityVersionHashesByName)

        // SwiftData reads Core Data's objects and relationships.
        #expect(
            try swiftData.run().lines == ["calm (1 image): Lake", "shaking (2 images): Earthquake 1, Earthquake 2"])
        #expect(
            try swiftData.run("show", "shaking").lines == [
                "- Earthquake 1 <https://example.com/1.jpg>", "- Earthquake 2",
            ])
        // …and writes: an image for a tag Core Data made, a new tag, a delete that cascades.
        let tagged = try swiftData.run("tag", "shaking", "Earthquake 3")
        #expect(tagged.status == 0, "\(tagged.output)")
        #expect(try swiftData.run("tag", "windy", "Kite", "--url", "https://example.com/kite.jpg").status == 0)
        #expect(try swiftData.run("delete", "calm").status == 0)
        #expect(
            try Self.storedHashes(Self.store(of: coreData)) == model.entityVersionHashesByName,
            "SwiftData did not migrate the store")

        // Core Data reads what SwiftData wrote, and writes again.
        #expect(
            try coreData.run().lines == [
                "shaking (3 images): Earthquake 1, Earthquake 2, Earthquake 3", "windy (1 image): Kite",
            ])
        #expect(try coreData.run("show", "windy").lines == ["- Kite <https://example.com/kite.jpg>"])
        let again = try coreData.run("tag", "windy", "Storm")
        #expect(again.status == 0, "\(again.output)")
        #expect(
            try swiftData.run().lines == [
                "shaking (3 images): Earthquake 1, Earthquake 2, Earthquake 3", "windy (2 images): Kite, Storm",
            ])
    }

    @Test func aStoreTheSwiftDataVariantMadeOpensInTheCoreDataVariant() throws {
        let swiftData = ExampleProcess("TagsSwiftData")
        let coreData = ExampleProcess("Tags", sharingHomeWith: swiftData)
        #expect(try swiftData.run("tag", "calm", "Lake", "--url", "https://example.com/lake.jpg").status == 0)
        #expect(try swiftData.run("tag", "calm", "Pond").status == 0)

        let model = try Self.coreDataModel()
        let store = Self.store(of: swiftData)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)
        #expect(metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)
        #expect(
            try Self.storedHashes(store) == model.entityVersionHashesByName,
            "the @Model classes hash as the model file's entities")
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        #expect(try coreData.run().lines == ["calm (2 images): Lake, Pond"])
        #expect(try coreData.run("show", "calm").lines == ["- Lake <https://example.com/lake.jpg>", "- Pond"])
        let deleted = try coreData.run("delete", "calm")
        #expect(deleted.status == 0, "\(deleted.output)")
        let listed = try swiftData.run()
        #expect(listed.status == 0 && listed.output.isEmpty, "the images went with their tag: \(listed.output)")
        #expect(try Self.storedHashes(store) == model.entityVersionHashesByName, "Core Data did not migrate the store")
    }

    @Test func aDataFolderUnderAFileIsOneClearLine() throws {
        let app = ExampleProcess("TagsSwiftData")
        let file = app.home.appendingPathComponent("notes.txt")
        try FileManager.default.createDirectory(at: app.home, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: file)
        let refused = try app.run("tag", "calm", "Lake", "--data", file.appendingPathComponent("Tags").path)
        #expect(refused.status == 1)
        #expect(
            refused.lines == [
                "Error: cannot make the folder \(file.path)/Tags: \(file.path) is a file, not a folder; choose another folder with --data."
            ], "\(refused.output)")
    }
}
