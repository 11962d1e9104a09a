import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// The answer docs/DEVIATIONS.md gives for the framework this target is built against:
/// Apple's Core Data in the compatibility run, OpenCoreData otherwise.
func expected<Value>(apple: Value, openCoreData: Value) -> Value {
    #if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
    apple
    #else
    openCoreData
    #endif
}

#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
@objc(Counter)
#endif
/// Counts its `awakeFromInsert` calls.
final class Counter: NSManagedObject {
    nonisolated(unsafe) static var awakenings = 0

    override func awakeFromInsert() {
        super.awakeFromInsert()
        Self.awakenings += 1
    }
}

/// Entries of docs/DEVIATIONS.md, each checked against whichever framework this target is
/// built with, so a Mac checks the claims about Core Data in one command (Package.swift).
/// Each test names its entry.
final class DeviationTests: XCTestCase {
    /// "Contexts have no undo manager by default" (Undo): Core Data gives one on macOS.
    func testAContextHasNoUndoManagerByDefault() {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        #if os(macOS)
        let apple = true
        #else
        let apple = false
        #endif
        XCTAssertEqual(context.undoManager != nil, expected(apple: apple, openCoreData: false))
    }

    /// "`NSManagedObjectModel(byMerging:)` moves the entities": a model a coordinator uses
    /// cannot be merged here; Core Data copies it.
    func testMergingAModelInUse() throws {
        let coordinator = try ConformanceModel.coordinator()
        let merged = NSManagedObjectModel(byMerging: [coordinator.managedObjectModel])
        XCTAssertEqual(merged == nil, expected(apple: false, openCoreData: true))
        XCTAssertNotNil(NSManagedObjectModel(byMerging: [ConformanceModel.make()]))
    }

    /// "Decimal attributes refuse NaN": the save fails here rather than storing a value that
    /// would come back as nil.
    func testADecimalNaNFailsTheSave() throws {
        let item = NSEntityDescription()
        item.name = "Item"
        item.properties = [ConformanceModel.attribute("price", .decimalAttributeType)]
        let context = try ConformanceModel.context(entities: [item])
        NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue(
            NSDecimalNumber.notANumber, forKey: "price")
        var code: Int?
        do { try context.save() } catch let error as NSError { code = error.code }
        XCTAssertEqual(code, expected(apple: nil, openCoreData: NSManagedObjectValidationError))
    }

    /// "Temporary IDs" (Parent and child contexts): as in Core Data, an object a child
    /// inserts keeps its temporary ID after the child saves and after the parent saves.
    func testAChildsObjectsKeepTheirTemporaryIDs() throws {
        let parent = try ConformanceModel.context()
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        let book = Book(context: child)
        book.title = "Emma"
        try child.save()
        XCTAssertTrue(book.objectID.isTemporaryID)
        try parent.save()
        XCTAssertEqual(book.objectID.isTemporaryID, expected(apple: true, openCoreData: true))
        XCTAssertEqual(try parent.count(for: NSFetchRequest<Book>(entityName: "Book")), 1)
    }

    /// "`awakeFromInsert` runs once" (Parent and child contexts): Core Data calls it again
    /// when the child's save inserts the object into the parent.
    func testAwakeFromInsertRunsOnceAcrossAChildSave() throws {
        let counter = NSEntityDescription()
        counter.name = "Counter"
        counter.managedObjectClassName = NSStringFromClass(Counter.self)
        counter.properties = [ConformanceModel.attribute("label", .stringAttributeType)]
        let parent = try ConformanceModel.context(entities: [counter])
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        Counter.awakenings = 0
        _ = Counter(context: child)
        XCTAssertEqual(Counter.awakenings, 1)
        try child.save()
        XCTAssertEqual(Counter.awakenings, expected(apple: 2, openCoreData: 1))
    }
}
