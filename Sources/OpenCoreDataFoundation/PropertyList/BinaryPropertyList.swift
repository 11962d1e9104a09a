import Foundation
/// A reader for binary property lists (`bplist00`) that keeps what Foundation's reader
/// hides and never traps on a damaged file.
///
/// Compiled models (`.mom`) and the model a store caches in `Z_MODELCACHE` are keyed
/// archives: binary property lists whose objects point at each other through UIDs.
/// Foundation on Linux reads UIDs as an opaque internal class whose value cannot be
/// read, and its keyed unarchiver aborts the process on malformed input, so both would
/// turn a corrupt file into a crash. This reader decodes every object kind, bounds-checks
/// every offset, refuses reference cycles and deep nesting, and decodes each object once.
package enum PropertyListValue: Equatable, Sendable {
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01 UTC, as the format stores dates.
    case date(Double)
    case data(Data)
    case string(String)
    /// A reference to another object of a keyed archive.
    case uid(UInt64)
    case array([PropertyListValue])
    case set([PropertyListValue])
    case dictionary([String: PropertyListValue])
}

/// Why a binary property list could not be read.
package struct BinaryPropertyListError: Error, CustomStringConvertible {
    package let description: String
    package init(description: String) { self.description = description }
}

/// Parses `bplist00` data into ``PropertyListValue``s.
package struct BinaryPropertyListReader {
    private let bytes: [UInt8]
    private let offsets: [Int]
    private let referenceSize: Int
    private let topObject: Int
    /// Deeper nesting is refused: a small hostile file must not exhaust the stack.
    package static let maximumDepth = 512

    package init(_ data: Data) throws {
        bytes = [UInt8](data)
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist0".utf8)) else {
            throw BinaryPropertyListError(description: "not a binary property list (no bplist0 header)")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = Self.bigEndian(bytes[(trailer + 8)..<(trailer + 16)])
        let top = Self.bigEndian(bytes[(trailer + 16)..<(trailer + 24)])
        let tableStart = Self.bigEndian(bytes[(trailer + 24)..<(trailer + 32)])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
            count > 0, count <= UInt64(trailer), top < count,
            tableStart >= 8, tableStart <= UInt64(trailer),
            UInt64(trailer) - tableStart >= count * UInt64(offsetSize)
        else { throw BinaryPropertyListError(description: "damaged binary property list trailer") }
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let start = Int(tableStart) + index * offsetSize
            let offset = Self.bigEndian(bytes[start..<(start + offsetSize)])
            guard offset >= 8, offset < UInt64(tableStart) else {
                throw BinaryPropertyListError(description: "object \(index) lies outside the object area")
            }
            offsets.append(Int(offset))
        }
        self.offsets = offsets
        topObject = Int(top)
    }

    /// The top object and everything it refers to.
    package func read() throws -> PropertyListValue {
        var state = State()
        return try object(topObject, &state)
    }

    private struct State {
        package var inProgress = Set<Int>()
        /// Each object is decoded once: a file whose objects share children would
        /// otherwise expand exponentially. Values are copy-on-write, so sharing is cheap.
        package var decoded: [Int: PropertyListValue] = [:]
    }

    private func object(_ index: Int, _ state: inout State) throws -> PropertyListValue {
        guard offsets.indices.contains(index) else {
            throw BinaryPropertyListError(description: "reference to missing object \(index)")
        }
        if let known = state.decoded[index] { return known }
        guard state.inProgress.insert(index).inserted else {
            throw BinaryPropertyListError(description: "object \(index) contains itself")
        }
        guard state.inProgress.count <= Self.maximumDepth else {
            throw BinaryPropertyListError(description: "objects nested more than \(Self.maximumDepth) levels deep")
        }
        defer { state.inProgress.remove(index) }
        let value = try decode(index, &state)
        state.decoded[index] = value
        return value
    }

    private func decode(_ index: Int, _ state: inout State) throws -> PropertyListValue {
        var cursor = offsets[index]
        let marker = try byte(at: cursor)
        cursor += 1
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default:
                throw BinaryPropertyListError(
                    description: "unsupported marker 0x\(String(marker, radix: 16)) at object \(index)")
            }
        case 0x1:
            let width = 1 << low
            guard width <= 16 else {
                throw BinaryPropertyListError(description: "integer of \(width) bytes at object \(index)")
            }
            // 16-byte integers hold 64-bit values in their low half.
            let raw = Self.bigEndian(try slice(cursor + max(0, width - 8), min(width, 8)))
            return .integer(width >= 8 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x2:
            switch low {
            case 2: return .real(Double(Float(bitPattern: UInt32(Self.bigEndian(try slice(cursor, 4))))))
            case 3: return .real(Double(bitPattern: Self.bigEndian(try slice(cursor, 8))))
            default: throw BinaryPropertyListError(description: "real of unsupported width at object \(index)")
            }
        case 0x3:
            guard low == 3 else {
                throw BinaryPropertyListError(description: "date of unsupported width at object \(index)")
            }
            return .date(Double(bitPattern: Self.bigEndian(try slice(cursor, 8))))
        case 0x4:
            let count = try length(low, &cursor)
            return .data(Data(try slice(cursor, count)))
        case 0x5:
            let count = try length(low, &cursor)
            return .string(String(decoding: try slice(cursor, count), as: UTF8.self))
        case 0x6:
            let count = try length(low, &cursor)
            let raw = try slice(cursor, count * 2)
            let units = stride(from: raw.startIndex, to: raw.endIndex, by: 2).map {
                UInt16(raw[$0]) << 8 | UInt16(raw[$0 + 1])
            }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            return .uid(Self.bigEndian(try slice(cursor, low + 1)))
        case 0xA, 0xC:
            let count = try length(low, &cursor)
            let members = try references(at: cursor, count: count).map { try object($0, &state) }
            return marker >> 4 == 0xA ? .array(members) : .set(members)
        case 0xD:
            let count = try length(low, &cursor)
            let keys = try references(at: cursor, count: count)
            let values = try references(at: cursor + count * referenceSize, count: count)
            var result: [String: PropertyListValue] = [:]
            result.reserveCapacity(count)
            for (key, value) in zip(keys, values) {
                guard case let .string(name) = try object(key, &state) else {
                    throw BinaryPropertyListError(description: "dictionary key that is not a string in object \(index)")
                }
                result[name] = try object(value, &state)
            }
            return .dictionary(result)
        default:
            throw BinaryPropertyListError(
                description: "unknown marker 0x\(String(marker, radix: 16)) at object \(index)")
        }
    }

    /// A count stored in the marker's low nibble, or in the integer object after it (nibble 0xF).
    private func length(_ low: Int, _ cursor: inout Int) throws -> Int {
        guard low == 0xF else { return low }
        let marker = try byte(at: cursor)
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
            throw BinaryPropertyListError(description: "bad length at byte \(cursor)")
        }
        let width = 1 << Int(marker & 0x0F)
        let value = Self.bigEndian(try slice(cursor + 1, width))
        cursor += 1 + width
        guard value <= UInt64(bytes.count) else {
            throw BinaryPropertyListError(description: "length \(value) exceeds the file at byte \(cursor)")
        }
        return Int(value)
    }

    private func references(at start: Int, count: Int) throws -> [Int] {
        let raw = try slice(start, count * referenceSize)
        return (0..<count).map {
            Int(
                truncatingIfNeeded: Self.bigEndian(
                    raw[(raw.startIndex + $0 * referenceSize)..<(raw.startIndex + ($0 + 1) * referenceSize)]))
        }
    }

    private func byte(at offset: Int) throws -> UInt8 {
        guard bytes.indices.contains(offset) else {
            throw BinaryPropertyListError(description: "unexpected end at byte \(offset)")
        }
        return bytes[offset]
    }

    private func slice(_ start: Int, _ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, start >= 0, start <= bytes.count, bytes.count - start >= count else {
            throw BinaryPropertyListError(description: "unexpected end reading \(count) bytes at byte \(start)")
        }
        return bytes[start..<(start + count)]
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
