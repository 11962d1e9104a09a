import Foundation
import GRDB
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// Migrations refuse to delete rows nobody asked them to delete (issue 31): rows of an
/// entity the destination model lacks, and rows of no entity of the source model, stop
/// every kind of migration, naming the entities and row counts, unless a mapping model
/// removes the entity or `OpenCoreDataMigrationAllowsDataLossOption` is set. A migration
/// that fails leaves the store file's bytes as they were.
@Suite struct MigrationDataLossTests {
    static var automatic: [AnyHashable: Any] {
        [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
    }
    static let groceries = "gaoyve__GroceryDude__DefaultData_fw641"

    private func journal(_ name: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: try ModelFixtures.url("Journal.xcdatamodeld/\(name).xcdatamodel"))
    }

    private func context(
        _ model: NSManagedObjectModel, at url: URL, options: [AnyHashable: Any]? = nil
    ) throws -> NSManagedObjectContext {
        try makeContext(model, url: url, options: options)
    }

    private func count(_ entity: String, in context: NSManagedObjectContext) throws -> Int {
        try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity)) }
    }

    /// A store of the journal's first version with one entry and `drafts` drafts (Draft is
    /// gone from the second version).
    private func journalStore(drafts: Int) throws -> URL {
        let url = temporaryStoreURL("Journal")
        let context = try context(try journal("Journal"), at: url)
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context).setValue("kept", forKey: "title")
            for index in 0..<drafts {
                NSEntityDescription.insertNewObject(forEntityName: "Draft", into: context).setValue(
                    "draft \(index)", forKey: "text")
            }
            try context.save()
        }
        try closeStores(of: context)
        return url
    }

    private func isDataLoss(_ error: any Error, naming parts: [String]) -> Bool {
        let error = error as NSError
        return error.domain == NSCocoaErrorDomain && error.code == NSMigrationError
            && parts.allSatisfy { error.localizedDescription.contains($0) }
            && error.localizedDescription.contains("OpenCoreDataMigrationAllowsDataLossOption")
    }

    /// The bytes of a store's files, and which of its journal files exist.
    private func snapshot(_ url: URL) throws -> (Data, [String]) {
        let journals = ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: url.path + $0) }
        return (try Data(contentsOf: url), journals)
    }

    // MARK: Automatic migration at opening

    @Test func automaticMigrationRefusesToDropAnEntityWithRows() throws {
        let url = try journalStore(drafts: 2)
        #expect {
            _ = try context(try journal("Journal 2"), at: url, options: Self.automatic)
        } throws: { isDataLoss($0, naming: ["2 rows of entity 'Draft'", url.path, "renaming identifier"]) }
        // Untouched: the first version still opens it, drafts and all.
        let old = try context(try journal("Journal"), at: url)
        #expect(try count("Draft", in: old) == 2)
        try closeStores(of: old)
    }

    @Test func theOptionLetsAutomaticMigrationDropThem() throws {
        let url = try journalStore(drafts: 2)
        var options = Self.automatic
        options[OpenCoreDataMigrationAllowsDataLossOption] = true
        let migrated = try context(try journal("Journal 2"), at: url, options: options)
        #expect(try count("Entry", in: migrated) == 1)
        try closeStores(of: migrated)
    }

    @Test func anEntityWithoutRowsMayGo() throws {
        let url = try journalStore(drafts: 0)
        let migrated = try context(try journal("Journal 2"), at: url, options: Self.automatic)
        #expect(try count("Entry", in: migrated) == 1)
        try closeStores(of: migrated)
    }

    @Test func rowsOfNoKnownEntityStopTheMigration() throws {
        let url = try journalStore(drafts: 0)
        let database = try DatabaseQueue(path: url.path)
        // A row whose entity number the model does not have, as a newer app version or a
        // damaged store may leave.
        try database.write { try $0.execute(sql: "INSERT INTO ZENTRY (Z_PK, Z_ENT, Z_OPT) VALUES (900, 77, 1)") }
        try database.close()
        #expect {
            _ = try context(try journal("Journal 2"), at: url, options: Self.automatic)
        } throws: {
            isDataLoss(
                $0, naming: ["1 row of table ZENTRY with entity number 77, which is no entity of the source model"])
        }
    }

    @Test func aFailedMigrationLeavesARollbackJournalStoreByteForByte() throws {
        // Core Data wrote this store with a rollback journal; the migration to its own
        // model plus a required attribute no row has fails after copying every row.
        let url = try AppleStoreFixtures.copyOfStore(Self.groceries)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let versions = try AppleStoreFixtures.modelVersions(Self.groceries)
        let name = try #require(
            versions.first { $0.value.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }?.key)
        let model = try NSManagedObjectModel.load(
            contentsOf: try AppleStoreFixtures.modelBundle(Self.groceries).appendingPathComponent("\(name).xcdatamodel")
        )
        let item = try #require(model.entitiesByName["Item"])
        item.properties += [ModelBuilder.attribute("barcode", .stringAttributeType, optional: false)]
        let before = try snapshot(url)
        #expect(before.1.isEmpty, "the fixture is a rollback-journal store")
        #expect {
            _ = try context(model, at: url, options: Self.automatic)
        } throws: { error in
            (error as NSError).code == NSMigrationError && (error as NSError).localizedDescription.contains("barcode")
        }
        let after = try snapshot(url)
        #expect(after.0 == before.0, "the store's bytes changed")
        #expect(after.1.isEmpty, "left behind: \(after.1)")
    }

    @Test func aModelOfAnotherAppIsRefusedAndTheStoreKeepsItsBytes() throws {
        // Any model that does not fit opens a store with automatic migration from the
        // model Core Data cached in it: every entity would go.
        let url = try AppleStoreFixtures.copyOfStore(Self.groceries)
        let other = ModelBuilder.entity("Bank")
        other.properties = [ModelBuilder.attribute("name", .stringAttributeType)]
        let before = try snapshot(url)
        #expect {
            _ = try context(ModelBuilder.model(other), at: url, options: Self.automatic)
        } throws: {
            isDataLoss(
                $0,
                naming: [
                    "399 rows of entity 'Item'", "18 rows of entity 'LocationAtHome'",
                    "17 rows of entity 'LocationAtShop'", "8 rows of entity 'Unit'",
                ])
        }
        let after = try snapshot(url)
        #expect(after.0 == before.0, "the store's bytes changed")
        #expect(after.1.isEmpty, "left behind: \(after.1)")
    }

    // MARK: Staged migration

    @Test func aStagedMigrationRefusesToo() throws {
        func model(withDraft: Bool) -> NSManagedObjectModel {
            let note = ModelBuilder.entity("Note")
            note.properties = [ModelBuilder.attribute("text", .stringAttributeType)]
            guard withDraft else { return ModelBuilder.model(note) }
            let draft = ModelBuilder.entity("Draft")
            draft.properties = [ModelBuilder.attribute("text", .stringAttributeType)]
            return ModelBuilder.model(draft, note)
        }
        let (v1, v2) = (model(withDraft: true), model(withDraft: false))
        let url = temporaryStoreURL()
        let first = try context(v1, at: url)
        try first.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Draft", into: first).setValue("unsent", forKey: "text")
            try first.save()
        }
        try closeStores(of: first)
        func options(allowing: Bool) -> [AnyHashable: Any] {
            let manager = NSStagedMigrationManager([
                NSCustomMigrationStage(
                    migratingFrom: NSManagedObjectModelReference(model: v1, versionChecksum: v1.versionChecksum),
                    to: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum))
            ])
            var options: [AnyHashable: Any] = [NSPersistentStoreStagedMigrationManagerOptionKey: manager]
            if allowing { options[OpenCoreDataMigrationAllowsDataLossOption] = true }
            return options
        }
        #expect {
            _ = try context(v2, at: url, options: options(allowing: false))
        } throws: { isDataLoss($0, naming: ["1 row of entity 'Draft'"]) }
        let migrated = try context(v2, at: url, options: options(allowing: true))
        #expect(try count("Note", in: migrated) == 0)
        try closeStores(of: migrated)
    }

    // MARK: NSMigrationManager

    /// A version 1 store of the heavyweight tests' people and customers.
    private func peopleStore() throws -> URL {
        let url = temporaryStoreURL("People")
        let context = try context(HeavyweightMigrationTests.version1(), at: url)
        try HeavyweightMigrationTests.insertVersion1Objects(
            into: context, people: ["Ada Lovelace"], customers: ["Grace Hopper", "No Mail"])
        try closeStores(of: context)
        return url
    }

    @Test func aMappingModelThatForgetsAnEntityWithRowsIsRefused() throws {
        let source = try peopleStore()
        let mapping = try HeavyweightMigrationTests.mapping()
        mapping.entityMappings.removeAll { $0.sourceEntityName == "Customer" }
        let destination = temporaryStoreURL("Contacts")
        let manager = NSMigrationManager(
            sourceModel: HeavyweightMigrationTests.version1(), destinationModel: HeavyweightMigrationTests.version2())
        #expect {
            try manager.migrateStore(from: source, type: .sqlite, mapping: mapping, to: destination, type: .sqlite)
        } throws: { isDataLoss($0, naming: ["2 rows of entity 'Customer'", "NSRemoveEntityMappingType"]) }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func aRemoveEntityMappingSaysSo() throws {
        let source = try peopleStore()
        let mapping = try HeavyweightMigrationTests.mapping()
        mapping.entityMappings.removeAll { $0.sourceEntityName == "Customer" }
        let removal = NSEntityMapping()
        removal.name = "RemoveCustomer"
        removal.mappingType = .removeEntityMappingType
        removal.sourceEntityName = "Customer"
        mapping.entityMappings.append(removal)
        let destination = temporaryStoreURL("Contacts")
        let manager = NSMigrationManager(
            sourceModel: HeavyweightMigrationTests.version1(), destinationModel: HeavyweightMigrationTests.version2())
        try manager.migrateStore(from: source, type: .sqlite, mapping: mapping, to: destination, type: .sqlite)
        let migrated = try context(HeavyweightMigrationTests.version2(), at: destination)
        #expect(try count("Contact", in: migrated) == 1)
        try closeStores(of: migrated)
    }

    @Test func anInferredMappingsRemovalsDoNotCount() throws {
        let source = try peopleStore()
        let customerless = HeavyweightMigrationTests.version1()
        customerless.entities.removeAll { $0.name == "Customer" }
        let manager = NSMigrationManager(
            sourceModel: HeavyweightMigrationTests.version1(), destinationModel: customerless)
        #expect {
            try manager.migrateStore(
                from: source, sourceType: NSSQLiteStoreType, with: nil, toDestinationURL: temporaryStoreURL("Inferred"),
                destinationType: NSSQLiteStoreType)
        } throws: { isDataLoss($0, naming: ["2 rows of entity 'Customer'"]) }
        try manager.migrateStore(
            from: source, sourceType: NSSQLiteStoreType, options: [OpenCoreDataMigrationAllowsDataLossOption: true],
            with: nil,
            toDestinationURL: temporaryStoreURL("Inferred"), destinationType: NSSQLiteStoreType)
    }

    @Test func theMigrationManagerLeavesARollbackJournalSourceByteForByte() throws {
        let url = try AppleStoreFixtures.copyOfStore(Self.groceries)
        let source = try #require(try NSManagedObjectModel.cached(inStoreAt: url))
        let before = try snapshot(url)
        let manager = NSMigrationManager(
            sourceModel: source, destinationModel: ModelBuilder.model(ModelBuilder.entity("Empty")))
        #expect {
            try manager.migrateStore(
                from: url, sourceType: NSSQLiteStoreType, with: nil, toDestinationURL: temporaryStoreURL("Empty"),
                destinationType: NSSQLiteStoreType)
        } throws: { isDataLoss($0, naming: ["399 rows of entity 'Item'"]) }
        let after = try snapshot(url)
        #expect(after.0 == before.0, "the store's bytes changed")
        #expect(after.1.isEmpty, "left behind: \(after.1)")
    }
}
