import Foundation
import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

/// `Z_MODELCACHE` as OpenCoreData writes it: the store's model, compiled and compressed
/// with raw DEFLATE as Core Data does, when a store file is created and after a migration.
@Suite struct ModelCacheWritingTests {
    /// The raw `Z_CONTENT` rows of the store at `url`.
    private func cacheRows(_ url: URL) throws -> [Data] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { try Data.fetchAll($0, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") }
    }

    @Test func aNewStoreFileCachesItsModelCompressedAsCoreDataDoes() throws {
        let model = ModelSummary.richModel()
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try closeStores(of: context)
        let rows = try cacheRows(url)
        #expect(rows.count == 1)
        let blob = try #require(rows.first)
        // Raw DEFLATE: neither a plain property list nor a zlib stream (0x78 header).
        #expect(!blob.starts(with: Data("bplist".utf8)))
        #expect(blob.first != 0x78)
        let archive = try RawDeflate.inflate(blob)
        #expect(archive.starts(with: Data("bplist00".utf8)))
        let root = try KeyedArchive(data: archive).topObject(forKey: "root")
        #expect(root.className == "NSManagedObjectModel")

        let cached = try #require(try NSManagedObjectModel.cached(inStoreAt: url))
        #expect(ModelSummary.lines(of: cached) == ModelSummary.lines(of: model))
        #expect(cached.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(
            cached.isConfiguration(
                withName: nil, compatibleWithStoreMetadata: try NSPersistentStore.metadataForPersistentStore(with: url))
        )
    }

    /// A model built in code, changed after its store was made: the store's own cache is
    /// the only source model there is, so the migration finds it there, and afterwards the
    /// cache holds the new model.
    @Test func aStoreOfAModelBuiltInCodeMigratesFromItsCacheAndCachesTheNewModel() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(ModelBuilder.notesModel(), url: url)
        try context.performAndWait {
            let notebook = NSEntityDescription.insertNewObject(forEntityName: "Notebook", into: context)
            notebook.setValue("Ideas", forKey: "name")
            try context.save()
        }
        try closeStores(of: context)

        let changed = ModelBuilder.notesModel()
        changed.entitiesByName["Notebook"]!.properties.append(ModelBuilder.attribute("color", .stringAttributeType))
        #expect(changed.entityVersionHashesByName != ModelBuilder.notesModel().entityVersionHashesByName)
        let migrated = try makeContext(
            changed, url: url,
            options: [
                NSMigratePersistentStoresAutomaticallyOption: true,
                NSInferMappingModelAutomaticallyOption: true,
            ])
        let names = try migrated.performAndWait {
            try migrated.fetch(NSFetchRequest<NSManagedObject>(entityName: "Notebook")).map {
                $0.value(forKey: "name") as? String
            }
        }
        #expect(names == ["Ideas"])
        try closeStores(of: migrated)

        #expect(try cacheRows(url).count == 1)
        let cached = try #require(try NSManagedObjectModel.cached(inStoreAt: url))
        #expect(cached.entityVersionHashesByName == changed.entityVersionHashesByName)
        #expect(cached.entitiesByName["Notebook"]?.attributesByName["color"] != nil)
    }

    /// Without the cache (as in a store OpenCoreData wrote before it cached models), the
    /// same change has no source model and fails as Core Data does.
    @Test func withoutTheCacheTheSourceModelIsMissing() throws {
        let url = temporaryStoreURL()
        try closeStores(of: try makeContext(ModelBuilder.notesModel(), url: url))
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "DELETE FROM Z_MODELCACHE") }
        try queue.close()

        let changed = ModelBuilder.notesModel()
        changed.entitiesByName["Notebook"]!.properties.append(ModelBuilder.attribute("color", .stringAttributeType))
        let error = #expect(throws: NSError.self) {
            try makeContext(
                changed, url: url,
                options: [
                    NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                ])
        }
        #expect(error?.code == NSMigrationMissingSourceModelError)
    }
}
