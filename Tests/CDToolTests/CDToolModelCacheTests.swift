@testable import CDToolCore
import GRDB
import OpenCoreData
import Testing

/// A store that caches its model (as Core Data's do) is inspected and dumped with that
/// model's real names, not the lower-cased ones the tables give.
@Suite struct CDToolModelCacheTests {
    /// The library model and its Z_MODELCACHE form, from the library tests' fixtures.
    static let compiled = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../OpenCoreDataTests/Fixtures/Compiled").standardized

    /// A store of the library model with one e-book, whose Z_MODELCACHE holds `cache` in
    /// place of the model OpenCoreData cached.
    private func store(cache: Data) throws -> URL {
        let model = try NSManagedObjectModel.load(contentsOf: Self.compiled.appendingPathComponent("Library.mom"))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "CDToolModelCacheTests-\(UUID().uuidString)/Library.sqlite")
        let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Ebook", into: context)
            book.setValue("Notes", forKey: "title")
            book.setValue(Int64(42), forKey: "fileSize")
            try context.save()
        }
        let db = try DatabaseQueue(path: url.path)
        try db.write { try $0.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", arguments: [cache]) }
        try db.close()
        return url
    }

    @Test func inspectAndDumpUseTheCachedModel() throws {
        let url = try store(cache: try Data(contentsOf: Self.compiled.appendingPathComponent("Library.modelcache")))
        let inspection = try StoreInspection.inspect(storeAt: url, model: nil)
        #expect(inspection.inferredModelSource == .modelCache)
        #expect(inspection.text.contains("model: the compiled model cached in Z_MODELCACHE"))
        #expect(inspection.inferredModel?.entitiesByName["Ebook"]?.attributesByName["fileSize"] != nil)

        var output = ""
        var dump = ObjectDump(storeURL: url)
        dump.entityName = "Ebook"
        try dump.run(output: { output += $0 }, progress: { _ in })
        let objects = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        #expect(objects.count == 1)
        #expect(objects.first?["fileSize"] as? Int == 42, "the cached model's name, not the table's 'filesize'")
    }

    @Test func damagedCacheFallsBackToTheTablesSayingWhy() throws {
        let url = try store(cache: Data([0x01, 0x02, 0x03]))
        let inspection = try StoreInspection.inspect(storeAt: url, model: nil)
        guard case let .tablesAfterUnreadableCache(reason)? = inspection.inferredModelSource else {
            Issue.record(
                "expected the tables after an unreadable cache, got \(String(describing: inspection.inferredModelSource))"
            )
            return
        }
        #expect(reason.contains("Z_MODELCACHE"))
        #expect(inspection.inferredModel?.entitiesByName["Ebook"]?.attributesByName["filesize"] != nil)
    }

    /// A store Core Data wrote on a device (objc.io's Moody, from ../shared/fixtures).
    @Test func aStoreCoreDataWroteIsReadWithTheModelItCached() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../shared/fixtures/apple-stores/objcio__core-data__Moody").standardized
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "CDToolModelCacheTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm"] {
            try FileManager.default.copyItem(
                at: fixture.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let url = folder.appendingPathComponent("store.sqlite")
        let inspection = try StoreInspection.inspect(storeAt: url, model: nil)
        #expect(inspection.inferredModelSource == .modelCache)
        #expect(inspection.inferredModel?.entitiesByName["GeographicRegion"]?.isAbstract == true)

        var output = ""
        var dump = ObjectDump(storeURL: url)
        dump.entityName = "Mood"
        try dump.run(output: { output += $0 }, progress: { _ in })
        let moods = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        #expect(moods.count == 4)
        #expect(
            moods.allSatisfy { $0["remoteIdentifier"] != nil },
            "the cached model's names, not the tables' lower-cased ones")
    }
}
