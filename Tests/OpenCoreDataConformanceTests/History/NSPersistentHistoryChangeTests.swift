import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPersistentHistoryChange`: one object's insert, update or delete in a recorded transaction.
final class NSPersistentHistoryChangeTests: XCTestCase {
    /// A history-tracking context whose books keep their title in the tombstone of a delete.
    private func contextKeepingTitlesOnDeletion() throws -> NSManagedObjectContext {
        let model = ConformanceModel.make()
        let title = try XCTUnwrap(model.entitiesByName["Book"]?.propertiesByName["title"] as? NSAttributeDescription)
        title.preservesValueInHistoryOnDeletion = true
        return try historyTrackingContext(model: model)
    }

    private func changes(in context: NSManagedObjectContext) throws -> [[NSPersistentHistoryChange]] {
        try historyTransactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), in: context).map {
            $0.changes ?? []
        }
    }

    func testEachKindOfChangeNamesItsObjectAndWhatChanged() throws {
        let context = try contextKeepingTitlesOnDeletion()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let book = try XCTUnwrap(try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        book.pages = 474
        try context.save()
        context.delete(book)
        try context.save()

        let saves = try changes(in: context)
        XCTAssertEqual(saves.count, 3)
        let insert = try XCTUnwrap(saves[0].first { $0.changedObjectID == book.objectID })
        XCTAssertEqual(insert.changeType, .insert)
        XCTAssertNil(insert.updatedProperties, "an insert names no updated properties")
        XCTAssertNil(insert.tombstone)

        let update = try XCTUnwrap(saves[1].first)
        XCTAssertEqual(update.changeType, .update)
        XCTAssertEqual(update.changedObjectID, book.objectID)
        XCTAssertEqual(update.updatedProperties?.map(\.name), ["pages"])

        let delete = try XCTUnwrap(saves[2].first { $0.changedObjectID == book.objectID })
        XCTAssertEqual(delete.changeType, .delete)
        XCTAssertEqual(delete.tombstone?["title"] as? String, "Emma", "kept because the model asks for it")
        XCTAssertNil(delete.tombstone?["pages"], "not kept: the model does not ask")
    }

    func testChangesBelongToTheirTransactionAndAreNumberedInOrder() throws {
        let context = try contextKeepingTitlesOnDeletion()
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"])], in: context)
        try ConformanceModel.shelve([("Eliot", ["Middlemarch"])], in: context)
        let transactions = try historyTransactions(
            .fetchHistory(after: nil as NSPersistentHistoryToken?), in: context)
        var numbers: [Int64] = []
        for transaction in transactions {
            for change in transaction.changes ?? [] {
                XCTAssertTrue(change.transaction === transaction)
                numbers.append(change.changeID)
            }
        }
        XCTAssertEqual(numbers.count, 5)
        XCTAssertEqual(numbers, numbers.sorted())
        XCTAssertEqual(Set(numbers).count, numbers.count, "every change has its own number")
    }

    func testTheChangeEntityDescribesChangesForFetchRequests() throws {
        let entity = try XCTUnwrap(NSPersistentHistoryChange.entityDescription)
        XCTAssertEqual(entity.name, "NSPersistentHistoryChange")
        XCTAssertEqual(NSPersistentHistoryChange.fetchRequest?.entityName, "NSPersistentHistoryChange")
        let context = try contextKeepingTitlesOnDeletion()
        XCTAssertEqual(NSPersistentHistoryChange.entityDescription(with: context)?.name, "NSPersistentHistoryChange")
    }
}
