/// Equality and ordering of arbitrary values with predicate semantics.
///
/// These are the single source of truth for how predicates, sort descriptors and
/// the SQL store's registered functions compare values, so that every path agrees.
enum ValueComparison {
    /// Orders two values, or returns `nil` when they cannot be ordered (either is
    /// `nil`, or their kinds differ).
    ///
    /// Strings honour `[c]`/`[d]`; numbers compare by value across all numeric types;
    /// dates, UUIDs, data, URLs and any matching `Comparable` types compare too.
    static func compare(_ lhs: Any?, _ rhs: Any?, options: NSComparisonPredicate.Options = []) -> ComparisonResult? {
        guard let lhs = CollectionValue.unwrapNull(lhs), let rhs = CollectionValue.unwrapNull(rhs) else { return nil }
        if let left = StringMatching.string(from: lhs), let right = StringMatching.string(from: rhs) {
            return order(StringMatching.fold(left, options: options), StringMatching.fold(right, options: options))
        }
        if let left = NumericValue(lhs), let right = NumericValue(rhs) {
            return NumericValue.compare(left, right)
        }
        switch (lhs, rhs) {
        case let (left as Date, right as Date): return order(left, right)
        case let (left as UUID, right as UUID): return order(left.uuidString, right.uuidString)
        case let (left as Data, right as Data):
            return left.lexicographicallyPrecedes(right)
                ? .orderedAscending : (left == right ? .orderedSame : .orderedDescending)
        case let (left as URL, right as URL): return order(left.absoluteString, right.absoluteString)
        default: break
        }
        if let left = lhs as? any Comparable { return compareOpened(left, rhs) }
        return nil
    }

    /// Whether two values are equal with predicate semantics.
    ///
    /// `nil` (and `NSNull`) equals only `nil`. Values conforming to
    /// ``ObjectIdentityComparable`` on both sides compare by identity. Collections
    /// compare element-wise (sets ignoring order).
    static func equals(_ lhs: Any?, _ rhs: Any?, options: NSComparisonPredicate.Options = []) -> Bool {
        let lhs = CollectionValue.unwrapNull(lhs), rhs = CollectionValue.unwrapNull(rhs)
        guard let lhs, let rhs else { return lhs == nil && rhs == nil }
        if let left = lhs as? ObjectIdentityComparable, let right = rhs as? ObjectIdentityComparable {
            return left.comparisonIdentity == right.comparisonIdentity
        }
        if let left = StringMatching.string(from: lhs), let right = StringMatching.string(from: rhs) {
            return StringMatching.fold(left, options: options) == StringMatching.fold(right, options: options)
        }
        if let left = NumericValue(lhs), let right = NumericValue(rhs) {
            return NumericValue.compare(left, right) == .orderedSame
        }
        if StringMatching.string(from: lhs) != nil || StringMatching.string(from: rhs) != nil
            || NumericValue(lhs) != nil || NumericValue(rhs) != nil
        {
            return false
        }
        if let left = CollectionValue.elements(of: lhs), let right = CollectionValue.elements(of: rhs) {
            return collectionsEqual(left, right, ordered: isOrdered(lhs) && isOrdered(rhs), options: options)
        }
        if let left = lhs as? AnyHashable, let right = rhs as? AnyHashable, left == right { return true }
        if let left = lhs as? NSObject, let right = rhs as? NSObject { return left.isEqual(right) }
        if type(of: lhs) is AnyClass, type(of: rhs) is AnyClass { return (lhs as AnyObject) === (rhs as AnyObject) }
        return false
    }

    /// A hash consistent with ``equals(_:_:options:)`` without options, used by
    /// structural hashing of constant expressions.
    static func hashKey(of value: Any?) -> AnyHashable {
        guard let value = CollectionValue.unwrapNull(value) else { return AnyHashable(0) }
        if let string = StringMatching.string(from: value) { return AnyHashable(string) }
        if let number = NumericValue(value) { return AnyHashable(number.hashKey) }
        if let elements = CollectionValue.elements(of: value) { return AnyHashable(elements.count) }
        if let identity = value as? ObjectIdentityComparable { return identity.comparisonIdentity }
        if let date = value as? Date { return AnyHashable(date) }
        if let uuid = value as? UUID { return AnyHashable(uuid) }
        return AnyHashable(String(describing: type(of: value)))
    }

    private static func isOrdered(_ value: Any) -> Bool {
        !(value is NSSet) && !(value is Set<AnyHashable>)
    }

    private static func collectionsEqual(
        _ left: [Any?], _ right: [Any?], ordered: Bool, options: NSComparisonPredicate.Options
    ) -> Bool {
        guard left.count == right.count else { return false }
        if ordered { return zip(left, right).allSatisfy { equals($0, $1, options: options) } }
        var unmatched = right
        for element in left {
            guard let index = unmatched.firstIndex(where: { equals(element, $0, options: options) }) else {
                return false
            }
            unmatched.remove(at: index)
        }
        return true
    }

    private static func compareOpened<T: Comparable>(_ lhs: T, _ rhs: Any) -> ComparisonResult? {
        guard let rhs = rhs as? T else { return nil }
        return order(lhs, rhs)
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }
}
