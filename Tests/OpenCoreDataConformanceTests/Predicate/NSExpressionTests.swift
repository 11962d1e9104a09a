// OpenCoreData first, then Foundation: the other order must compile too.
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif
import Foundation
import XCTest

/// `NSExpression`, as Apple documents it.
final class NSExpressionTests: XCTestCase {
    func testArithmeticFollowsPrecedence() {
        // Apple's example: ** binds tighter than + and -, which associate to the left.
        let value = NSExpression(format: "4 + 5 - 2**3").expressionValue(with: nil, context: nil)
        XCTAssertEqual((value as? NSNumber)?.intValue, 1)
        XCTAssertEqual((NSExpression(format: "10 - 2 * 3").expressionValue(with: nil, context: nil) as? NSNumber)?.intValue, 4)
    }

    func testExpressionKindsAndAccessors() {
        XCTAssertEqual(NSExpression(forKeyPath: "name").expressionType, .keyPath)
        XCTAssertEqual(NSExpression(forKeyPath: "name").keyPath, "name")
        XCTAssertEqual(NSExpression(forConstantValue: 3).expressionType, .constantValue)
        XCTAssertEqual(NSExpression(forVariable: "x").variable, "x")
        XCTAssertEqual(NSExpression.expressionForEvaluatedObject().expressionType, .evaluatedObject)
        let sum = NSExpression(forFunction: "sum:", arguments: [NSExpression(forConstantValue: [1, 2, 3])])
        XCTAssertEqual(sum.function, "sum:")
        XCTAssertEqual((sum.expressionValue(with: nil, context: nil) as? NSNumber)?.intValue, 6)
    }

    func testKeyPathReadsTheEvaluatedObject() {
        let expression = NSExpression(forKeyPath: "address.city")
        let person: [String: Any] = ["address": ["city": "Paris"]]
        XCTAssertEqual(expression.expressionValue(with: person, context: nil) as? String, "Paris")
    }

    func testVariablesComeFromTheContext() {
        let context = NSMutableDictionary(dictionary: ["x": 4])
        let value = NSExpression(format: "$x * 2").expressionValue(with: nil, context: context)
        XCTAssertEqual((value as? NSNumber)?.intValue, 8)
    }

    func testEqualityIsStructural() {
        XCTAssertEqual(NSExpression(format: "a.b"), NSExpression(forKeyPath: "a.b"))
        XCTAssertNotEqual(NSExpression(forKeyPath: "a"), NSExpression(forKeyPath: "b"))
    }

    func testKeyPathInitializerNamesTheManagedProperty() throws {
        XCTAssertEqual(NSExpression(forKeyPath: \Book.title).keyPath, "title")
        XCTAssertEqual(NSExpression(forKeyPath: \Book.author?.name).keyPath, "author.name")
        let context = try ConformanceModel.context()
        let book = Book(context: context)
        book.title = "Dune"
        XCTAssertEqual(NSExpression(forKeyPath: \Book.title).expressionValue(with: book, context: nil) as? String, "Dune")
    }
}
