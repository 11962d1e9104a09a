import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSComparisonPredicate`, built in code as Apple documents it; XCTest alone brings
/// Foundation in here, which must not make the names ambiguous.
final class NSComparisonPredicateTests: XCTestCase {
    func testBuiltInCodeEqualsTheParsedPredicate() {
        let built = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "name"),
            rightExpression: NSExpression(forConstantValue: "ada"),
            modifier: .direct, type: .like, options: [.caseInsensitive])
        XCTAssertEqual(built, NSPredicate(format: "name LIKE[c] 'ada'"))
        XCTAssertEqual(built.predicateOperatorType, .like)
        XCTAssertEqual(built.comparisonPredicateModifier, .direct)
        XCTAssertEqual(built.options, .caseInsensitive)
        XCTAssertEqual(built.leftExpression.keyPath, "name")
        XCTAssertTrue(built.evaluate(with: ["name": "ADA"]))
    }

    func testAnyAndAllModifiers() {
        let any = NSPredicate(format: "ANY scores > 90") as? NSComparisonPredicate
        XCTAssertEqual(any?.comparisonPredicateModifier, .any)
        XCTAssertEqual(any?.evaluate(with: ["scores": [50, 95]]), true)
        let all = NSPredicate(format: "ALL scores > 90")
        XCTAssertFalse(all.evaluate(with: ["scores": [50, 95]]))
    }

    func testBetweenAndIn() {
        XCTAssertTrue(NSPredicate(format: "age BETWEEN {18, 65}").evaluate(with: ["age": 30]))
        XCTAssertTrue(NSPredicate(format: "name IN %@", ["a", "b"]).evaluate(with: ["name": "b"]))
        XCTAssertFalse(NSPredicate(format: "name IN %@", ["a", "b"]).evaluate(with: ["name": "c"]))
    }
}
