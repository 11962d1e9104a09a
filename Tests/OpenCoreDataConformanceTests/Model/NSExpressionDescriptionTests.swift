import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSExpressionDescription`: a computed column of a dictionary fetch.
final class NSExpressionDescriptionTests: XCTestCase {
    private func description(
        _ name: String, _ function: String, of keyPath: String, type: NSAttributeType
    ) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        description.expressionResultType = type
        return description
    }

    func testANewDescriptionHasNoExpressionAndAnUndefinedType() {
        let description = NSExpressionDescription()
        XCTAssertNil(description.expression)
        XCTAssertEqual(description.expressionResultType, .undefinedAttributeType)
        let property: NSPropertyDescription = description
        property.name = "total"
        XCTAssertEqual(description.name, "total")
    }

    func testAnAggregateIsComputedByTheStore() throws {
        let context = try ConformanceModel.library()
        let books = try context.fetch(NSFetchRequest<Book>(entityName: "Book"))
        for book in books { book.pages = book.title == "Middlemarch" ? 880 : 400 }
        try context.save()

        let fetch = NSFetchRequest<NSDictionary>(entityName: "Book")
        fetch.resultType = .dictionaryResultType
        fetch.propertiesToFetch = [
            description("total", "sum:", of: "pages", type: .integer64AttributeType),
            description("longest", "max:", of: "pages", type: .integer32AttributeType),
        ]
        let row = try XCTUnwrap(try context.fetch(fetch).first)
        XCTAssertEqual((row["total"] as? NSNumber)?.intValue, 1680)
        XCTAssertEqual((row["longest"] as? NSNumber)?.intValue, 880)
    }

    func testGroupingByAnAttributeGivesOneRowPerGroup() throws {
        let context = try ConformanceModel.library()
        let fetch = NSFetchRequest<NSDictionary>(entityName: "Book")
        fetch.resultType = .dictionaryResultType
        let count = description("books", "count:", of: "title", type: .integer64AttributeType)
        fetch.propertiesToFetch = ["author.name", count]
        fetch.propertiesToGroupBy = ["author.name"]
        fetch.sortDescriptors = [NSSortDescriptor(key: "author.name", ascending: true)]
        let rows = try context.fetch(fetch)
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows.map { $0["author.name"] as? String }, ["Austen", "Eliot"])
        XCTAssertEqual(rows.map { ($0["books"] as? NSNumber)?.intValue }, [2, 1])
    }

    func testTheNameIsTheResultsKey() throws {
        let context = try ConformanceModel.library()
        let fetch = NSFetchRequest<NSDictionary>(entityName: "Author")
        fetch.resultType = .dictionaryResultType
        let shouted = NSExpressionDescription()
        shouted.name = "shout"
        shouted.expression = NSExpression(forFunction: "uppercase:", arguments: [NSExpression(forKeyPath: "name")])
        shouted.expressionResultType = .stringAttributeType
        fetch.propertiesToFetch = [shouted]
        fetch.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let rows = try context.fetch(fetch)
        XCTAssertEqual(rows.map { Array($0.allKeys) as? [String] }, [["shout"], ["shout"]])
        XCTAssertEqual(rows.map { $0["shout"] as? String }, ["AUSTEN", "ELIOT"])
    }
}
