import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSMappingModel`, as Apple documents it.
final class NSMappingModelTests: XCTestCase {
    /// A mapping model Xcode compiled (`.cdm`), kept among the unit tests' fixtures.
    private let compiledMapping = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("OpenCoreDataTests/Fixtures/Mapping/Compiled/ContactsToContacts2.cdm")

    func testTwoLoadsOfOneMappingModelAreEqual() throws {
        let first = try XCTUnwrap(NSMappingModel(contentsOf: compiledMapping))
        let second = try XCTUnwrap(NSMappingModel(contentsOf: compiledMapping))
        XCTAssertFalse(first === second)
        XCTAssertEqual(first, second)
        XCTAssertTrue(first.isEqual(second))
        XCTAssertEqual(first.hash, second.hash)
        XCTAssertEqual(Set([first, second]).count, 1)
        XCTAssertEqual(first.entityMappings, second.entityMappings)

        let changed = try XCTUnwrap(NSMappingModel(contentsOf: compiledMapping))
        changed.entityMappings = Array(changed.entityMappings.dropLast())
        XCTAssertNotEqual(first, changed)
    }
}
