extension Sequence {
    /// The elements sorted by `descriptors`, the first descriptor deciding first.
    /// Elements the descriptors consider equal keep their relative order.
    public func sorted(using descriptors: [NSSortDescriptor]) -> [Element] {
        enumerated().sorted { lhs, rhs in
            switch NSSortDescriptor.compare(lhs.element, rhs.element, using: descriptors) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: return lhs.offset < rhs.offset
            }
        }.map(\.element)
    }
}

extension MutableCollection where Self: RandomAccessCollection {
    /// Sorts the collection in place by `descriptors`.
    public mutating func sort(using descriptors: [NSSortDescriptor]) {
        for (index, element) in zip(indices, sorted(using: descriptors)) { self[index] = element }
    }
}

extension NSArray {
    /// The array's elements sorted by `descriptors`, as Foundation's `sortedArray(using:)`.
    public func sortedArray(using descriptors: [NSSortDescriptor]) -> [Any] {
        map { $0 }.sorted(using: descriptors)
    }
}

extension NSSet {
    /// The set's elements sorted by `descriptors`.
    public func sortedArray(using descriptors: [NSSortDescriptor]) -> [Any] {
        allObjects.sorted(using: descriptors)
    }
}

extension NSMutableArray {
    /// Sorts the array in place by `descriptors`.
    public func sort(using descriptors: [NSSortDescriptor]) {
        let sorted = sortedArray(using: descriptors)
        setArray(sorted)
    }
}
