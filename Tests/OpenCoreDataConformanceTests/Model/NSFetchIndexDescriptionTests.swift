import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSFetchIndexDescription`: a named store index over properties of an entity.
final class NSFetchIndexDescriptionTests: XCTestCase {
    /// The shared model with Book indexed by title (descending) and pages.
    private func indexedModel() throws -> (model: NSManagedObjectModel, index: NSFetchIndexDescription) {
        let model = ConformanceModel.make()
        let book = try XCTUnwrap(model.entitiesByName["Book"])
        let title = NSFetchIndexElementDescription(
            property: try XCTUnwrap(book.propertiesByName["title"]), collationType: .binary)
        title.isAscending = false
        let pages = NSFetchIndexElementDescription(
            property: try XCTUnwrap(book.propertiesByName["pages"]), collationType: .binary)
        let index = NSFetchIndexDescription(name: "byTitleAndPages", elements: [title, pages])
        book.indexes = [index]
        return (model, index)
    }

    func testTheIndexKeepsItsNameAndElementsInOrder() throws {
        let (_, index) = try indexedModel()
        XCTAssertEqual(index.name, "byTitleAndPages")
        XCTAssertEqual(index.elements.map(\.propertyName), ["title", "pages"])
        XCTAssertEqual(index.elements.map(\.isAscending), [false, true])
        XCTAssertNil(index.partialIndexPredicate)
        XCTAssertTrue(index.elements.allSatisfy { $0.indexDescription === index })
    }

    func testAnIndexAssignedToAnEntityKnowsIt() throws {
        let (model, index) = try indexedModel()
        let book = try XCTUnwrap(model.entitiesByName["Book"])
        XCTAssertTrue(index.entity === book)
        XCTAssertEqual(book.indexes.map(\.name), ["byTitleAndPages"])
        XCTAssertEqual(model.entitiesByName["Author"]?.indexes.count, 0)
    }

    func testElementsAssignedLaterPointBackToTheIndex() {
        let index = NSFetchIndexDescription(name: "empty", elements: nil)
        XCTAssertEqual(index.elements.count, 0)
        let element = NSFetchIndexElementDescription(
            property: ConformanceModel.attribute("title", .stringAttributeType), collationType: .binary)
        index.elements = [element]
        XCTAssertTrue(element.indexDescription === index)
        index.partialIndexPredicate = NSPredicate(format: "title != nil")
        XCTAssertEqual(index.partialIndexPredicate?.predicateFormat, "title != nil")
    }

    func testAStoreWithTheIndexSavesAndFetchesAsWithout() throws {
        let (model, _) = try indexedModel()
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = try ConformanceModel.coordinator(model: model)
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"])], in: context)

        let reader = try ConformanceModel.context(sharing: context)
        let fetch = NSFetchRequest<Book>(entityName: "Book")
        fetch.predicate = NSPredicate(format: "title > %@", "F")
        fetch.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
        XCTAssertEqual(try reader.fetch(fetch).map(\.title), ["Persuasion", "Middlemarch"])
    }
}
