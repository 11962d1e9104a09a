import Foundation
@testable import OpenSwiftData
import Testing

/// A struct whose optional properties are of every integer width: each one is an optional element.
private struct CLPlacement: Codable {
    var row: Int8?
    var floor: Int16?
    var seat: Int32?
    var section: UInt?
    var level: UInt8?
    var block: UInt16?
    var gate: UInt32?
    var code: UInt64?
    var label: String
}

@Suite struct CompositeLayoutTests {
    @Test func optionalPropertiesOfEveryIntegerWidthAreOptionalElements() throws {
        let layout = try #require(CompositeLayout.of(CLPlacement.self))
        let optional = Dictionary(uniqueKeysWithValues: layout.elements.map { ($0.name, $0.isOptional) })
        #expect(
            optional == [
                "row": true, "floor": true, "seat": true, "section": true, "level": true,
                "block": true, "gate": true, "code": true, "label": false,
            ])
    }
}
