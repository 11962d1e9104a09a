import Foundation
@testable import OpenCoreDataCore
import Synchronization
import Testing

/// `NSStagedMigrationManager`: a version 1 journal store opens under version 4 in one
/// `addPersistentStore`, through two lightweight steps and a custom stage whose handlers
/// change data under the old and the new model.
@Suite struct StagedMigrationTests {
    private func version(_ name: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: try ModelFixtures.url("Journal.xcdatamodeld/\(name).xcdatamodel"))
    }

    private func makeVersion1Store() throws -> URL {
        let url = temporaryStoreURL("Journal")
        let context = try makeContext(try version("Journal"), url: url)
        try context.performAndWait {
            for index in 0..<3 {
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue("entry \(index)", forKey: "title")
                entry.setValue(String(repeating: "word ", count: index + 1), forKey: "body")
            }
            try context.save()
        }
        try context.persistentStoreCoordinator?.persistentStores.forEach {
            try context.persistentStoreCoordinator?.remove($0)
        }
        return url
    }

    @Test func versionOneReachesVersionFourThroughLightweightAndCustomStages() throws {
        let url = try makeVersion1Store()
        let (v1, v2, v3, v4) = (
            try version("Journal"), try version("Journal 2"), try version("Journal 3"), try version("Journal 4")
        )
        let created = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let events = Mutex<[String]>([])
        let custom = NSCustomMigrationStage(
            migratingFrom: NSManagedObjectModelReference(model: v3, versionChecksum: v3.versionChecksum),
            to: NSManagedObjectModelReference(model: v4, versionChecksum: v4.versionChecksum))
        custom.willMigrateHandler = { manager, _ in
            // Under version 3: count the words of each entry into wordCount.
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                for entry in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry")) {
                    let words = (entry.value(forKey: "text") as? String ?? "").split(separator: " ").count
                    entry.setValue(Int64(words), forKey: "wordCount")
                }
                try context.save()
            }
            events.withLock {
                $0.append("will (Item: \(manager.container?.managedObjectModel.entitiesByName["Item"] != nil))")
            }
        }
        custom.didMigrateHandler = { manager, _ in
            // Under version 4: fill the new `created` of every item.
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                for item in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) {
                    item.setValue(created, forKey: "created")
                }
                try context.save()
            }
            events.withLock {
                $0.append("did (Item: \(manager.container?.managedObjectModel.entitiesByName["Item"] != nil))")
            }
        }
        let manager = NSStagedMigrationManager([
            NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum, v3.versionChecksum]), custom,
        ])

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v4)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        #expect(events.withLock { $0 } == ["will (Item: false)", "did (Item: true)"])
        #expect(manager.container == nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let entries = try context.fetch(request)
            #expect(entries.map { $0.value(forKey: "wordCount") as? Int64 } == [1, 2, 3])
            #expect(entries.allSatisfy { $0.value(forKey: "created") as? Date == created })
            #expect(entries.map { $0.value(forKey: "text") as? String } == ["word ", "word word ", "word word word "])
        }
    }

    /// An app that ships a newer plan than its model (or an older app on a plan it shares)
    /// stops at its own model: the later stages run when a model of theirs opens the store.
    @Test func theStagesStopAtTheCoordinatorsModel() throws {
        let url = try makeVersion1Store()
        let (v1, v2, v3) = (try version("Journal"), try version("Journal 2"), try version("Journal 3"))
        let manager = NSStagedMigrationManager([
            NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum, v3.versionChecksum])
        ])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v2)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata["NSStoreModelVersionChecksumKey"] as? String == v2.versionChecksum)

        let later = NSPersistentStoreCoordinator(managedObjectModel: v3)
        try later.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        for store in later.persistentStores { try later.remove(store) }
        metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata["NSStoreModelVersionChecksumKey"] as? String == v3.versionChecksum)
    }

    @Test func aStoreOfAVersionNoStageNamesIsRefused() throws {
        let url = try makeVersion1Store()
        let (v3, v4) = (try version("Journal 3"), try version("Journal 4"))
        let manager = NSStagedMigrationManager([NSLightweightMigrationStage([v3.versionChecksum, v4.versionChecksum])])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v4)
        #expect {
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        } throws: { error in
            (error as NSError).code == NSMigrationMissingSourceModelError
        }
        // Still version 1.
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(try version("Journal").isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func versionChecksumIsTheStoresChecksum() throws {
        let url = try makeVersion1Store()
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata["NSStoreModelVersionChecksumKey"] as? String == (try version("Journal")).versionChecksum)
    }
}
