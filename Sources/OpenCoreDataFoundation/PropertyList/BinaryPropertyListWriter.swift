import Foundation
/// Writes ``PropertyListValue``s as a binary property list (`bplist00`), UIDs included.
///
/// The inverse of ``BinaryPropertyListReader``: compiled models and the model a store
/// caches in `Z_MODELCACHE` are keyed archives, whose objects refer to each other by UID,
/// and Foundation on Linux cannot write UIDs. Equal strings, numbers and UIDs are stored
/// once, as Apple's writer does, so an archive's many repeated names cost one object each.
package struct BinaryPropertyListWriter {
    /// One object of the file: a scalar, or a collection of other objects' indexes.
    private enum Node {
        case scalar(PropertyListValue)
        case array([Int])
        case set([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    /// What a scalar is uniqued by: its kind and its value's text.
    private struct ScalarKey: Hashable {
        package let kind: UInt8
        package let text: String
    }

    private var nodes: [Node] = []
    private var uniqued: [ScalarKey: Int] = [:]

    /// The `bplist00` bytes of `value`.
    package static func data(for value: PropertyListValue) -> Data {
        var writer = BinaryPropertyListWriter()
        let top = writer.flatten(value)
        return writer.serialize(top: top)
    }

    // MARK: Flattening

    private mutating func flatten(_ value: PropertyListValue) -> Int {
        switch value {
        case let .array(items):
            let index = reserve()
            nodes[index] = .array(items.map { flatten($0) })
            return index
        case let .set(items):
            let index = reserve()
            nodes[index] = .set(items.map { flatten($0) })
            return index
        case let .dictionary(entries):
            let index = reserve()
            // Sorted keys: the same dictionary always gives the same bytes.
            let sorted = entries.sorted { $0.key < $1.key }
            let keys = sorted.map { flatten(.string($0.key)) }
            let values = sorted.map { flatten($0.value) }
            nodes[index] = .dictionary(keys: keys, values: values)
            return index
        default:
            guard let key = Self.uniquingKey(value) else {
                nodes.append(.scalar(value))
                return nodes.count - 1
            }
            if let known = uniqued[key] { return known }
            nodes.append(.scalar(value))
            uniqued[key] = nodes.count - 1
            return nodes.count - 1
        }
    }

    private mutating func reserve() -> Int {
        nodes.append(.array([]))
        return nodes.count - 1
    }

    private static func uniquingKey(_ value: PropertyListValue) -> ScalarKey? {
        switch value {
        case let .string(text): ScalarKey(kind: 0, text: text)
        case let .integer(number): ScalarKey(kind: 1, text: String(number))
        case let .uid(number): ScalarKey(kind: 2, text: String(number))
        case let .bool(flag): ScalarKey(kind: 3, text: flag ? "1" : "0")
        case let .real(number): ScalarKey(kind: 4, text: String(number.bitPattern))
        default: nil
        }
    }

    // MARK: Serializing

    private func serialize(top: Int) -> Data {
        // Sized for the object count itself, not the largest index: Apple's reader refuses
        // a file whose reference size cannot also hold the count (256 objects need 2 bytes).
        let referenceSize = Self.byteCount(for: UInt64(nodes.count))
        var bytes: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(nodes.count)
        for node in nodes {
            offsets.append(bytes.count)
            switch node {
            case let .scalar(value): Self.append(value, to: &bytes)
            case let .array(members):
                Self.appendMarker(0xA, count: members.count, to: &bytes)
                for member in members { Self.appendBigEndian(UInt64(member), width: referenceSize, to: &bytes) }
            case let .set(members):
                Self.appendMarker(0xC, count: members.count, to: &bytes)
                for member in members { Self.appendBigEndian(UInt64(member), width: referenceSize, to: &bytes) }
            case let .dictionary(keys, values):
                Self.appendMarker(0xD, count: keys.count, to: &bytes)
                for key in keys { Self.appendBigEndian(UInt64(key), width: referenceSize, to: &bytes) }
                for value in values { Self.appendBigEndian(UInt64(value), width: referenceSize, to: &bytes) }
            }
        }
        let tableStart = bytes.count
        let offsetSize = Self.byteCount(for: UInt64(tableStart))
        for offset in offsets { Self.appendBigEndian(UInt64(offset), width: offsetSize, to: &bytes) }
        // Trailer: five unused bytes, the sort version, the two sizes, then three 8-byte numbers.
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        Self.appendBigEndian(UInt64(nodes.count), width: 8, to: &bytes)
        Self.appendBigEndian(UInt64(top), width: 8, to: &bytes)
        Self.appendBigEndian(UInt64(tableStart), width: 8, to: &bytes)
        return Data(bytes)
    }

    private static func append(_ value: PropertyListValue, to bytes: inout [UInt8]) {
        switch value {
        case let .bool(flag): bytes.append(flag ? 0x09 : 0x08)
        case let .integer(number): appendInteger(number, to: &bytes)
        case let .real(number):
            bytes.append(0x23)
            appendBigEndian(number.bitPattern, width: 8, to: &bytes)
        case let .date(seconds):
            bytes.append(0x33)
            appendBigEndian(seconds.bitPattern, width: 8, to: &bytes)
        case let .data(data):
            appendMarker(0x4, count: data.count, to: &bytes)
            bytes += data
        case let .string(text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                appendMarker(0x5, count: text.utf8.count, to: &bytes)
                bytes += text.utf8
            } else {
                let units = Array(text.utf16)
                appendMarker(0x6, count: units.count, to: &bytes)
                for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
            }
        case let .uid(number):
            let width = byteCount(for: number)
            bytes.append(0x80 | UInt8(width - 1))
            appendBigEndian(number, width: width, to: &bytes)
        case .array, .set, .dictionary:
            // Collections are flattened into nodes before serializing; never reached.
            break
        }
    }

    /// Integers take 1, 2 or 4 bytes when non-negative and small, 8 otherwise (signed).
    private static func appendInteger(_ number: Int64, to bytes: inout [UInt8]) {
        guard number >= 0 else {
            bytes.append(0x13)
            appendBigEndian(UInt64(bitPattern: number), width: 8, to: &bytes)
            return
        }
        let value = UInt64(number)
        let width = value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
        bytes.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(value, width: width, to: &bytes)
    }

    /// A marker whose low nibble holds `count`, or 0xF followed by `count` as an integer.
    private static func appendMarker(_ kind: UInt8, count: Int, to bytes: inout [UInt8]) {
        if count < 15 {
            bytes.append(kind << 4 | UInt8(count))
        } else {
            bytes.append(kind << 4 | 0xF)
            appendInteger(Int64(count), to: &bytes)
        }
    }

    private static func appendBigEndian(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
    private static func byteCount(for value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }
}
