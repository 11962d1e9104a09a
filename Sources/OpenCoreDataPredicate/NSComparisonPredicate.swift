/// A predicate that compares the results of two expressions, such as `age > 18`
/// or `ANY tags.name ==[c] "swift"`.
open class NSComparisonPredicate: NSPredicate, @unchecked Sendable {
    /// How the two sides are compared, with Foundation's raw values.
    public enum Operator: UInt, Sendable {
        /// `<`
        case lessThan = 0
        /// `<=` (also `=<`)
        case lessThanOrEqualTo = 1
        /// `>`
        case greaterThan = 2
        /// `>=` (also `=>`)
        case greaterThanOrEqualTo = 3
        /// `==` (also `=`)
        case equalTo = 4
        /// `!=` (also `<>`)
        case notEqualTo = 5
        /// `MATCHES`: the whole string matches an ICU regular expression.
        case matches = 6
        /// `LIKE`: the whole string matches a pattern with `*` and `?` wildcards.
        case like = 7
        /// `BEGINSWITH`
        case beginsWith = 8
        /// `ENDSWITH`
        case endsWith = 9
        /// `IN`: membership in a collection, or substring of a string.
        case `in` = 10
        /// A comparison by a named method (not evaluable on Linux).
        case customSelector = 11
        /// `CONTAINS`: a collection holds the value, or a string contains the substring.
        case contains = 99
        /// `BETWEEN {lower, upper}`, bounds included.
        case between = 100
    }

    /// Whether the comparison applies to the left value itself or to each element
    /// of the collection it holds.
    public enum Modifier: UInt, Sendable {
        /// Compare the left value directly.
        case direct = 0
        /// Every element must satisfy the comparison (true for an empty collection).
        case all = 1
        /// Some element must satisfy the comparison (false for an empty collection).
        case any = 2
    }

    /// String comparison options, written `[c]`, `[d]` and `[n]` in format strings.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits, matching Foundation's values.
        public let rawValue: UInt
        /// Creates options from raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// `[c]`: ignore case.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: ignore diacritics.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the strings are already normalized; no folding is done.
        public static let normalized = Options(rawValue: 4)
    }

    let parts: ComparisonNode

    init(parts: ComparisonNode) {
        self.parts = parts
        super.init(node: .comparison(parts))
    }

    /// A predicate comparing `lhs` to `rhs` with operator `type`.
    public convenience init(
        leftExpression lhs: NSExpression, rightExpression rhs: NSExpression,
        modifier: Modifier, type: Operator, options: Options = []
    ) {
        self.init(
            parts: ComparisonNode(
                left: lhs, right: rhs, modifier: modifier, operatorType: type,
                options: options, customSelector: nil))
    }

    /// A predicate that compares by sending `selector` to the left value. It cannot
    /// be evaluated on Linux (there is no selector dispatch) and evaluates to false.
    public convenience init(
        leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, customSelector selector: Selector
    ) {
        self.init(
            parts: ComparisonNode(
                left: lhs, right: rhs, modifier: .direct, operatorType: .customSelector,
                options: [], customSelector: selector))
    }

    /// The left-hand expression.
    open var leftExpression: NSExpression { parts.left }
    /// The right-hand expression.
    open var rightExpression: NSExpression { parts.right }
    /// Whether the comparison applies directly, or to any or all elements of the left value.
    open var comparisonPredicateModifier: Modifier { parts.modifier }
    /// The comparison operator.
    open var predicateOperatorType: Operator { parts.operatorType }
    /// The string comparison options.
    open var options: Options { parts.options }
    /// The selector of a custom-selector comparison, otherwise `nil`.
    open var customSelector: Selector? { parts.customSelector }
}
