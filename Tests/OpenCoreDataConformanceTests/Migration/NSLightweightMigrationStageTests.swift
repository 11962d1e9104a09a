import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSLightweightMigrationStage`: model versions, by checksum, that lightweight migration connects.
final class NSLightweightMigrationStageTests: XCTestCase {
    func testTheStageKeepsItsChecksumsInOrder() {
        let (v1, v2) = (ConformanceModel.make(), MappingFixture.version2())
        let stage = NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])
        XCTAssertEqual(stage.versionChecksums, [v1.versionChecksum, v2.versionChecksum])
        XCTAssertNil(stage.label)
        stage.label = "add isbn"
        XCTAssertEqual(stage.label, "add isbn")
    }

    func testChecksumsFollowTheModelsEntities() {
        XCTAssertEqual(ConformanceModel.make().versionChecksum, ConformanceModel.make().versionChecksum)
        XCTAssertNotEqual(ConformanceModel.make().versionChecksum, MappingFixture.version2().versionChecksum)
        XCTAssertFalse(ConformanceModel.make().versionChecksum.isEmpty)
    }

    func testAStoreOfAVersionNoStageNamesIsRefused() throws {
        let url = try StagedFixture.version1Store(in: try temporaryDirectory())
        let other = MappingFixture.version2()
        other.entitiesByName["Author"]?.properties.append(ConformanceModel.attribute("died", .dateAttributeType))
        let manager = NSStagedMigrationManager([
            NSLightweightMigrationStage([MappingFixture.version2().versionChecksum, other.versionChecksum])
        ])
        XCTAssertThrowsError(try StagedFixture.open(url, with: manager)) { error in
            XCTAssertEqual((error as NSError).domain, NSCocoaErrorDomain)
            XCTAssertEqual((error as NSError).code, NSMigrationMissingSourceModelError)
        }
        XCTAssertTrue(try StagedFixture.isStore(at: url, of: ConformanceModel.make()), "the store keeps version 1")
    }
}
