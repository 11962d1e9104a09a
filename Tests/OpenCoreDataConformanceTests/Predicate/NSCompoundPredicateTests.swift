import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSCompoundPredicate`, as Apple documents it.
final class NSCompoundPredicateTests: XCTestCase {
    func testAndOrNot() {
        let adult = NSPredicate(format: "age >= 18")
        let named = NSPredicate(format: "name != nil")
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [adult, named])
        XCTAssertEqual(both.compoundPredicateType, .and)
        XCTAssertEqual(both.subpredicates.count, 2)
        XCTAssertTrue(both.evaluate(with: ["age": 20, "name": "Ada"]))
        XCTAssertFalse(both.evaluate(with: ["age": 20]))
        let either = NSCompoundPredicate(orPredicateWithSubpredicates: [adult, named])
        XCTAssertTrue(either.evaluate(with: ["age": 20]))
        let minor = NSCompoundPredicate(notPredicateWithSubpredicate: adult)
        XCTAssertEqual(minor.compoundPredicateType, .not)
        XCTAssertTrue(minor.evaluate(with: ["age": 12]))
        XCTAssertEqual(both, NSPredicate(format: "age >= 18 AND name != nil"))
    }

    func testEmptyCompoundsFollowApple() {
        // An empty AND is true and an empty OR is false, as Apple documents.
        XCTAssertTrue(NSCompoundPredicate(andPredicateWithSubpredicates: []).evaluate(with: nil))
        XCTAssertFalse(NSCompoundPredicate(orPredicateWithSubpredicates: []).evaluate(with: nil))
    }
}
