import Foundation
@testable import OpenCoreDataFoundation
import OpenCoreDataTestSupport
import Testing

/// The binary property list reader against Foundation's writer, and keyed archives
/// made by Foundation's archiver, read back as plain data.
@Suite struct BinaryPropertyListTests {
    /// Random property lists, and what the reader must return for each.
    private struct Generator {
        var random = SplitMix64(seed: 0xB91157)

        mutating func value(depth: Int) -> (Any, PropertyListValue) {
            switch random.below(depth > 3 ? 6 : 8) {
            case 0:
                let flag = random.below(2) == 1
                return (flag, .bool(flag))
            case 1:
                let magnitudes: [Int64] = [0, 1, 200, 70_000, 5_000_000_000, .max, .min, -1, -300]
                let number = magnitudes[random.below(magnitudes.count)]
                return (NSNumber(value: number), .integer(number))
            case 2:
                let real = Double(random.below(1_000_000)) / 7 - 50_000
                return (real, .real(real))
            case 3:
                let text = ["", "plain", "naïve café", "😀 emoji", String(repeating: "long ", count: 20)][
                    random.below(5)]
                return (text, .string(text))
            case 4:
                let data = Data((0..<random.below(40)).map { UInt8(truncatingIfNeeded: $0 * 37) })
                return (data, .data(data))
            case 5:
                let seconds = Double(random.below(2_000_000_000)) - 1_000_000_000
                return (Date(timeIntervalSinceReferenceDate: seconds), .date(seconds))
            case 6:
                let parts = (0..<random.below(5)).map { _ in value(depth: depth + 1) }
                return (parts.map(\.0), .array(parts.map(\.1)))
            default:
                var plain: [String: Any] = [:]
                var expected: [String: PropertyListValue] = [:]
                for index in 0..<random.below(5) {
                    let (value, read) = value(depth: depth + 1)
                    plain["key\(index)"] = value
                    expected["key\(index)"] = read
                }
                return (plain, .dictionary(expected))
            }
        }
    }

    @Test func readsWhatFoundationWrites() throws {
        var generator = Generator()
        for _ in 0..<300 {
            let (plain, expected) = generator.value(depth: 0)
            let top: [String: Any] = ["value": plain]
            let data = try PropertyListSerialization.data(fromPropertyList: top, format: .binary, options: 0)
            #expect(try BinaryPropertyListReader(data).read() == .dictionary(["value": expected]))
        }
    }

    @Test func damagedFilesThrowAndNeverCrash() throws {
        var generator = Generator()
        var random = SplitMix64(seed: 7)
        var failures = 0
        for _ in 0..<2_000 {
            let (plain, _) = generator.value(depth: 0)
            var data = try PropertyListSerialization.data(
                fromPropertyList: ["value": plain], format: .binary, options: 0)
            switch random.below(3) {
            case 0: data[random.below(data.count)] ^= UInt8(1 + random.below(255))
            case 1: data = data.prefix(random.below(data.count))
            default: data[data.count - 1 - random.below(32)] = UInt8(random.below(256))
            }
            do { _ = try BinaryPropertyListReader(data).read() } catch { failures += 1 }
        }
        #expect(failures > 0, "mutations produced errors, not crashes")
    }

    @Test func selfReferenceAndDeepNestingAreRefusedAndSharingStaysCheap() throws {
        // An array (object 0) whose only member is itself.
        let cycle = Self.plist(objects: [[0xA1, 0x00]], top: 0)
        #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyListReader(cycle).read() }
        // 40 arrays each holding the next one twice: 2^40 nodes if expanded naively,
        // 41 objects decoded once each.
        var objects = (0..<40).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x09])
        let shared = try BinaryPropertyListReader(Self.plist(objects: objects, top: 0)).read()
        var depth = 0
        var node = shared
        while case let .array(members) = node { depth += 1; node = members[0] }
        #expect(depth == 40 && node == .bool(true))
        // 600 arrays nested one in the next (two-byte references).
        var chain: [[UInt8]] = []
        for index in 1...600 { chain.append([0xA1, UInt8(index >> 8), UInt8(index & 0xFF)]) }
        chain.append([0x09])
        let nested = Self.plist(objects: chain, top: 0, referenceSize: 2)
        let error = #expect(throws: BinaryPropertyListError.self) { try BinaryPropertyListReader(nested).read() }
        #expect(error?.description.contains("nested more than 512") == true)
    }

    /// Assembles a binary property list from raw objects, with two-byte offsets.
    private static func plist(objects: [[UInt8]], top: Int, referenceSize: UInt8 = 1) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets += [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)]
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 2, referenceSize]
        for value in [objects.count, top, table] {
            bytes += withUnsafeBytes(of: UInt64(value).bigEndian, Array.init)
        }
        return Data(bytes)
    }

    @Test func readsKeyedArchivesAsData() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(
            ArchivedEntityStandIn(name: "Person", peer: ArchivedEntityStandIn(name: "Family", peer: nil)),
            forKey: "root")
        archiver.finishEncoding()

        let root = try KeyedArchive(data: archiver.encodedData).topObject(forKey: "root")
        // Foundation on Linux ignores setClassName(_:for:), so the class keeps its own name.
        #expect(root.className == NSStringFromClass(ArchivedEntityStandIn.self))
        #expect(try root.string("NSEntityName") == "Person")
        #expect(try root.bool("NSIsAbstract") == true)
        #expect(try root.integer("NSCount") == 42)
        #expect(try root.string("NSMissing") == nil)
        let peer = try #require(try root.field("NSPeer"))
        #expect(try peer.string("NSEntityName") == "Family")
        #expect(try peer.field("NSPeer") == nil, "an encoded nil reads as absent")
        let info = try root.field("NSInfo")?.entries() ?? []
        #expect(
            Dictionary(uniqueKeysWithValues: info.map { ($0.key, $0.value.value) }) == [
                "a": .integer(1), "b": .string("two"),
            ])
        #expect(try root.field("NSList")?.members().compactMap(\.stringValue) == ["x", "y"])
        #expect(throws: BinaryPropertyListError.self) {
            try KeyedArchive(data: archiver.encodedData).topObject(forKey: "other")
        }
    }
}

/// An archived object with fields named like a Core Data entity's.
final class ArchivedEntityStandIn: NSObject, NSCoding {
    let name: String
    let peer: ArchivedEntityStandIn?
    init(name: String, peer: ArchivedEntityStandIn?) {
        self.name = name
        self.peer = peer
    }
    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "NSEntityName")
        coder.encode(true, forKey: "NSIsAbstract")
        coder.encode(42, forKey: "NSCount")
        coder.encode(peer, forKey: "NSPeer")
        coder.encode(peer, forKey: "NSSamePeer")
        coder.encode(["a": NSNumber(value: 1), "b": "two"] as NSDictionary, forKey: "NSInfo")
        coder.encode(["x", "y"] as NSArray, forKey: "NSList")
    }
    required init?(coder: NSCoder) { nil }
}
