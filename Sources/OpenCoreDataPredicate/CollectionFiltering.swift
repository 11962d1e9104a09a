extension Sequence {
    /// The elements for which `predicate` evaluates to true, in order.
    public func filtered(using predicate: NSPredicate) -> [Element] {
        filter { predicate.evaluate(with: $0) }
    }
}

extension Set {
    /// The members for which `predicate` evaluates to true.
    public func filtered(using predicate: NSPredicate) -> Set<Element> {
        filter { predicate.evaluate(with: $0) }
    }
}

extension NSArray {
    /// The elements for which `predicate` evaluates to true, as Foundation's `filtered(using:)`.
    public func filtered(using predicate: NSPredicate) -> [Any] {
        filter { predicate.evaluate(with: $0) }
    }
}

extension NSMutableArray {
    /// Removes the elements for which `predicate` evaluates to false.
    public func filter(using predicate: NSPredicate) {
        setArray(filtered(using: predicate))
    }
}

extension NSSet {
    /// The members for which `predicate` evaluates to true, as Foundation's `filtered(using:)`.
    public func filtered(using predicate: NSPredicate) -> Set<AnyHashable> {
        Set(allObjects.filter { predicate.evaluate(with: $0) }.compactMap { $0 as? AnyHashable })
    }
}

extension NSOrderedSet {
    /// The members for which `predicate` evaluates to true, keeping their order.
    public func filtered(using predicate: NSPredicate) -> NSOrderedSet {
        NSOrderedSet(array: array.filter { predicate.evaluate(with: $0) })
    }
}
