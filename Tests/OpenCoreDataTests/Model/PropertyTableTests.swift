import Foundation
import Testing
@testable import OpenCoreDataCore

/// Finding a property by name, as every accessor does: the comparison of the name's
/// bits is a shortcut only; names it cannot match are found by `String` equality.
@Suite struct PropertyTableTests {
    private func table(_ names: [String]) -> PropertyTable {
        PropertyTable(
            names.enumerated().map { slot, name in
                let attribute = NSAttributeDescription()
                attribute.name = name
                attribute.attributeType = .stringAttributeType
                attribute.slot = slot
                return attribute
            })
    }

    @Test func namesAreFoundWhateverTheirStringLayout() {
        let long = "aPropertyNameLongerThanFifteenBytes"
        let table = table(["name", long, "café"])
        #expect(table.slot(named: "name") == 0)
        #expect(table.slot(named: long) == 1)
        // The same text built at run time: another heap buffer, so other bits.
        #expect(table.slot(named: String("aPropertyName") + "LongerThanFifteenBytes") == 1)
        // Canonically equal, byte-wise different (a decomposed é).
        #expect(table.slot(named: "cafe\u{301}") == 2)
        #expect(table["café"]?.name == "café")
        #expect(table.slot(named: "missing") == nil)
        #expect(table["nam"] == nil)
    }
}
