import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPropertyMapping`: the expression that gives a destination property its value.
final class NSPropertyMappingTests: XCTestCase {
    private func bookMapping(_ model: NSMappingModel) throws -> NSEntityMapping {
        try XCTUnwrap(model.entityMappings.first { $0.destinationEntityName == "Book" })
    }

    private func attributeMapping(_ name: String, in model: NSMappingModel) throws -> NSPropertyMapping {
        try XCTUnwrap(try bookMapping(model).attributeMappings?.first { $0.name == name })
    }

    func testANewMappingHoldsNothing() {
        let mapping = NSPropertyMapping()
        XCTAssertNil(mapping.name)
        XCTAssertNil(mapping.valueExpression)
        XCTAssertNil(mapping.userInfo)
        mapping.name = "title"
        mapping.valueExpression = NSExpression(format: "$source.title")
        mapping.userInfo = ["note": "kept"]
        XCTAssertEqual(mapping.name, "title")
        XCTAssertEqual(mapping.valueExpression?.description, NSExpression(format: "$source.title").description)
        XCTAssertEqual(mapping.userInfo?["note"] as? String, "kept")
    }

    func testAnInferredMappingReadsTheSameNamedSourceProperty() throws {
        let model = try MappingFixture.inferred()
        let title = try attributeMapping("title", in: model)
        let expression = try XCTUnwrap(title.valueExpression)
        let v1 = ConformanceModel.make()
        let coordinator = try ConformanceModel.coordinator(model: v1)
        let entity = try XCTUnwrap(coordinator.managedObjectModel.entitiesByName["Book"])
        let source = NSManagedObject(entity: entity, insertInto: nil)
        source.setValue("Emma", forKey: "title")
        let bindings = NSMutableDictionary(dictionary: ["source": source])
        XCTAssertEqual(expression.expressionValue(with: nil, context: bindings) as? String, "Emma")
    }

    func testAConstantExpressionFillsANewAttribute() throws {
        let model = try MappingFixture.inferred()
        try attributeMapping("isbn", in: model).valueExpression = NSExpression(forConstantValue: "unknown")
        let context = try MappingFixture.migrate(in: try temporaryDirectory(), with: model)
        let books = try MappingFixture.books(in: context)
        XCTAssertEqual(books.map { $0.value(forKey: "isbn") as? String }, ["unknown", "unknown"])
    }

    func testAnExpressionOfTheSourceComputesTheValue() throws {
        let model = try MappingFixture.inferred()
        try attributeMapping("pages", in: model).valueExpression = NSExpression(format: "$source.pages + 1")
        try attributeMapping("isbn", in: model).valueExpression = NSExpression(format: "$source.title")
        let context = try MappingFixture.migrate(in: try temporaryDirectory(), with: model)
        let books = try MappingFixture.books(in: context)
        XCTAssertEqual(books.compactMap { ($0.value(forKey: "pages") as? NSNumber)?.intValue }, [475, 250])
        XCTAssertEqual(books.map { $0.value(forKey: "isbn") as? String }, ["Emma", "Persuasion"])
    }

    func testAnAttributeWithoutAMappingIsLeftEmpty() throws {
        let model = try MappingFixture.inferred()
        let book = try bookMapping(model)
        book.attributeMappings = book.attributeMappings?.filter { $0.name != "pages" }
        let context = try MappingFixture.migrate(in: try temporaryDirectory(), with: model)
        let books = try MappingFixture.books(in: context)
        XCTAssertEqual(books.compactMap { $0.value(forKey: "title") as? String }, ["Emma", "Persuasion"])
        XCTAssertEqual(
            books.compactMap { ($0.value(forKey: "pages") as? NSNumber)?.intValue }, [0, 0],
            "the destination's default value")
    }
}
