import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// Staged migration from the shared model (version 1) to `MappingFixture.version2()`.
enum StagedFixture {
    /// A version 1 store at a new path in `folder`.
    static func version1Store(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("Staged.sqlite")
        try MappingFixture.writeVersion1(at: url)
        return url
    }

    /// A custom stage from version 1 to version 2.
    static func customStage() -> NSCustomMigrationStage {
        let (v1, v2) = (ConformanceModel.make(), MappingFixture.version2())
        return NSCustomMigrationStage(
            migratingFrom: NSManagedObjectModelReference(model: v1, versionChecksum: v1.versionChecksum),
            to: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum))
    }

    /// Opens the store at `url` under version 2 with `manager`, returning a context on it.
    static func open(_ url: URL, with manager: NSStagedMigrationManager) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: MappingFixture.version2())
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Whether the store at `url` is of `model`'s version.
    static func isStore(at url: URL, of model: NSManagedObjectModel) throws -> Bool {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: url, options: nil)
        return model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
    }
}

/// `NSStagedMigrationManager`: migrates a store through its stages as the store is added.
final class NSStagedMigrationManagerTests: XCTestCase {
    func testTheManagerKeepsItsStagesInOrder() {
        let first = NSLightweightMigrationStage([ConformanceModel.make().versionChecksum])
        let second = StagedFixture.customStage()
        let manager = NSStagedMigrationManager([first, second])
        XCTAssertEqual(manager.stages.count, 2)
        XCTAssertTrue(manager.stages[0] === first)
        XCTAssertTrue(manager.stages[1] === second)
        XCTAssertNil(manager.container, "no container before a migration runs")
    }

    func testAddingTheStoreMigratesItToTheNewVersion() throws {
        let url = try StagedFixture.version1Store(in: try temporaryDirectory())
        XCTAssertTrue(try StagedFixture.isStore(at: url, of: ConformanceModel.make()))
        let context = try StagedFixture.open(url, with: NSStagedMigrationManager([StagedFixture.customStage()]))
        XCTAssertTrue(try StagedFixture.isStore(at: url, of: MappingFixture.version2()))
        XCTAssertFalse(try StagedFixture.isStore(at: url, of: ConformanceModel.make()))
        let books = try MappingFixture.books(in: context)
        XCTAssertEqual(books.compactMap { $0.value(forKey: "title") as? String }, ["Emma", "Persuasion"])
        XCTAssertEqual(books.compactMap { ($0.value(forKey: "pages") as? NSNumber)?.intValue }, [474, 249])
    }

    func testTheContainerIsThereOnlyWhileAHandlerRuns() throws {
        let url = try StagedFixture.version1Store(in: try temporaryDirectory())
        let stage = StagedFixture.customStage()
        let seen = AsynchronousFetchRecord<Bool>()
        stage.willMigrateHandler = { manager, _ in seen.record([manager.container != nil]) }
        let manager = NSStagedMigrationManager([stage])
        _ = try StagedFixture.open(url, with: manager)
        XCTAssertEqual(seen.values, [true])
        XCTAssertNil(manager.container)
    }

    func testAStoreAlreadyAtTheNewVersionIsLeftAlone() throws {
        let url = try StagedFixture.version1Store(in: try temporaryDirectory())
        _ = try StagedFixture.open(url, with: NSStagedMigrationManager([StagedFixture.customStage()]))
        let stage = StagedFixture.customStage()
        let calls = AsynchronousFetchRecord<String>()
        stage.willMigrateHandler = { _, _ in calls.record(["will"]) }
        let context = try StagedFixture.open(url, with: NSStagedMigrationManager([stage]))
        XCTAssertEqual(calls.count, 0)
        XCTAssertEqual(try MappingFixture.books(in: context).count, 2)
    }
}
