import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSConstraintConflict`: objects that would break a uniqueness constraint, as the default
/// (error) merge policy reports them under `conflictList`.
final class NSConstraintConflictTests: XCTestCase {
    /// A context on a /dev/null store of the shared model, author names unique.
    private func uniqueNamesContext() throws -> NSManagedObjectContext {
        let model = ConformanceModel.make()
        model.entitiesByName["Author"]?.uniquenessConstraints = [["name"]]
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = try ConformanceModel.coordinator(model: model)
        return context
    }

    private func constraintConflicts(saving context: NSManagedObjectContext) throws -> [NSConstraintConflict] {
        do {
            try context.save()
        } catch let error as NSError {
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSManagedObjectConstraintMergeError)
            return try XCTUnwrap(error.userInfo["conflictList"] as? [NSConstraintConflict])
        }
        XCTFail("the save should meet a constraint conflict")
        return []
    }

    func testAConflictWithAStoredRowNamesItsObjectAndTheNewOne() throws {
        let context = try uniqueNamesContext()
        try ConformanceModel.shelve([("Austen", [])], in: context)
        let stored = try XCTUnwrap(try context.fetch(Author.fetchRequest()).first)

        let other = try ConformanceModel.context(sharing: context)
        let duplicate = Author(context: other)
        duplicate.name = "Austen"
        let conflicts = try constraintConflicts(saving: other)
        XCTAssertEqual(conflicts.count, 1)
        let conflict = try XCTUnwrap(conflicts.first)
        XCTAssertEqual(conflict.constraint, ["name"])
        XCTAssertEqual(conflict.databaseObject?.objectID, stored.objectID)
        XCTAssertEqual(conflict.conflictingObjects.map(\.objectID), [duplicate.objectID])
        XCTAssertEqual(conflict.constraintValues["name"] as? String, "Austen")
        XCTAssertEqual(conflict.databaseSnapshot?["name"] as? String, "Austen")
    }

    func testNothingIsWrittenWhenTheErrorPolicyReportsTheConflict() throws {
        let context = try uniqueNamesContext()
        try ConformanceModel.shelve([("Austen", [])], in: context)
        let other = try ConformanceModel.context(sharing: context)
        Author(context: other).name = "Austen"
        Author(context: other).name = "Eliot"
        XCTAssertEqual(try constraintConflicts(saving: other).count, 1)

        let reader = try ConformanceModel.context(sharing: context)
        XCTAssertEqual(try reader.fetch(Author.fetchRequest()).compactMap(\.name), ["Austen"])
    }

    func testAResolvingPolicyKeepsOneRowPerValue() throws {
        let context = try uniqueNamesContext()
        try ConformanceModel.shelve([("Austen", [])], in: context)
        let stored = try XCTUnwrap(try context.fetch(Author.fetchRequest()).first)
        let other = try ConformanceModel.context(sharing: context)
        other.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        let duplicate = Author(context: other)
        duplicate.name = "Austen"
        duplicate.born = Date(timeIntervalSince1970: 0)
        try other.save()

        let reader = try ConformanceModel.context(sharing: context)
        let authors = try reader.fetch(Author.fetchRequest())
        XCTAssertEqual(authors.count, 1)
        XCTAssertEqual(authors.first?.objectID, stored.objectID, "the stored row survives")
        XCTAssertEqual(authors.first?.born, Date(timeIntervalSince1970: 0), "with the new object's values")
    }

    func testTheInitializerKeepsWhatItIsGiven() throws {
        let context = try uniqueNamesContext()
        let first = Author(context: context)
        first.name = "Austen"
        let second = Author(context: context)
        second.name = "Austen"
        let conflict = NSConstraintConflict(
            constraint: ["name"], database: nil, databaseSnapshot: nil, conflicting: [first, second],
            conflictingSnapshots: [[:] as [AnyHashable: Any], [:] as [AnyHashable: Any]])
        XCTAssertEqual(conflict.constraint, ["name"])
        XCTAssertNil(conflict.databaseObject)
        XCTAssertNil(conflict.databaseSnapshot)
        XCTAssertTrue(conflict.conflictingObjects[0] === first)
        XCTAssertTrue(conflict.conflictingObjects[1] === second)
        XCTAssertEqual(conflict.conflictingSnapshots.count, 2)
    }
}
