import Foundation
import Synchronization
@testable import OpenCoreDataCore
import Testing

/// What the stores Core Data wrote on devices say about their models: the version
/// hashes computed here are the ones Core Data wrote, and the model Core Data cached in
/// each store (`Z_MODELCACHE`) reads back as the model that wrote it.
@Suite struct AppleStoreModelTests {
    @Test(arguments: AppleStoreFixtures.names)
    func oneVersionOfTheBundledModelHashesAsTheStoreRecords(_ name: String) throws {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: try AppleStoreFixtures.copyOfStore(name))
        let versions = try AppleStoreFixtures.modelVersions(name)
        let matching = versions.filter {
            $0.value.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
        }
        #expect(matching.count >= 1, "no version of \(name)'s model hashes as its store records")
        // Newer stores also record the checksum that staged migration names versions by.
        if let checksum = metadata["NSStoreModelVersionChecksumKey"] as? String {
            #expect(matching.values.contains { $0.versionChecksum == checksum })
        }
    }

    @Test(arguments: AppleStoreFixtures.names)
    func theCachedModelIsTheModelThatWroteTheStore(_ name: String) throws {
        let url = try AppleStoreFixtures.copyOfStore(name)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        guard let cached = try NSManagedObjectModel.cached(inStoreAt: url) else {
            // Only stores from before Core Data kept a cache (framework 320 here) have none.
            #expect((metadata["NSPersistenceFrameworkVersion"] as? Int ?? 0) < 600)
            #expect(throws: (any Error).self) {
                try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url)
            }
            return
        }
        #expect(cached.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url) == cached)
        // Same entities, properties and types as the bundled version that matches.
        let bundled = try #require(
            try AppleStoreFixtures.modelVersions(name).values.first {
                $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
            })
        #expect(Set(cached.entitiesByName.keys) == Set(bundled.entitiesByName.keys))
        for (entityName, entity) in bundled.entitiesByName {
            let other = try #require(cached.entitiesByName[entityName])
            #expect(Set(other.propertiesByName.keys) == Set(entity.propertiesByName.keys), "\(entityName)")
            #expect(other.superentity?.name == entity.superentity?.name)
            #expect(other.isAbstract == entity.isAbstract)
            for (attributeName, attribute) in entity.attributesByName {
                #expect(
                    other.attributesByName[attributeName]?.attributeType == attribute.attributeType,
                    "\(entityName).\(attributeName)")
            }
        }
    }

    @Test func aStoreWhoseModelIsNotBundledMigratesFromItsCachedModel() throws {
        // Moody's third-version store, opened by the fifth version loaded alone (no
        // bundle to search): only the store's own cached model can be the source.
        let url = try AppleStoreFixtures.copyOfStore("objcio__core-data__Moody_3")
        let bundle = try AppleStoreFixtures.modelBundle("objcio__core-data__Moody_3")
        let data = try Data(contentsOf: bundle.appendingPathComponent("Moody 5.xcdatamodel/contents"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "Loose-\(UUID().uuidString).xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try data.write(to: folder.appendingPathComponent("contents"))
        let destination = try NSManagedObjectModel.load(contentsOf: folder)
        #expect(destination.bundleURL == nil)

        let annotations = Mutex<[String]>([])
        let token = StoreDebugLog.addAnnotationObserver { message in
            if message.contains(url.path) { annotations.withLock { $0.append(message) } }
        }
        defer { StoreDebugLog.removeAnnotationObserver(token) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destination)
        // The fifth version has no Continent entity: the store's continents go, which a
        // migration does only when told it may.
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [
                NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                OpenCoreDataMigrationAllowsDataLossOption: true,
            ])
        #expect(annotations.withLock { $0 }.contains { $0.contains("Z_MODELCACHE") })
        let metadata = try #require(coordinator.persistentStores.first?.metadata)
        #expect(destination.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(
            try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Mood")) }
                > 0)
    }
}
