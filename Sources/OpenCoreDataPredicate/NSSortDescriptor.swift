/// Describes how to order objects by the value at a key path, for sorting arrays
/// and fetch results.
///
/// Mirrors Foundation's `NSSortDescriptor`, using ``Selector`` names instead of
/// Objective-C selectors. `nil` values sort before all others when ascending, as
/// Core Data's SQLite store orders them.
open class NSSortDescriptor: NSObject, @unchecked Sendable {
    /// The key path whose values are compared; `nil` compares the objects themselves.
    public let key: String?
    /// Whether smaller values come first.
    public let ascending: Bool
    /// The comparison method, e.g. ``Selector/localizedStandardCompare``; `nil` when
    /// the descriptor uses a comparator block.
    public let selector: Selector?
    private let block: Comparator?

    /// Sorts by `key` with the default `compare:` ordering.
    public convenience init(key: String?, ascending: Bool) {
        self.init(key: key, ascending: ascending, selector: nil)
    }

    /// Sorts by `key` using the comparison named by `selector` (`compare:` when nil).
    /// Supported: `compare:`, `caseInsensitiveCompare:`, `localizedCompare:`,
    /// `localizedCaseInsensitiveCompare:` and `localizedStandardCompare:`; other
    /// names fall back to `compare:`.
    public init(key: String?, ascending: Bool, selector: Selector?) {
        self.key = key
        self.ascending = ascending
        self.selector = selector ?? .compare
        self.block = nil
        super.init()
    }

    /// Sorts by `key` using `comparator`, which receives the two (non-nil) values.
    public init(key: String?, ascending: Bool, comparator: @escaping Comparator) {
        self.key = key
        self.ascending = ascending
        self.selector = nil
        self.block = comparator
        super.init()
    }

    /// The Swift key path the descriptor was created with, or `nil` when it was made from a string key.
    public package(set) var keyPath: AnyKeyPath?

    /// The comparison applied to two values, in ascending terms.
    open var comparator: Comparator {
        if let block { return block }
        let selector = self.selector ?? .compare
        return { lhs, rhs in NSSortDescriptor.compareValues(lhs, rhs, selector: selector) }
    }

    /// A descriptor with the opposite direction (an `NSSortDescriptor`, typed `Any` as in Foundation).
    open var reversedSortDescriptor: Any {
        let reversed =
            block.map { NSSortDescriptor(key: key, ascending: !ascending, comparator: $0) }
            ?? NSSortDescriptor(key: key, ascending: !ascending, selector: selector)
        reversed.keyPath = keyPath
        return reversed
    }

    /// Orders two objects by this descriptor.
    open func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
        compareKeyValues(value(of: object1), value(of: object2))
    }

    /// The value this descriptor orders `object` by: its key path's value, or the object.
    func value(of object: Any) -> Any? {
        key.map { KeyPathEvaluation.value(forKeyPath: $0, of: object) } ?? CollectionValue.unwrapNull(object)
    }

    /// Orders two values already read with ``value(of:)`` (nil first), in this
    /// descriptor's direction.
    package func compareKeyValues(_ lhs: Any?, _ rhs: Any?) -> ComparisonResult {
        let result: ComparisonResult
        switch (lhs, rhs) {
        case (nil, nil): result = .orderedSame
        case (nil, _): result = .orderedAscending
        case (_, nil): result = .orderedDescending
        case let (left?, right?): result = comparator(left, right)
        }
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// Compares two non-nil values the way the method named `selector` would.
    static func compareValues(_ lhs: Any, _ rhs: Any, selector: Selector) -> ComparisonResult {
        // Strings first and without further casts: they are what sorts most often.
        if let left = lhs as? String, let right = rhs as? String {
            return compareStrings(left, right, selector: selector)
        }
        if let left = lhs as? Int64, let right = rhs as? Int64 {
            return left < right ? .orderedAscending : left == right ? .orderedSame : .orderedDescending
        }
        guard let left = StringMatching.string(from: lhs), let right = StringMatching.string(from: rhs) else {
            return ValueComparison.compare(lhs, rhs) ?? .orderedSame
        }
        return compareStrings(left, right, selector: selector)
    }

    /// Compares two strings the way the string method named `selector` would (`compare:`
    /// for selectors that are not string comparisons). SQLite's sort collations call it too.
    package static func compareStrings(_ left: String, _ right: String, selector: Selector) -> ComparisonResult {
        switch selector {
        case .caseInsensitiveCompare:
            return left.compare(right, options: .caseInsensitive)
        case .localizedCompare:
            return left.compare(right, options: [], range: nil, locale: .current)
        case .localizedCaseInsensitiveCompare:
            return left.compare(right, options: .caseInsensitive, range: nil, locale: .current)
        case .localizedStandardCompare:
            return left.compare(
                right, options: [.caseInsensitive, .numeric, .widthInsensitive, .forcedOrdering],
                range: nil, locale: .current)
        default:
            return left == right ? .orderedSame : left < right ? .orderedAscending : .orderedDescending
        }
    }

    /// Descriptors are equal when key, direction and selector match; comparator-based
    /// descriptors are equal only to themselves.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSSortDescriptor else { return false }
        if other === self { return true }
        return block == nil && other.block == nil && key == other.key && ascending == other.ascending
            && selector == other.selector
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(key)
        hasher.combine(ascending)
        hasher.combine(selector)
        return hasher.finalize()
    }

    /// A readable summary, e.g. `(name, ascending, localizedStandardCompare:)`.
    open override var description: String {
        "(\(key ?? "SELF"), \(ascending ? "ascending" : "descending"), \(selector?.name ?? "<comparator>"))"
    }
}

extension NSSortDescriptor {
    /// Orders two objects by a list of descriptors: the first that tells them apart wins.
    static func compare(_ lhs: Any, _ rhs: Any, using descriptors: [NSSortDescriptor]) -> ComparisonResult {
        for descriptor in descriptors {
            let result = descriptor.compare(lhs, to: rhs)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }
}
