import Foundation
import OpenCoreData
import XCTest

/// `NSSortDescriptor`, as Apple documents it.
final class NSSortDescriptorTests: XCTestCase {
    func testKeyAndAscending() {
        let byName = NSSortDescriptor(key: "name", ascending: true)
        XCTAssertEqual(byName.key, "name")
        XCTAssertTrue(byName.ascending)
        let reversed = byName.reversedSortDescriptor as? NSSortDescriptor
        XCTAssertEqual(reversed?.ascending, false)
        XCTAssertEqual(byName.compare(["name": "a"], to: ["name": "b"]), .orderedAscending)
    }

    func testSelectorNamesTheComparison() {
        let descriptor = NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:")
        XCTAssertEqual(descriptor.compare(["name": "b"], to: ["name": "A"]), .orderedDescending)
    }

    func testSortsFoundationAndSwiftCollections() {
        let people: [[String: Any]] = [["name": "b", "age": 2], ["name": "a", "age": 2], ["name": "c", "age": 1]]
        let sorted = (people as NSArray).sortedArray(using: [
            NSSortDescriptor(key: "age", ascending: false), NSSortDescriptor(key: "name", ascending: true),
        ])
        XCTAssertEqual(sorted.compactMap { ($0 as? [String: Any])?["name"] as? String }, ["a", "b", "c"])
    }

    func testComparatorDescriptor() {
        let byLength = NSSortDescriptor(key: "self", ascending: true) { lhs, rhs in
            let (l, r) = ((lhs as? String)?.count ?? 0, (rhs as? String)?.count ?? 0)
            return l < r ? .orderedAscending : l > r ? .orderedDescending : .orderedSame
        }
        XCTAssertEqual(["ccc", "a", "bb"].sorted(using: [byLength]), ["a", "bb", "ccc"])
    }
}
