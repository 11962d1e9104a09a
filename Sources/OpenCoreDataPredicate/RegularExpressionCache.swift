/// Compiled `MATCHES` patterns, shared by in-memory evaluation and the store's SQL
/// function, which would otherwise compile the same pattern once per row.
///
/// A pattern is checked on its own first: it is wrapped in `\A(?:…)\z` to match the
/// whole string, and wrapping could make an invalid pattern such as `a)(b` valid.
/// An invalid pattern is remembered as `nil` (it matches nothing in memory; a store
/// fetch reports it, see ``StringMatching/checkRegularExpression(_:options:)``).
/// `NSRegularExpression` is immutable and safe to use from several threads; the table
/// itself is behind a lock and emptied when it grows past a bound, since patterns
/// usually come from a handful of predicates.
enum RegularExpressionCache {
    private struct Key: Hashable {
        let pattern: String
        let caseInsensitive: Bool
    }

    private nonisolated(unsafe) static var compiled: [Key: NSRegularExpression?] = [:]
    private static let lock = NSLock()
    private static let capacity = 256

    /// The whole-string matcher for `pattern`, or `nil` when the pattern is invalid.
    static func wholeStringMatcher(for pattern: String, caseInsensitive: Bool) -> NSRegularExpression? {
        let key = Key(pattern: pattern, caseInsensitive: caseInsensitive)
        if let known = lock.withLock({ compiled[key] }) { return known }
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        var matcher: NSRegularExpression?
        if (try? NSRegularExpression(pattern: pattern, options: options)) != nil {
            matcher = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options)
        }
        lock.withLock {
            if compiled.count >= capacity { compiled.removeAll(keepingCapacity: true) }
            compiled[key] = .some(matcher)
        }
        return matcher
    }
}
