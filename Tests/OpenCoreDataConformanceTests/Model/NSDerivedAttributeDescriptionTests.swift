import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSDerivedAttributeDescription`: a stored attribute whose value the save computes from others.
final class NSDerivedAttributeDescriptionTests: XCTestCase {
    private func derived(
        _ name: String, _ type: NSAttributeType, _ expression: NSExpression
    )
        -> NSDerivedAttributeDescription
    {
        let attribute = NSDerivedAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.derivationExpression = expression
        return attribute
    }

    /// The shared model with Author gaining `searchName` (lowercased name), `bookCount`
    /// (number of books) and `copiedName` (the name itself).
    private func derivedContext() throws -> NSManagedObjectContext {
        let model = ConformanceModel.make()
        let author = try XCTUnwrap(model.entitiesByName["Author"])
        author.properties += [
            derived(
                "searchName", .stringAttributeType,
                NSExpression(forFunction: "lowercase:", arguments: [NSExpression(forKeyPath: "name")])),
            derived("bookCount", .integer64AttributeType, NSExpression(format: "books.@count")),
            derived("copiedName", .stringAttributeType, NSExpression(forKeyPath: "name")),
        ]
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = try ConformanceModel.coordinator(model: model)
        return context
    }

    func testADerivedAttributeIsAnAttributeWithAnExpression() {
        let attribute = derived("copiedName", .stringAttributeType, NSExpression(forKeyPath: "name"))
        let asAttribute: NSAttributeDescription = attribute
        XCTAssertEqual(asAttribute.attributeType, .stringAttributeType)
        XCTAssertEqual(attribute.derivationExpression?.keyPath, "name")
        XCTAssertNil(NSDerivedAttributeDescription().derivationExpression)
    }

    /// The derived values of `author` after its save, read through another context of the
    /// coordinator, so they are the saved values and not the object's own.
    private func derivedValues(
        of author: Author, saved context: NSManagedObjectContext
    ) throws -> (
        search: String?, copied: String?, count: Int?
    ) {
        let reader = try ConformanceModel.context(sharing: context)
        let object = try reader.existingObject(with: author.objectID)
        return (
            object.value(forKey: "searchName") as? String, object.value(forKey: "copiedName") as? String,
            (object.value(forKey: "bookCount") as? NSNumber)?.intValue
        )
    }

    func testTheSaveStoresTheDerivedValues() throws {
        let context = try derivedContext()
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"])], in: context)
        let author = try XCTUnwrap(try context.fetch(Author.fetchRequest()).first)
        let values = try derivedValues(of: author, saved: context)
        XCTAssertEqual(values.search, "austen")
        XCTAssertEqual(values.copied, "Austen")
        XCTAssertEqual(values.count, 2)
    }

    func testALaterSaveUpdatesTheDerivedValues() throws {
        let context = try derivedContext()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let author = try XCTUnwrap(try context.fetch(Author.fetchRequest()).first)
        XCTAssertEqual(try derivedValues(of: author, saved: context).count, 1)
        let book = Book(context: context)
        book.title = "Persuasion"
        book.author = author
        try context.save()
        XCTAssertEqual(try derivedValues(of: author, saved: context).count, 2)

        author.name = "AUSTEN"
        try context.save()
        let values = try derivedValues(of: author, saved: context)
        XCTAssertEqual(values.search, "austen")
        XCTAssertEqual(values.copied, "AUSTEN")
    }
}
