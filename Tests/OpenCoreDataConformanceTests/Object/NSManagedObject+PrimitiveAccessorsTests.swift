import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// A class written the way Core Data's documentation shows custom accessors: the public
/// property calls the access and change hooks around its primitive accessor.
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
@objc(Memo)
#endif
final class Memo: NSManagedObject {
    /// Keys the change hooks saw, in order.
    var hookLog: [String] = []

    var updatedAt: Date? {
        get {
            willAccessValue(forKey: "updatedAt")
            defer { didAccessValue(forKey: "updatedAt") }
            return primitiveUpdatedAt
        }
        set {
            willChangeValue(forKey: "updatedAt")
            defer { didChangeValue(forKey: "updatedAt") }
            primitiveUpdatedAt = newValue
        }
    }

    override func willChangeValue(forKey key: String) {
        hookLog.append("will \(key)")
        super.willChangeValue(forKey: key)
    }

    /// Core Data's idiom: stamp the object in willSave through the primitive accessor,
    /// which does not count as a new change.
    override func willSave() {
        super.willSave()
        if !isDeleted, primitiveUpdatedAt == nil { primitiveUpdatedAt = Date(timeIntervalSinceReferenceDate: 1_000) }
    }
}

// The modelled properties: the only lines a port from Core Data changes.
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
extension Memo {
    @NSManaged var primitiveUpdatedAt: Date?
    @NSManaged var text: String?
    @NSManaged var primitiveText: String?
    @NSManaged var primitiveTags: NSSet?
}
#else
extension Memo {
    @Managed var primitiveUpdatedAt: Date?
    @Managed var text: String?
    @Managed var primitiveText: String?
    @Managed var primitiveTags: NSSet?
}
#endif

/// Primitive accessors (`@Managed var primitive<Key>`), as Core Data names them.
final class NSManagedObjectPrimitiveAccessorTests: XCTestCase {
    private func context() throws -> NSManagedObjectContext {
        let memo = NSEntityDescription()
        memo.name = "Memo"
        memo.managedObjectClassName = "Memo"
        let tag = NSEntityDescription()
        tag.name = "Tag"
        let (updatedAt, text) = (
            ConformanceModel.attribute("updatedAt", .dateAttributeType),
            ConformanceModel.attribute("text", .stringAttributeType)
        )
        let tags = NSRelationshipDescription()
        tags.name = "tags"
        tags.destinationEntity = tag
        tags.maxCount = 0
        memo.properties = [updatedAt, text, tags]
        return try ConformanceModel.context(entities: [memo, tag])
    }

    func testPrimitiveAccessorsReadAndWriteTheKeyWithoutHooks() throws {
        let context = try context()
        let memo = Memo(context: context)
        memo.primitiveText = "raw"
        XCTAssertEqual(memo.text, "raw", "the primitive accessor writes the same key")
        XCTAssertEqual(memo.primitiveValue(forKey: "text") as? String, "raw")
        XCTAssertEqual(memo.hookLog, [], "primitive writes call no change hooks")
        memo.text = "cooked"
        XCTAssertEqual(memo.primitiveText, "cooked")
        XCTAssertEqual(memo.hookLog, ["will text"])
        memo.updatedAt = Date(timeIntervalSinceReferenceDate: 5)
        XCTAssertEqual(memo.hookLog, ["will text", "will updatedAt"], "the custom setter's own hooks")
        XCTAssertEqual(memo.primitiveUpdatedAt, Date(timeIntervalSinceReferenceDate: 5))
        XCTAssertEqual(memo.primitiveTags?.count ?? 0, 0)
    }

    func testPrimitiveChangesAreSavedAndTheWillSaveIdiomWorks() throws {
        let context = try context()
        let memo = Memo(context: context)
        memo.text = "first"
        try context.save()
        XCTAssertEqual(memo.updatedAt, Date(timeIntervalSinceReferenceDate: 1_000), "stamped in willSave")
        XCTAssertFalse(context.hasChanges, "a primitive write in willSave is saved with the object")

        memo.updatedAt = Date(timeIntervalSinceReferenceDate: 7)
        XCTAssertTrue(memo.isUpdated)
        XCTAssertEqual(Set(memo.changedValues().keys), ["updatedAt"])
        try context.save()
        context.reset()
        let fetched = try XCTUnwrap(try context.fetch(NSFetchRequest<Memo>(entityName: "Memo")).first)
        XCTAssertEqual(fetched.updatedAt, Date(timeIntervalSinceReferenceDate: 7))
        XCTAssertEqual(fetched.primitiveText, "first", "a primitive read fires the fault")
    }
}
