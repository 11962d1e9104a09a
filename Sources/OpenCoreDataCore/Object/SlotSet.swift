/// The property slots an object changed since its last save: a bit set.
///
/// Every property write records its slot, so this is on the hottest path of an
/// import; bits in a word cost a few instructions where a `Set<Int>` hashes. One word
/// holds the first 64 slots; only entities with more properties need an array. Nine
/// bytes, so an object's one-byte flags fit beside it (objects are 128 bytes, not 144).
struct SlotSet: Sequence {
    private enum Words {
        /// Slots 0–63.
        case one(UInt64)
        /// Slot `64 * i + b` is bit `b` of word `i`.
        case many([UInt64])
    }

    private var words = Words.one(0)

    var isEmpty: Bool {
        switch words {
        case let .one(word): word == 0
        case let .many(words): words.allSatisfy { $0 == 0 }
        }
    }

    func contains(_ slot: Int) -> Bool {
        let (word, bit) = slot.quotientAndRemainder(dividingBy: 64)
        switch words {
        case let .one(first): return word == 0 && first & (1 << UInt64(bit)) != 0
        case let .many(words): return word < words.count && words[word] & (1 << UInt64(bit)) != 0
        }
    }

    mutating func insert(_ slot: Int) {
        let (word, bit) = slot.quotientAndRemainder(dividingBy: 64)
        switch words {
        case let .one(first) where word == 0:
            words = .one(first | 1 << UInt64(bit))
        case let .one(first):
            var grown = [UInt64](repeating: 0, count: word + 1)
            grown[0] = first
            grown[word] = 1 << UInt64(bit)
            words = .many(grown)
        case var .many(all):
            words = .one(0)  // `all` is now the array's only reference: no copy below
            if word >= all.count { all += Array(repeating: 0, count: word - all.count + 1) }
            all[word] |= 1 << UInt64(bit)
            words = .many(all)
        }
    }

    @discardableResult
    mutating func remove(_ slot: Int) -> Bool {
        guard contains(slot) else { return false }
        let (word, bit) = slot.quotientAndRemainder(dividingBy: 64)
        switch words {
        case let .one(first):
            words = .one(first & ~(1 << UInt64(bit)))
        case var .many(all):
            words = .one(0)
            all[word] &= ~(1 << UInt64(bit))
            words = .many(all)
        }
        return true
    }

    mutating func removeAll() {
        words = .one(0)
    }

    /// The slots in increasing order, read bit by bit from the words (no array is built:
    /// a save iterates every changed object's set).
    func makeIterator() -> Iterator {
        switch words {
        case let .one(first): Iterator(first: first, rest: [])
        case let .many(all): Iterator(first: all[0], rest: all.dropFirst())
        }
    }

    struct Iterator: IteratorProtocol {
        private let rest: ArraySlice<UInt64>
        /// The bits of the current word not returned yet, and the slot of its bit 0.
        private var remaining: UInt64
        private var base = 0
        private var nextWord: Int

        init(first: UInt64, rest: ArraySlice<UInt64>) {
            self.rest = rest
            remaining = first
            nextWord = rest.startIndex
        }

        mutating func next() -> Int? {
            while remaining == 0 {
                guard nextWord < rest.endIndex else { return nil }
                remaining = rest[nextWord]
                base = nextWord * 64
                nextWord += 1
            }
            let bit = remaining.trailingZeroBitCount
            remaining &= remaining &- 1
            return base + bit
        }
    }
}
