// The data every implementation works on, generated from a fixed seed so that all
// three stores hold the same rows, and the query parameters they all use.
import Foundation
import OpenCoreData
import Synchronization

/// SplitMix64: a tiny seeded generator, so every run and every implementation sees the same values.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The six attribute values of one `Item` row.
struct ItemValues {
    var name: String
    var number: Int64
    var amount: Double
    var created: Date
    var flag: Bool
    var note: String
}

/// One `Parent` of workload 6 with its children's `value`s.
struct FamilyValues {
    var name: String
    var childValues: [Int64]
}

/// Generated rows and the parameters of every query, shared by all implementations.
enum BenchmarkData {
    /// `number` is drawn from `0..<numberRange` whatever N, so predicates select the same fraction at every size.
    static let numberRange: Int64 = 1_000_000
    /// Workload 2 reads items with `amount >= fetchMinimumAmount` (about 90% of them), sorted by `number`.
    static let fetchMinimumAmount = 100.0
    /// Workload 3 counts items with `number` in this range and `flag` set (about 5% of them).
    static let countNumberRange: (lower: Int64, upper: Int64) = (200_000, 300_000)
    /// Workload 7 deletes items with `number < deleteNumberLimit` (about half of them).
    static let deleteNumberLimit: Int64 = 500_000
    /// Workload 4's batch size and how many objects it touches.
    static let batchSize = 50
    static let touchedObjects = 1_000
    /// Workload 6: each parent has this many children (so N children means N/10 parents).
    static let childrenPerParent = 10

    private static let syllables = [
        "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "xe", "zu", "bra", "dun", "fel", "gor", "hin", "jas",
    ]

    private static func word(_ generator: inout SeededGenerator, syllables count: Int) -> String {
        var word = ""
        for _ in 0..<count { word += syllables[Int(generator.next() % UInt64(syllables.count))] }
        return word
    }

    /// `count` items; the same `count` always gives the same items.
    static func items(count: Int) -> [ItemValues] {
        var generator = SeededGenerator(seed: 0x0C0D_EDA7A)
        return (0..<count).map { index in
            let name = "\(word(&generator, syllables: 3)) \(index)"
            let note = (0..<5).map { _ in word(&generator, syllables: 2) }.joined(separator: " ")
            return ItemValues(
                name: name,
                number: Int64(generator.next() % UInt64(numberRange)),
                amount: Double(generator.next() % 100_000) / 100,
                created: Date(timeIntervalSinceReferenceDate: 600_000_000 + Double(generator.next() % 100_000_000)),
                flag: generator.next() % 2 == 0,
                note: note
            )
        }
    }

    /// `childCount / childrenPerParent` parents with `childrenPerParent` children each.
    static func families(childCount: Int) -> [FamilyValues] {
        var generator = SeededGenerator(seed: 0xFA_3117)
        return (0..<max(1, childCount / childrenPerParent)).map { index in
            FamilyValues(
                name: "\(word(&generator, syllables: 2)) \(index)",
                childValues: (0..<childrenPerParent).map { _ in Int64(generator.next() % 1_000) }
            )
        }
    }

    /// The positions workload 4 touches in an `count`-element result: spread evenly.
    static func touchedPositions(count: Int) -> [Int] {
        let touched = min(touchedObjects, count)
        return (0..<touched).map { $0 * count / touched }
    }

    /// The checksum contribution of one fully read item (order-independent when summed).
    static func checksum(name: String?, number: Int64, amount: Double, created: Date, flag: Bool, note: String?) -> Int
    {
        Int(number) &+ (name?.utf8.count ?? 0) &+ (note?.utf8.count ?? 0) &+ Int((amount * 100).rounded())
            &+ Int(created.timeIntervalSinceReferenceDate) % 1_000 &+ (flag ? 1 : 0)
    }

    /// The checksum of every attribute of `items`, whichever contender read them.
    static func checksum(of items: [some ItemAttributes]) -> Int {
        items.reduce(0) { sum, item in
            sum
                &+ checksum(
                    name: item.name, number: item.number, amount: item.amount,
                    created: item.created ?? .distantPast, flag: item.flag, note: item.note
                )
        }
    }
}

/// An item's six attributes as each contender holds them (object, record or struct).
protocol ItemAttributes {
    var name: String? { get }
    var number: Int64 { get }
    var amount: Double { get }
    var created: Date? { get }
    var flag: Bool { get }
    var note: String? { get }
}

extension BenchmarkData {
    /// Runs `body(0)` … `body(count - 1)` at once, each on a thread of its own, and sums the
    /// checksums they return (workload 11); the first error is thrown.
    static func checksumOfConcurrentRuns(_ count: Int, _ body: @Sendable (Int) throws -> Int) throws -> Int {
        let results = Mutex([Result<Int, any Error>](repeating: .success(0), count: count))
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let result = Result { try body(index) }
            results.withLock { $0[index] = result }
        }
        return try results.withLock { $0 }.reduce(0) { $0 &+ (try $1.get()) }
    }
}
