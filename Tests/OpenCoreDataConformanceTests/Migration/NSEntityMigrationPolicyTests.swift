import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// Records the steps a migration runs and stamps each new book with an ISBN made from its title.
final class ShelvingPolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var recorded: [String] = []

    static var steps: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    static func reset() {
        lock.lock()
        recorded = []
        lock.unlock()
    }

    private func record(_ step: String) {
        Self.lock.lock()
        if Self.recorded.last != step { Self.recorded.append(step) }
        Self.lock.unlock()
    }

    override func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {
        record("begin")
        try super.begin(mapping, with: manager)
    }

    override func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        record("create")
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        let created = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance])
        for book in created {
            let title = sInstance.value(forKey: "title") as? String ?? ""
            book.setValue("ISBN-\(title.uppercased())", forKey: "isbn")
        }
    }

    override func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        record("endInstanceCreation")
        try super.endInstanceCreation(forMapping: mapping, manager: manager)
    }

    override func createRelationships(
        forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        record("relate")
        try super.createRelationships(forDestination: dInstance, in: mapping, manager: manager)
    }

    override func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        record("endRelationshipCreation")
        try super.endRelationshipCreation(forMapping: mapping, manager: manager)
    }

    override func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        record("validate")
        try super.performCustomValidation(forMapping: mapping, manager: manager)
    }

    override func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        record("end")
        try super.end(mapping, manager: manager)
    }
}

/// Refuses every instance, so the migration fails.
final class RefusingPolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    override func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        throw NSError(domain: NSCocoaErrorDomain, code: NSEntityMigrationPolicyError, userInfo: nil)
    }
}

/// `NSEntityMigrationPolicy`: the hooks a mapping's policy class gets during a migration.
final class NSEntityMigrationPolicyTests: XCTestCase {
    /// The inferred mapping with the book mapping run by `policy`.
    private func mapping(policy: AnyClass) throws -> NSMappingModel {
        let model = try MappingFixture.inferred()
        let book = try XCTUnwrap(model.entityMappings.first { $0.destinationEntityName == "Book" })
        book.entityMigrationPolicyClassName = NSStringFromClass(policy)
        return model
    }

    func testThePolicyRunsTheStepsInOrder() throws {
        ShelvingPolicy.reset()
        _ = try MappingFixture.migrate(in: try temporaryDirectory(), with: try mapping(policy: ShelvingPolicy.self))
        XCTAssertEqual(
            ShelvingPolicy.steps,
            ["begin", "create", "endInstanceCreation", "relate", "endRelationshipCreation", "validate", "end"])
    }

    func testThePolicyCanChangeTheNewInstances() throws {
        let context = try MappingFixture.migrate(
            in: try temporaryDirectory(), with: try mapping(policy: ShelvingPolicy.self))
        let books = try MappingFixture.books(in: context)
        XCTAssertEqual(books.map { $0.value(forKey: "isbn") as? String }, ["ISBN-EMMA", "ISBN-PERSUASION"])
        XCTAssertEqual(books.compactMap { ($0.value(forKey: "pages") as? NSNumber)?.intValue }, [474, 249])
    }

    func testTheDefaultPolicyCopiesThroughTheMapping() throws {
        let model = try mapping(policy: NSEntityMigrationPolicy.self)
        let context = try MappingFixture.migrate(in: try temporaryDirectory(), with: model)
        let books = try MappingFixture.books(in: context)
        XCTAssertEqual(books.compactMap { $0.value(forKey: "title") as? String }, ["Emma", "Persuasion"])
        XCTAssertTrue(books.allSatisfy { $0.value(forKey: "isbn") == nil })
    }

    func testAnErrorFromThePolicyFailsTheMigration() throws {
        let folder = try temporaryDirectory()
        XCTAssertThrowsError(try MappingFixture.migrate(in: folder, with: try mapping(policy: RefusingPolicy.self))) {
            error in
            XCTAssertEqual((error as NSError).domain, NSCocoaErrorDomain)
        }
    }
}
