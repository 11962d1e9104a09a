/// A hash table from object keys to values: the registry's and the row cache's index.
///
/// Every fetched row is looked up, inserted and later removed in both, so these
/// tables sit on the hottest path there is. `Dictionary` hashes each key with seeded
/// SipHash, which costs more than the probe, and scatters consecutive primary keys
/// across memory. Here a key's home bucket is its primary key plus a per-table offset:
/// rows read in key order land in neighbouring buckets, and hashing is two multiplies.
/// Open addressing with linear probing, at most half full; removal shifts the rest
/// of a probe run back, so there are no tombstones.
struct ObjectKeyTable<Value> {
    private struct Bucket {
        var key: ObjectKey
        var value: Value?
    }

    private var buckets: [Bucket]
    private var mask: Int
    /// How many keys the table holds.
    private(set) var count = 0

    private static var minimumCapacity: Int { 16 }

    init() {
        buckets = Self.emptyBuckets(Self.minimumCapacity)
        mask = Self.minimumCapacity - 1
    }

    private static func emptyBuckets(_ capacity: Int) -> [Bucket] {
        Array(repeating: Bucket(key: ObjectKey(owner: nil, table: 0, primaryKey: 0), value: nil), count: capacity)
    }

    /// The bucket a key starts probing from.
    private func home(_ key: ObjectKey) -> Int {
        // Consecutive keys of one table take consecutive buckets; tables and stores
        // start far apart (a multiplicative hash of their numbers).
        var spread = UInt64(truncatingIfNeeded: key.table) &* 0x9E37_79B9_7F4A_7C15
        if let owner = key.owner { spread ^= UInt64(UInt(bitPattern: owner)) &* 0xC2B2_AE3D_27D4_EB4F }
        return Int(truncatingIfNeeded: UInt64(bitPattern: key.primaryKey) &+ (spread >> 20)) & mask
    }

    /// The bucket holding `key`, or the empty bucket where it would go.
    private func position(of key: ObjectKey) -> (index: Int, found: Bool) {
        var index = home(key)
        while buckets[index].value != nil {
            if buckets[index].key == key { return (index, true) }
            index = (index + 1) & mask
        }
        return (index, false)
    }

    /// The value for `key`; assigning `nil` removes it.
    subscript(key: ObjectKey) -> Value? {
        get {
            let (index, found) = position(of: key)
            return found ? buckets[index].value : nil
        }
        set {
            guard let newValue else {
                let (index, found) = position(of: key)
                if found { remove(at: index) }
                return
            }
            var (index, found) = position(of: key)
            if found {
                buckets[index].value = newValue
                return
            }
            if (count + 1) * 2 > buckets.count {
                resize(to: buckets.count * 2)
                index = position(of: key).index
            }
            buckets[index] = Bucket(key: key, value: newValue)
            count += 1
        }
    }

    /// Removes every key for which `shouldRemove` is true.
    mutating func removeAll(where shouldRemove: (ObjectKey) -> Bool) {
        let kept = buckets.filter { $0.value != nil && !shouldRemove($0.key) }
        rebuild(kept, capacity: buckets.count)
    }

    /// The values, in no particular order.
    var values: some Sequence<Value> { buckets.lazy.compactMap(\.value) }

    private mutating func remove(at removed: Int) {
        // Backward-shift deletion: move later members of the probe run into the hole
        // unless their home lies cyclically after the hole.
        var hole = removed
        var next = (removed + 1) & mask
        while buckets[next].value != nil {
            let start = home(buckets[next].key)
            let movable = hole <= next ? (start <= hole || start > next) : (start <= hole && start > next)
            if movable {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole].value = nil
        count -= 1
        // Give memory back once the table is mostly empty (an eighth full).
        if buckets.count > Self.minimumCapacity, count * 8 < buckets.count {
            resize(to: buckets.count / 2)
        }
    }

    private mutating func resize(to capacity: Int) {
        rebuild(buckets.filter { $0.value != nil }, capacity: capacity)
    }

    private mutating func rebuild(_ members: [Bucket], capacity: Int) {
        var capacity = max(Self.minimumCapacity, capacity)
        while members.count * 2 > capacity { capacity *= 2 }
        buckets = Self.emptyBuckets(capacity)
        mask = capacity - 1
        count = 0
        for member in members {
            let index = position(of: member.key).index
            buckets[index] = member
            count += 1
        }
    }
}
