import Testing
@testable import OpenCoreDataCore

/// The set of an object's changed property slots: a word for the first 64 slots and
/// more words beyond, iterated in increasing order without building an array.
@Suite struct SlotSetTests {
    @Test func iteratesTheSlotsInIncreasingOrderAcrossWords() {
        var set = SlotSet()
        let slots = [0, 1, 5, 63, 64, 65, 127, 128, 200, 319]
        for slot in slots.shuffled() { set.insert(slot) }
        #expect(Array(set) == slots)
        #expect(slots.allSatisfy(set.contains))
        #expect(!set.contains(2) && !set.contains(129) && !set.contains(1_000))
    }

    @Test func removingEmptiesWordsTheIteratorThenSkips() {
        var set = SlotSet()
        for slot in [3, 70, 150, 260] { set.insert(slot) }
        let removed = set.remove(70)
        let removedAgain = set.remove(70)
        let removedFirst = set.remove(3)
        #expect(removed && !removedAgain && removedFirst)
        #expect(Array(set) == [150, 260])
        #expect(!set.isEmpty)
        set.removeAll()
        #expect(set.isEmpty)
        #expect(Array(set).isEmpty)
    }
}
