import Foundation
import Testing
@testable import OpenCoreDataCore

/// The shortcuts the hot paths take around the runtime's general cast: each must
/// answer exactly as the general path does, or step aside (`nil`) and let it answer.
@Suite struct ExactCastTests {
    @Test func aValueOfExactlyTheTypeComesOutUnchanged() {
        #expect(exactCast("Ada" as Any, to: String.self) == "Ada")
        #expect(exactCast(Int64.max as Any, to: Int64.self) == .max)
        #expect(
            exactCast(Date(timeIntervalSinceReferenceDate: 42) as Any, to: Date.self)
                == Date(timeIntervalSinceReferenceDate: 42))
        let longText = String(repeating: "a heap-allocated string ", count: 4)
        #expect(exactCast(longText as Any, to: String.self) == longText)
    }

    /// Everything the general cast converts is left to it: another width, an optional
    /// in the box, a bridged class, a subclass.
    @Test func anythingElseStepsAsideForTheGeneralCast() {
        #expect(exactCast(Int32(7) as Any, to: Int64.self) == nil)
        #expect(exactCast(Optional("Ada") as Any, to: String.self) == nil)
        #expect(exactCast(NSString(string: "Ada") as Any, to: String.self) == nil)
        #expect(exactCast(NSMutableString(string: "Ada") as Any, to: NSString.self) == nil)
        #expect((NSString(string: "Ada") as Any) as? String == "Ada", "the general cast still bridges")
    }

    /// Stored values compare as `AnyHashable` compares them (what the comparison was
    /// before its shortcut): NaN differs from itself, signed zeros are equal, integers
    /// of different widths compare by value, a `String` and an `NSString` as Foundation
    /// here hashes them.
    @Test func storedValuesCompareAsHashablesDo() {
        let pairs: [(AnyHashable, AnyHashable)] = [
            ("a", "a"), ("a", "b"), (Double.nan, Double.nan), (-0.0, 0.0), (Int64(1), Int32(1)), (Int16(2), Int64(3)),
            (Date(timeIntervalSinceReferenceDate: 1), Date(timeIntervalSinceReferenceDate: 1)), (true, false),
            (Float(1.5), Double(1.5)), ("a", NSString(string: "a")),
            (UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, "x"),
        ]
        for (lhs, rhs) in pairs {
            #expect(AttributeValue.isEqual(lhs.base, rhs.base) == (lhs == rhs), "\(lhs.base) vs \(rhs.base)")
        }
        #expect(AttributeValue.isEqual(nil, nil))
        #expect(!AttributeValue.isEqual(true, nil))
    }
}
