import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSRelationshipDescription`'s optionality and counts, as Core Data validates them.
final class NSRelationshipDescriptionTests: XCTestCase {
    private func context(booksOptional: Bool, minCount: Int) throws -> NSManagedObjectContext {
        let model = ConformanceModel.make()
        let books = try XCTUnwrap(model.entitiesByName["Author"]?.relationshipsByName["books"])
        books.isOptional = booksOptional
        books.minCount = minCount
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = try ConformanceModel.coordinator(model: model)
        return context
    }

    func testNonOptionalToManyWithNoMembersSaves() throws {
        let context = try context(booksOptional: false, minCount: 0)
        Author(context: context).name = "No books yet"
        XCTAssertNoThrow(try context.save(), "only minCount constrains how many members a to-many has")
    }

    func testMinimumCountIsEnforced() throws {
        let context = try context(booksOptional: false, minCount: 1)
        Author(context: context).name = "No books yet"
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual((error as NSError).code, NSValidationRelationshipLacksMinimumCountError)
        }
    }
}
