/// A hash table from object keys to values: the registry's and the row cache's index.
///
/// Every fetched row is looked up, inserted and later removed in both, so these
/// tables sit on the hottest path there is. `Dictionary` hashes each key with seeded
/// SipHash, which costs more than the probe; here a key is mixed with two multiplies
/// and shifts. The mix must scatter: keys are mostly consecutive primary keys of a few
/// tables, and homes that stayed consecutive would pile the tables into long runs that
/// overlap, making probes and removals walk whole tables.
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
        Array(repeating: Bucket(key: ObjectKey(owner: 0, table: 0, primaryKey: 0), value: nil), count: capacity)
    }

    /// The bucket a key starts probing from.
    private func home(_ key: ObjectKey) -> Int {
        var mixed = UInt64(bitPattern: key.primaryKey) &+ UInt64(truncatingIfNeeded: key.table) &* 0x9E37_79B9_7F4A_7C15
        mixed ^= UInt64(key.owner) &* 0xC2B2_AE3D_27D4_EB4F
        // A multiply then a fold of the high half into the low one, twice: every input
        // bit reaches the low bits the mask keeps.
        mixed = (mixed ^ (mixed >> 32)) &* 0xD6E8_FEB8_6659_FD93
        mixed = (mixed ^ (mixed >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 32)) & mask
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
        set { update(key) { $0 = newValue } }
    }

    /// Stores `value` for `key` with one probe, returning the value it replaces.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: ObjectKey) -> Value? {
        update(key) { entry in
            defer { entry = value }
            return entry
        }
    }

    /// Lets `body` read and change the value for `key` (`nil`: none, or remove it) with one
    /// probe, for a caller that decides from the value it finds.
    mutating func update<Result>(_ key: ObjectKey, _ body: (inout Value?) -> Result) -> Result {
        var (index, found) = position(of: key)
        var entry = found ? buckets[index].value : nil
        let result = body(&entry)
        switch (found, entry) {
        case (true, let value?): buckets[index].value = value
        case (true, nil): remove(at: index)
        case (false, let value?):
            if (count + 1) * 2 > buckets.count {
                resize(to: buckets.count * 2)
                index = position(of: key).index
            }
            buckets[index] = Bucket(key: key, value: value)
            count += 1
        case (false, nil): break
        }
        return result
    }

    /// Removes the value for `key` when `condition` holds for it, with one lookup (an entry
    /// leaves as its object deallocates, only if it still refers to that object).
    mutating func removeValue(forKey key: ObjectKey, if condition: (Value) -> Bool) {
        update(key) { entry in
            if let value = entry, condition(value) { entry = nil }
        }
    }

    /// Grows the table once so that `minimumCount` keys fit, instead of doubling step by step
    /// while a fetch's rows go in.
    mutating func reserveCapacity(_ minimumCount: Int) {
        guard minimumCount * 2 > buckets.count else { return }
        resize(to: minimumCount * 2)
    }

    /// Removes every key for which `shouldRemove` is true.
    mutating func removeAll(where shouldRemove: (ObjectKey) -> Bool) {
        let kept = buckets.filter { $0.value != nil && !shouldRemove($0.key) }
        // Sized for what is left (rebuild doubles the capacity until it is at most half full).
        rebuild(kept, capacity: Self.minimumCapacity)
    }

    /// Calls `body` with every key and its value, in no particular order.
    func forEach(_ body: (ObjectKey, Value) throws -> Void) rethrows {
        for bucket in buckets { if let value = bucket.value { try body(bucket.key, value) } }
    }

    /// How far the farthest key sits from its home bucket: what the slowest lookup
    /// probes (for tests of the key mix).
    var longestDisplacement: Int {
        buckets.indices.reduce(0) { longest, index in
            guard buckets[index].value != nil else { return longest }
            return max(longest, (index - home(buckets[index].key)) & mask)
        }
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
            if backwardShiftCanFill(hole: hole, from: next, home: start) {
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

    /// Rebuilds with at least `capacity` buckets, rounded up to a power of two (the mask
    /// needs one) that keeps the table at most half full.
    private mutating func rebuild(_ members: [Bucket], capacity requested: Int) {
        var capacity = Self.minimumCapacity
        while capacity < requested || members.count * 2 > capacity { capacity *= 2 }
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
