import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSFetchRequestExpression`: an expression whose value is the result of a fetch.
final class NSFetchRequestExpressionTests: XCTestCase {
    private func austensBooks() -> NSFetchRequest<NSFetchRequestResult> {
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        fetch.predicate = NSPredicate(format: "author.name == %@", "Austen")
        fetch.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return fetch
    }

    func testTheExpressionKeepsItsParts() throws {
        let request = NSExpression(forConstantValue: austensBooks())
        let context = NSExpression(forVariable: "context")
        let expression = NSFetchRequestExpression.expressionForFetch(request, context: context, countOnly: true)
        XCTAssertEqual(expression.expressionType, NSFetchRequestExpressionType)
        let fetch = try XCTUnwrap(expression as? NSFetchRequestExpression)
        XCTAssertTrue(fetch.isCountOnlyRequest)
        XCTAssertEqual(fetch.contextExpression.variable, "context")
        XCTAssertEqual(fetch.requestExpression.expressionType, .constantValue)
    }

    func testEvaluatingRunsTheFetchInTheContext() throws {
        let context = try ConformanceModel.library()
        let expression = NSFetchRequestExpression.expressionForFetch(
            NSExpression(forConstantValue: austensBooks()), context: NSExpression(forConstantValue: context),
            countOnly: false)
        let value = expression.expressionValue(with: nil, context: nil)
        let books = ((value as? [Any]) ?? []).compactMap { $0 as? Book }
        XCTAssertEqual(books.map(\.title), ["Emma", "Persuasion"])
        XCTAssertTrue(books.allSatisfy { $0.managedObjectContext === context })
    }

    func testACountOnlyExpressionGivesTheCount() throws {
        let context = try ConformanceModel.library()
        let expression = NSFetchRequestExpression.expressionForFetch(
            NSExpression(forConstantValue: austensBooks()), context: NSExpression(forConstantValue: context),
            countOnly: true)
        let value = expression.expressionValue(with: nil, context: nil)
        XCTAssertEqual((value as? NSNumber)?.intValue ?? (value as? Int), 2)
    }

    func testTheRequestAndContextMayComeFromVariables() throws {
        let context = try ConformanceModel.library()
        let expression = NSFetchRequestExpression.expressionForFetch(
            NSExpression(forVariable: "request"), context: NSExpression(forVariable: "context"), countOnly: false)
        let bindings = NSMutableDictionary(dictionary: ["request": austensBooks(), "context": context])
        let value = expression.expressionValue(with: nil, context: bindings)
        XCTAssertEqual(((value as? [Any]) ?? []).compactMap { ($0 as? Book)?.title }, ["Emma", "Persuasion"])
    }
}
