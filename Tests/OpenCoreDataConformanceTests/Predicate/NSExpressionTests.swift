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
        XCTAssertEqual(
            (NSExpression(format: "10 - 2 * 3").expressionValue(with: nil, context: nil) as? NSNumber)?.intValue, 4)
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
        XCTAssertEqual(
            NSExpression(forKeyPath: \Book.title).expressionValue(with: book, context: nil) as? String, "Dune")
    }
    // MARK: Numbers are NSNumbers

    /// Values Foundation hands back as `NSNumber` answer every numeric cast, as ported code
    /// expects: a Swift `Double` would refuse `as? Int`, a Swift `Bool` `as? Int`.
    func testConstantsFromFormatStringsAreNSNumbers() throws {
        for (format, integer) in [("3", 3), ("TRUE", 1), ("YES", 1), ("FALSE", 0), ("NO", 0), ("2.0", 2)] {
            let value = NSExpression(format: format).constantValue
            XCTAssertTrue(value is NSNumber, "\(format) gives \(type(of: value as Any))")
            XCTAssertEqual(value as? Int, integer, format)
            XCTAssertNotNil(value as? Double, format)
        }
        XCTAssertEqual(NSExpression(format: "TRUE").constantValue as? Bool, true)
        XCTAssertEqual(NSExpression(format: "NO").constantValue as? Bool, false)
        XCTAssertEqual(NSExpression(format: "2.5").constantValue as? Double, 2.5)
        XCTAssertEqual(NSExpression(format: "-4").constantValue as? Int, -4)
    }

    func testArithmeticAndFunctionResultsAreNSNumbers() {
        let results: [(String, Int)] = [
            ("3 + 4", 7), ("10 - 4", 6), ("2 * 3", 6), ("6 / 2", 3), ("2 ** 3", 8),
            ("sum:({1, 2, 3})", 6), ("count:({1, 2, 3})", 3), ("average:({2, 4})", 3), ("max:({1, 5, 3})", 5),
            ("min:({4, 2})", 2), ("abs:(-3)", 3), ("sqrt:(16)", 4), ("floor:(2.5)", 2), ("modulus:by:(7, 4)", 3),
        ]
        for (format, expected) in results {
            let value = NSExpression(format: format).expressionValue(with: nil, context: nil)
            XCTAssertTrue(value is NSNumber, "\(format) gives \(type(of: value as Any))")
            XCTAssertEqual(value as? Int, expected, format)
        }
    }

    // MARK: Bitwise operators

    func testBitwiseOperatorsParseAsTheirFunctions() throws {
        let cases: [(String, String, Int)] = [
            ("6 & 3", "bitwiseAnd:with:", 2), ("6 | 3", "bitwiseOr:with:", 7), ("6 ^ 3", "bitwiseXor:with:", 5),
        ]
        for (format, function, value) in cases {
            let expression = NSExpression(format: format)
            XCTAssertEqual(expression.expressionType, .function, format)
            XCTAssertEqual(expression.function, function, format)
            XCTAssertEqual(expression.arguments?.count, 2, format)
            XCTAssertEqual(expression.expressionValue(with: nil, context: nil) as? Int, value, format)
        }
        let complement = NSExpression(format: "~5")
        XCTAssertEqual(complement.function, "onesComplement:")
        XCTAssertEqual(complement.expressionValue(with: nil, context: nil) as? Int, -6)
    }

    func testBitwiseOperatorsFilterAndRoundTrip() throws {
        let predicate = NSPredicate(format: "(flags & 4) != 0 AND (flags | 1) == flags")
        XCTAssertTrue(predicate.evaluate(with: ["flags": 5]))
        XCTAssertFalse(predicate.evaluate(with: ["flags": 4]))
        XCTAssertFalse(predicate.evaluate(with: ["flags": 3]))
        XCTAssertEqual(NSPredicate(format: predicate.predicateFormat), predicate)
        let mixed = NSExpression(format: "1 | 2 ^ 6 & ~a + 1")
        XCTAssertEqual(NSExpression(format: mixed.description), mixed)
    }
}
