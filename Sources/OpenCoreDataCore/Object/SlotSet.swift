/// The property slots an object changed since its last save: a bit set.
///
/// Every property write records its slot, so this is on the hottest path of an
/// import; bits in a word (and more words only for entities with over 64 properties)
/// cost a few instructions where a `Set<Int>` hashes.
struct SlotSet: Sequence {
    private var words: [UInt64] = []
    private var first: UInt64 = 0

    var isEmpty: Bool { first == 0 && words.allSatisfy { $0 == 0 } }

    func contains(_ slot: Int) -> Bool {
        if slot < 64 { return first & (1 << UInt64(slot)) != 0 }
        let word = slot / 64 - 1
        return word < words.count && words[word] & (1 << UInt64(slot % 64)) != 0
    }

    mutating func insert(_ slot: Int) {
        if slot < 64 { first |= 1 << UInt64(slot); return }
        let word = slot / 64 - 1
        if word >= words.count { words += Array(repeating: 0, count: word - words.count + 1) }
        words[word] |= 1 << UInt64(slot % 64)
    }

    /// Removes `slot`; returns whether it was there.
    @discardableResult
    mutating func remove(_ slot: Int) -> Bool {
        guard contains(slot) else { return false }
        if slot < 64 { first &= ~(1 << UInt64(slot)) } else { words[slot / 64 - 1] &= ~(1 << UInt64(slot % 64)) }
        return true
    }

    mutating func removeAll() {
        first = 0
        words.removeAll()
    }

    /// The slots, in increasing order.
    func makeIterator() -> IndexingIterator<[Int]> {
        var slots: [Int] = []
        for (index, word) in ([first] + words).enumerated() where word != 0 {
            for bit in 0..<64 where word & (1 << UInt64(bit)) != 0 { slots.append(index * 64 + bit) }
        }
        return slots.makeIterator()
    }
}
