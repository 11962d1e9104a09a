import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSCustomMigrationStage`: a step between two model versions with handlers around it.
final class NSCustomMigrationStageTests: XCTestCase {
    func testTheStageKeepsItsModelsAndHasNoHandlers() {
        let (v1, v2) = (ConformanceModel.make(), MappingFixture.version2())
        let current = NSManagedObjectModelReference(model: v1, versionChecksum: v1.versionChecksum)
        let next = NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum)
        let stage = NSCustomMigrationStage(migratingFrom: current, to: next)
        XCTAssertTrue(stage.currentModel === current)
        XCTAssertTrue(stage.nextModel === next)
        XCTAssertNil(stage.willMigrateHandler)
        XCTAssertNil(stage.didMigrateHandler)
    }

    func testTheHandlersRunUnderTheOldThenTheNewModel() throws {
        let url = try StagedFixture.version1Store(in: try temporaryDirectory())
        let stage = StagedFixture.customStage()
        let events = AsynchronousFetchRecord<String>()
        var seen: [String] = []
        stage.willMigrateHandler = { manager, current in
            XCTAssertTrue(current === stage)
            let hasISBN = manager.container?.managedObjectModel.entitiesByName["Book"]?.attributesByName["isbn"] != nil
            seen.append("will, isbn: \(hasISBN)")
            events.record(seen)
        }
        stage.didMigrateHandler = { manager, _ in
            let hasISBN = manager.container?.managedObjectModel.entitiesByName["Book"]?.attributesByName["isbn"] != nil
            seen.append("did, isbn: \(hasISBN)")
            events.record(seen)
        }
        _ = try StagedFixture.open(url, with: NSStagedMigrationManager([stage]))
        XCTAssertEqual(events.values, ["will, isbn: false", "did, isbn: true"])
    }

    func testTheDidMigrateHandlerCanFillTheNewAttribute() throws {
        let url = try StagedFixture.version1Store(in: try temporaryDirectory())
        let stage = StagedFixture.customStage()
        stage.didMigrateHandler = { manager, _ in
            guard let container = manager.container else { return }
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for book in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")) {
                    book.setValue("ISBN-\((book.value(forKey: "title") as? String) ?? "")", forKey: "isbn")
                }
                try context.save()
            }
        }
        let context = try StagedFixture.open(url, with: NSStagedMigrationManager([stage]))
        let books = try MappingFixture.books(in: context)
        XCTAssertEqual(books.map { $0.value(forKey: "isbn") as? String }, ["ISBN-Emma", "ISBN-Persuasion"])
    }

    func testAnErrorFromAHandlerFailsTheMigration() throws {
        let url = try StagedFixture.version1Store(in: try temporaryDirectory())
        let stage = StagedFixture.customStage()
        stage.willMigrateHandler = { _, _ in
            throw NSError(domain: "NSCustomMigrationStageTests", code: 7, userInfo: nil)
        }
        XCTAssertThrowsError(try StagedFixture.open(url, with: NSStagedMigrationManager([stage])))
        XCTAssertTrue(try StagedFixture.isStore(at: url, of: ConformanceModel.make()), "the store keeps version 1")
    }
}
