import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSFetchIndexElementDescription`: one property of a fetch index, with its collation and order.
final class NSFetchIndexElementDescriptionTests: XCTestCase {
    func testTheElementNamesItsProperty() {
        let title = ConformanceModel.attribute("title", .stringAttributeType)
        let element = NSFetchIndexElementDescription(property: title, collationType: .binary)
        XCTAssertTrue(element.property === title)
        XCTAssertEqual(element.propertyName, "title")
        XCTAssertEqual(element.collationType, .binary)
        XCTAssertNil(element.indexDescription, "no index holds it yet")
    }

    func testElementsAreAscendingUnlessToldOtherwise() {
        let element = NSFetchIndexElementDescription(
            property: ConformanceModel.attribute("pages", .integer32AttributeType), collationType: .binary)
        XCTAssertTrue(element.isAscending)
        element.isAscending = false
        XCTAssertFalse(element.isAscending)
    }

    func testTheCollationTypesHaveTheirCValues() {
        XCTAssertEqual(NSFetchIndexElementType.binary.rawValue, 0)
        XCTAssertEqual(NSFetchIndexElementType.rTree.rawValue, 1)
        let element = NSFetchIndexElementDescription(
            property: ConformanceModel.attribute("born", .dateAttributeType), collationType: .rTree)
        XCTAssertEqual(element.collationType, .rTree)
        element.collationType = .binary
        XCTAssertEqual(element.collationType, .binary)
    }

    func testAnElementBelongsToTheIndexThatHoldsIt() {
        let first = NSFetchIndexElementDescription(
            property: ConformanceModel.attribute("title", .stringAttributeType), collationType: .binary)
        let second = NSFetchIndexElementDescription(
            property: ConformanceModel.attribute("pages", .integer32AttributeType), collationType: .binary)
        let index = NSFetchIndexDescription(name: "byTitle", elements: [first, second])
        XCTAssertTrue(first.indexDescription === index)
        XCTAssertTrue(second.indexDescription === index)
        XCTAssertEqual(index.elements.map(\.propertyName), ["title", "pages"])
    }
}
