import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSMigrationStage`: the common base of lightweight and custom stages.
final class NSMigrationStageTests: XCTestCase {
    func testBothKindsOfStageAreStagesWithALabel() {
        let stages: [NSMigrationStage] = [
            NSLightweightMigrationStage([ConformanceModel.make().versionChecksum]), StagedFixture.customStage(),
        ]
        XCTAssertTrue(stages[0] is NSLightweightMigrationStage)
        XCTAssertTrue(stages[1] is NSCustomMigrationStage)
        XCTAssertTrue(stages.allSatisfy { $0.label == nil })
        stages[0].label = "first"
        stages[1].label = "second"
        XCTAssertEqual(stages.map(\.label), ["first", "second"])
    }

    func testLabelledStagesMigrateAsUnlabelledOnes() throws {
        let url = try StagedFixture.version1Store(in: try temporaryDirectory())
        let v1 = ConformanceModel.make()
        let lightweight = NSLightweightMigrationStage([v1.versionChecksum])
        lightweight.label = "version 1"
        let custom = StagedFixture.customStage()
        custom.label = "version 1 to 2"
        let calls = AsynchronousFetchRecord<String>()
        custom.didMigrateHandler = { _, stage in calls.record([stage.label ?? ""]) }

        let context = try StagedFixture.open(url, with: NSStagedMigrationManager([lightweight, custom]))
        XCTAssertEqual(calls.values, ["version 1 to 2"])
        XCTAssertTrue(try StagedFixture.isStore(at: url, of: MappingFixture.version2()))
        XCTAssertEqual(try MappingFixture.books(in: context).count, 2)
    }
}
