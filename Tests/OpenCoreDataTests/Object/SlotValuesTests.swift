import Foundation
import Testing
@testable import OpenCoreDataCore

/// An object's values laid out per entity: scalars and strings unboxed, the rest in
/// `Any`, copy-on-write between the row cache, snapshots and objects.
@Suite struct SlotValuesTests {
    private final class Token {}

    private static let layout = SlotLayout([.int16, .int32, .int64, .bool, .double, .float, .date, .string, .boxed])

    /// A row decoder's writes: each slot filled in place once, read back as set and
    /// released with the values (a string and a boxed object).
    @Test func freshSlotsAreFilledInPlace() {
        weak var watched: NSObject?
        do {
            let tracked = NSObject()
            watched = tracked
            var values = SlotValues(layout: Self.layout)
            values.fillingFreshSlots { slots in
                slots.set(Int16(-3), at: 0)
                slots.set(Int32(70_000), at: 1)
                slots.set(Int64.max, at: 2)
                slots.set(true, at: 3)
                slots.set(2.5, at: 4)
                slots.set(Float(1.5), at: 5)
                slots.set(Date(timeIntervalSinceReferenceDate: 42), at: 6)
                slots.set(String(repeating: "long string ", count: 4), at: 7)
                slots.set(boxed: tracked, at: 8)
            }
            #expect(values.native(0, as: Int16.self) == .some(-3))
            #expect(values.native(1, as: Int32.self) == .some(70_000))
            #expect(values.native(2, as: Int64.self) == .some(.max))
            #expect(values.native(3, as: Bool.self) == .some(true))
            #expect(values.native(4, as: Double.self) == .some(2.5))
            #expect(values.native(5, as: Float.self) == .some(1.5))
            #expect(values.native(6, as: Date.self) == .some(Date(timeIntervalSinceReferenceDate: 42)))
            #expect(values.native(7, as: String.self) == .some(String(repeating: "long string ", count: 4)))
            #expect(values[8] as AnyObject? === tracked)
        }
        #expect(watched == nil, "released with the values")
    }

    private static func filled() -> SlotValues {
        var values = SlotValues(layout: layout)
        values[0] = Int16(-7)
        values[1] = Int32(70_000)
        values[2] = Int64.max
        values[3] = true
        values[4] = 2.5
        values[5] = Float(1.25)
        values[6] = Date(timeIntervalSinceReferenceDate: 1_000)
        values[7] = String(repeating: "long string, not a small one ", count: 3)
        values[8] = Data([1, 2, 3])
        return values
    }

    @Test func everyRepresentationReadsBackWhatWasStored() {
        let values = Self.filled()
        #expect(values.count == 9)
        #expect(values[0] as? Int16 == -7)
        #expect(values[1] as? Int32 == 70_000)
        #expect(values[2] as? Int64 == .max)
        #expect(values[3] as? Bool == true)
        #expect(values[4] as? Double == 2.5)
        #expect(values[5] as? Float == 1.25)
        #expect(values[6] as? Date == Date(timeIntervalSinceReferenceDate: 1_000))
        #expect((values[7] as? String)?.hasPrefix("long string") == true)
        #expect(values[8] as? Data == Data([1, 2, 3]))
        #expect(values.native(2, as: Int64.self) == .some(.max))
        #expect(values.native(7, as: String.self)??.count == 87)
        #expect(values.native(8, as: Data.self) == .some(Data([1, 2, 3])))
    }

    @Test func aMissingValueIsNilAndClearingForgetsIt() {
        var values = Self.filled()
        let empty = SlotValues(layout: Self.layout)
        #expect(empty.allSatisfy { $0 == nil })
        #expect(empty.native(2, as: Int64.self) == .some(nil))
        values[7] = nil
        values.setNative(nil as Int64?, at: 2)
        #expect(values[7] == nil && values[2] == nil)
        #expect(values.native(7, as: String.self) == .some(nil))
        #expect(values[6] != nil)
    }

    @Test func aReadOfAnotherTypeAsksForTheGeneralPath() {
        let values = Self.filled()
        #expect(values.native(2, as: Int32.self) == nil)  // an Int64 field read as Int32
        #expect(values.native(8, as: String.self) == nil)  // boxed Data read as String
    }

    @Test func copiesShareUntilOneWrites() {
        let original = Self.filled()
        var copy = original
        copy[7] = "changed"
        copy.setNative(Int64(1), at: 2)
        copy[8] = nil
        #expect((original[7] as? String)?.hasPrefix("long string") == true)
        #expect(original[2] as? Int64 == .max)
        #expect(original[8] as? Data == Data([1, 2, 3]))
        #expect(copy[7] as? String == "changed" && copy[2] as? Int64 == 1 && copy[8] == nil)
        // Untouched slots were copied across.
        #expect(copy[6] as? Date == Date(timeIntervalSinceReferenceDate: 1_000) && copy[3] as? Bool == true)
    }

    @Test func aValueItsTypedFieldCannotHoldMovesTheValuesIntoBoxes() {
        var values = Self.filled()
        values[2] = NSNumber(value: 5)  // not an Int64: kept as given, not converted or dropped
        #expect(values[2] is NSNumber)
        #expect(values.layout.fields.allSatisfy { $0.representation == .boxed })
        #expect(values[0] as? Int16 == -7 && (values[7] as? String)?.hasPrefix("long") == true)
        #expect(values.native(7, as: String.self)??.hasPrefix("long") == true)
        values.setNative(Int64(9), at: 2)
        #expect(values.native(2, as: Int64.self) == .some(9))
    }

    @Test func referencesAreReleasedWhenReplacedClearedOrDropped() {
        weak var first: Token?
        weak var second: Token?
        var values = SlotValues(layout: Self.layout)
        do {
            let a = Token(), b = Token()
            first = a
            second = b
            values[8] = a
        }
        #expect(first != nil)
        values[8] = second  // nil already: `b` died with its scope
        #expect(first == nil)
        do {
            let c = Token()
            second = c
            values[8] = c
            var shared: SlotValues? = values
            values[8] = nil
            #expect(second != nil)  // the copy still holds it
            shared = nil
            _ = shared
        }
        #expect(second == nil)
    }

    @Test func storingEveryTypeInEverySlotNeverLosesAValue() {
        // Each slot takes each kind of value, typed or not; what goes in comes out.
        let samples: [Any] = [
            Int16(1), Int32(2), Int64(3), false, 4.5, Float(5.5), Date(timeIntervalSince1970: 6), "seven", Data([8]),
            NSNumber(value: 9),
        ]
        for slot in 0..<Self.layout.count {
            for sample in samples {
                var values = Self.filled()
                values[slot] = sample
                #expect(String(describing: values[slot]!) == String(describing: sample))
                #expect(
                    values.indices.filter { $0 != slot }.allSatisfy {
                        values[$0].map { String(describing: $0) } == Self.filled()[$0].map { String(describing: $0) }
                    })
            }
        }
    }

    @Test func aRowKeepsItsValuesEvenWhenItsLastHolderWrites() {
        let entity = NSEntityDescription()
        entity.name = "Row"
        var values: SlotValues
        weak var dead: StoreRow?
        do {
            let row = StoreRow.make(
                objectID: NSManagedObjectID(temporaryFor: entity), version: 3, values: Self.filled(), timestamp: 1)
            #expect(row.version == 3 && row.timestamp == 1 && row.objectID.entity === entity)
            #expect(row.values[2] as? Int64 == .max)
            dead = row
            values = row.values
        }
        // `values` alone holds the row now; writing must still copy (the row cache may
        // hand the row out again), so the row dies instead of changing.
        #expect(dead != nil)
        values[2] = Int64(1)
        #expect(dead == nil)
        #expect(values[2] as? Int64 == 1 && values[0] as? Int16 == -7)
    }
}
