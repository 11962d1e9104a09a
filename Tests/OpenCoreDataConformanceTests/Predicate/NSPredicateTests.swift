// Imports in the order Xcode's templates write them: Foundation first.
import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPredicate`, as Apple documents it, in a file that imports Foundation and XCTest:
/// every name here must resolve to OpenCoreData's class, not Foundation's Linux stub.
final class NSPredicateTests: XCTestCase {
    func testFormatInitializerReturnsTheSubclassTheFormatDescribes() {
        let comparison: NSPredicate = NSPredicate(format: "age > %d", 30)
        XCTAssertTrue(comparison is NSComparisonPredicate)
        let compound = NSPredicate(format: "age > 30 AND name BEGINSWITH %@", "A")
        XCTAssertTrue(compound is NSCompoundPredicate)
        XCTAssertEqual(NSPredicate(format: "TRUEPREDICATE").predicateFormat, "TRUEPREDICATE")
    }

    func testEvaluatesAgainstDictionariesByKey() {
        let predicate = NSPredicate(format: "name ==[c] %@ AND age >= 18", "ada")
        XCTAssertTrue(predicate.evaluate(with: ["name": "Ada", "age": 36]))
        XCTAssertFalse(predicate.evaluate(with: ["name": "Ada", "age": 12]))
    }

    func testValueAndBlockPredicates() {
        XCTAssertTrue(NSPredicate(value: true).evaluate(with: nil))
        XCTAssertFalse(NSPredicate(value: false).evaluate(with: nil))
        let even = NSPredicate { object, _ in ((object as? Int) ?? 1) % 2 == 0 }
        XCTAssertTrue(even.evaluate(with: 4))
        XCTAssertFalse(even.evaluate(with: 3))
    }

    func testSubstitutionVariables() {
        let template = NSPredicate(format: "age > $minimum")
        let filled = template.withSubstitutionVariables(["minimum": 40])
        XCTAssertEqual(filled, NSPredicate(format: "age > 40"))
        XCTAssertTrue(template.evaluate(with: ["age": 50], substitutionVariables: ["minimum": 40]))
    }

    func testEqualityIsStructural() {
        XCTAssertEqual(NSPredicate(format: "a = 1"), NSPredicate(format: "a == 1"))
        XCTAssertEqual(NSPredicate(format: "a = 1").hash, NSPredicate(format: "a == 1").hash)
        XCTAssertNotEqual(NSPredicate(format: "a = 1"), NSPredicate(format: "a = 2"))
    }

    func testPredicateFormatRoundTrips() {
        let predicate = NSPredicate(format: "ANY tags.name IN %@ OR NOT (title CONTAINS[cd] 'x')", ["a", "b"])
        XCTAssertEqual(NSPredicate(format: predicate.predicateFormat), predicate)
    }

    func testMalformedFormatThrowsThroughParse() {
        XCTAssertThrowsError(try NSPredicate.parse(format: "age >")) { error in
            XCTAssertTrue(error is PredicateParseError, "\(error)")
        }
    }

    func testFiltersFoundationCollections() {
        let names: NSArray = ["Ada", "Alan", "Grace"]
        let filtered = names.filtered(using: NSPredicate(format: "SELF BEGINSWITH 'A'"))
        XCTAssertEqual(filtered as? [String], ["Ada", "Alan"])
        let swiftArray = ["Ada", "Alan", "Grace"].filtered(using: NSPredicate(format: "SELF ENDSWITH %@", "e"))
        XCTAssertEqual(swiftArray, ["Grace"])
    }
    func testComparisonConstantsAreNSNumbersThatCastToInt() throws {
        // Ported code reads a comparison's constant and casts it.
        let comparison = try XCTUnwrap(NSPredicate(format: "age == 3") as? NSComparisonPredicate)
        XCTAssertTrue(comparison.rightExpression.constantValue is NSNumber)
        XCTAssertEqual(comparison.rightExpression.constantValue as? Int, 3)
        let flag = try XCTUnwrap(NSPredicate(format: "isOpen = true") as? NSComparisonPredicate)
        XCTAssertEqual(flag.rightExpression.constantValue as? Int, 1)
        XCTAssertEqual(flag.rightExpression.constantValue as? Bool, true)
        let real = try XCTUnwrap(NSPredicate(format: "score > 2.5") as? NSComparisonPredicate)
        XCTAssertEqual(real.rightExpression.constantValue as? Double, 2.5)
        // Evaluation still compares across representations.
        XCTAssertTrue(NSPredicate(format: "age == 3").evaluate(with: ["age": Int16(3)]))
        XCTAssertTrue(NSPredicate(format: "age == %@", NSNumber(value: 3)).evaluate(with: ["age": 3.0]))
        XCTAssertTrue(NSPredicate(format: "isOpen == YES").evaluate(with: ["isOpen": true]))
    }
}
