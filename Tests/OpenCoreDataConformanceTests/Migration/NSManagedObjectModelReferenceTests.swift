import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSManagedObjectModelReference`: a model version named in a migration stage.
final class NSManagedObjectModelReferenceTests: XCTestCase {
    func testAReferenceToAModelResolvesToIt() {
        let model = ConformanceModel.make()
        let reference = NSManagedObjectModelReference(model: model, versionChecksum: model.versionChecksum)
        XCTAssertTrue(reference.resolvedModel === model)
        XCTAssertEqual(reference.versionChecksum, model.versionChecksum)
    }

    func testTheReferencedVersionIsTheOneTheStoreRecords() throws {
        let url = try StagedFixture.version1Store(in: try temporaryDirectory())
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: url, options: nil)
        let model = ConformanceModel.make()
        let reference = NSManagedObjectModelReference(model: model, versionChecksum: model.versionChecksum)
        XCTAssertTrue(reference.resolvedModel.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let hashes = try XCTUnwrap(metadata[NSStoreModelVersionHashesKey] as? [String: Data])
        XCTAssertEqual(hashes, reference.resolvedModel.entityVersionHashesByName)
    }

    func testReferencesInACustomStageMigrateBetweenTheirModels() throws {
        let url = try StagedFixture.version1Store(in: try temporaryDirectory())
        let stage = StagedFixture.customStage()
        XCTAssertNotEqual(stage.currentModel.versionChecksum, stage.nextModel.versionChecksum)
        XCTAssertNil(stage.currentModel.resolvedModel.entitiesByName["Book"]?.attributesByName["isbn"])
        XCTAssertNotNil(stage.nextModel.resolvedModel.entitiesByName["Book"]?.attributesByName["isbn"])
        _ = try StagedFixture.open(url, with: NSStagedMigrationManager([stage]))
        XCTAssertTrue(try StagedFixture.isStore(at: url, of: stage.nextModel.resolvedModel))
    }
}
