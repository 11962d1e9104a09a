import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// A context with an `UndoManager`: each group of changes undoes and redoes as one.
final class UndoManagerTests: XCTestCase {
    private func undoableContext() throws -> (NSManagedObjectContext, UndoManager) {
        let context = try ConformanceModel.context()
        let undoManager = UndoManager()
        // Explicit groups: no run loop turns between the steps of a test.
        undoManager.groupsByEvent = false
        context.undoManager = undoManager
        return (context, undoManager)
    }

    private func group(_ context: NSManagedObjectContext, _ undoManager: UndoManager, _ change: () -> Void) {
        undoManager.beginUndoGrouping()
        change()
        context.processPendingChanges()
        undoManager.endUndoGrouping()
    }

    func testAnInsertIsUndoneAndRedone() throws {
        let (context, undoManager) = try undoableContext()
        var book: Book?
        group(context, undoManager) {
            book = Book(context: context)
            book?.title = "Emma"
        }
        XCTAssertTrue(undoManager.canUndo)
        undoManager.undo()
        XCTAssertTrue(context.insertedObjects.isEmpty)
        XCTAssertTrue(undoManager.canRedo)
        undoManager.redo()
        XCTAssertEqual(context.insertedObjects.count, 1)
        XCTAssertEqual((context.insertedObjects.first as? Book)?.title, "Emma")
    }

    func testAnAttributeChangeIsUndoneToTheSavedValue() throws {
        let (context, undoManager) = try undoableContext()
        let book = Book(context: context)
        book.title = "Emma"
        try context.save()
        undoManager.removeAllActions()
        group(context, undoManager) { book.title = "Persuasion" }
        group(context, undoManager) { book.pages = 249 }
        undoManager.undo()
        XCTAssertEqual(book.title, "Persuasion")
        XCTAssertEqual(book.pages, 0)
        undoManager.undo()
        XCTAssertEqual(book.title, "Emma")
        XCTAssertFalse(context.hasChanges)
    }

    func testActionNamesAndDisabledRegistration() throws {
        let (context, undoManager) = try undoableContext()
        group(context, undoManager) {
            Book(context: context).title = "Emma"
            undoManager.setActionName("Add Book")
        }
        XCTAssertEqual(undoManager.undoActionName, "Add Book")
        undoManager.disableUndoRegistration()
        Book(context: context).title = "Unrecorded"
        context.processPendingChanges()
        undoManager.enableUndoRegistration()
        undoManager.undo()
        XCTAssertEqual(context.insertedObjects.compactMap { ($0 as? Book)?.title }, ["Unrecorded"])
    }
}
