/// Managed objects in the order they were added, without duplicates, compared by
/// identity: the context's inserted, updated and deleted sets, and the members of
/// to-many relationships (their order is an ordered relationship's order).
///
/// Every new, changed or related object passes through these sets, so they are built
/// for that: a small set (most to-many relationships) is an array searched by
/// identity, and a larger one adds an open-addressing index of positions keyed by the
/// object's address with a multiplicative hash. Hashing through `Hashable` would run
/// SipHash twice per object (`NSObject` hashes its `hash`, and `ObjectIdentifier`'s
/// hash is SipHash too); an address needs neither.
struct ManagedObjectSet: RandomAccessCollection, ExpressibleByArrayLiteral, Equatable {
    /// The members in order.
    private var objects: ContiguousArray<NSManagedObject> = []
    /// `position + 1` of each member at its probe slot (0 is empty); a power of two long,
    /// or empty while the set is small enough to search directly.
    private var index: [Int32] = []

    /// Up to this many members, a search is a scan of adjacent pointers, cheaper than
    /// hashing, and the set keeps no index.
    private static var scanLimit: Int { 12 }

    init() {}

    init(_ objects: some Sequence<NSManagedObject>) {
        reserveCapacity(objects.underestimatedCount)
        for object in objects { append(object) }
    }

    init(arrayLiteral objects: NSManagedObject...) {
        self.init(objects)
    }

    /// Same members in the same order.
    static func == (lhs: ManagedObjectSet, rhs: ManagedObjectSet) -> Bool {
        lhs.count == rhs.count && zip(lhs.objects, rhs.objects).allSatisfy { $0 === $1 }
    }

    /// Same members, in any order.
    func hasSameMembers(as other: ManagedObjectSet) -> Bool {
        count == other.count && allSatisfy(other.contains)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { objects.count }
    subscript(position: Int) -> NSManagedObject { objects[position] }

    /// Makes room for `capacity` members without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        objects.reserveCapacity(capacity)
        if capacity > Self.scanLimit, Self.indexSize(for: capacity) > index.count {
            rebuildIndex(minimumCapacity: capacity)
        }
    }

    /// Adds `object` unless present; returns whether it was added and where it is.
    @discardableResult
    mutating func append(_ object: NSManagedObject) -> (inserted: Bool, index: Int) {
        if index.isEmpty {
            if let position = scan(for: object) { return (false, position) }
            objects.append(object)
            if objects.count > Self.scanLimit { rebuildIndex(minimumCapacity: objects.count) }
            return (true, objects.count - 1)
        }
        let (found, slot) = probe(for: object)
        if let found { return (false, found) }
        objects.append(object)
        if Self.indexSize(for: objects.count) > index.count {
            rebuildIndex(minimumCapacity: objects.count)
        } else {
            index[slot] = Int32(objects.count)
        }
        return (true, objects.count - 1)
    }

    /// Removes `object`; returns it when it was a member.
    @discardableResult
    mutating func remove(_ object: NSManagedObject) -> NSManagedObject? {
        guard let position = firstIndex(of: object) else { return nil }
        return remove(at: position)
    }

    /// Removes the member at `position`; the positions after it move down by one.
    @discardableResult
    mutating func remove(at position: Int) -> NSManagedObject {
        guard !index.isEmpty else { return objects.remove(at: position) }
        let removed = objects[position]
        // Out of the index in place (backward-shift deletion), then the positions above
        // it renumbered: no allocation, no hashing of the other members.
        let mask = index.count - 1
        var hole = probe(for: removed).slot
        var next = (hole + 1) & mask
        while index[next] != 0 {
            let home = Self.home(of: objects[Int(index[next]) - 1], mask: mask)
            if backwardShiftCanFill(hole: hole, from: next, home: home) {
                index[hole] = index[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        index[hole] = 0
        objects.remove(at: position)
        if position < objects.count {
            let entry = Int32(position + 1)
            for slot in index.indices where index[slot] > entry { index[slot] -= 1 }
        }
        if objects.count <= Self.scanLimit { index = [] }
        return removed
    }

    /// Inserts `object` at `position` unless present; returns whether it was inserted and where it is.
    @discardableResult
    mutating func insert(_ object: NSManagedObject, at position: Int) -> (inserted: Bool, index: Int) {
        if let existing = firstIndex(of: object) { return (false, existing) }
        guard !index.isEmpty, Self.indexSize(for: objects.count + 1) <= index.count else {
            objects.insert(object, at: position)
            if objects.count > Self.scanLimit { rebuildIndex(minimumCapacity: objects.count) }
            return (true, position)
        }
        // The free slot first, while entries and positions agree; then the members from
        // `position` on move up by one.
        let slot = probe(for: object).slot
        let entry = Int32(position + 1)
        for other in index.indices where index[other] >= entry { index[other] += 1 }
        index[slot] = entry
        objects.insert(object, at: position)
        return (true, position)
    }

    /// The position of `object`, by its address.
    func firstIndex(of object: NSManagedObject) -> Int? {
        index.isEmpty ? scan(for: object) : probe(for: object).found
    }

    func contains(_ object: NSManagedObject) -> Bool {
        firstIndex(of: object) != nil
    }

    mutating func removeAll() {
        objects.removeAll()
        index.removeAll()
    }

    /// This set followed by the members of `other` it lacks.
    func union(_ other: ManagedObjectSet) -> ManagedObjectSet {
        var result = self
        result.reserveCapacity(count + other.count)
        for object in other { result.append(object) }
        return result
    }

    // MARK: The index

    private func scan(for object: NSManagedObject) -> Int? {
        objects.firstIndex { $0 === object }
    }

    /// The member's position, or the empty slot where it would go.
    private func probe(for object: NSManagedObject) -> (found: Int?, slot: Int) {
        let mask = index.count - 1
        var slot = Self.home(of: object, mask: mask)
        while true {
            let entry = index[slot]
            if entry == 0 { return (nil, slot) }
            if objects[Int(entry) - 1] === object { return (Int(entry) - 1, slot) }
            slot = (slot + 1) & mask
        }
    }

    /// Where probing starts: the address times an odd constant, high bits folded down
    /// (the low bits of an address are alignment zeros and say little).
    private static func home(of object: NSManagedObject, mask: Int) -> Int {
        let mixed = UInt64(UInt(bitPattern: ObjectIdentifier(object))) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 29)) & mask
    }

    /// The index size that keeps `count` members at most half full.
    private static func indexSize(for count: Int) -> Int {
        Swift.max(32, (count * 2).nextPowerOfTwo)
    }

    private mutating func rebuildIndex(minimumCapacity: Int) {
        guard Swift.max(minimumCapacity, objects.count) > Self.scanLimit else {
            index = []
            return
        }
        let size = Self.indexSize(for: Swift.max(minimumCapacity, objects.count))
        var fresh = [Int32](repeating: 0, count: size)
        let mask = size - 1
        for (position, object) in objects.enumerated() {
            var slot = Self.home(of: object, mask: mask)
            while fresh[slot] != 0 { slot = (slot + 1) & mask }
            fresh[slot] = Int32(position + 1)
        }
        index = fresh
    }
}

private extension Int {
    /// The smallest power of two not below `self` (self ≥ 1).
    var nextPowerOfTwo: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
