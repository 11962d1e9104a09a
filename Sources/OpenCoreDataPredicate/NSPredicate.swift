/// A logical condition on an object, used to filter collections and fetch requests.
///
/// Mirrors Foundation's `NSPredicate`, whose format-string initializer is
/// unavailable on Linux. Predicates are immutable; equality and hashing are
/// structural, so a parsed predicate equals the same predicate built in code.
/// `NSPredicate(format:)` (see ``NSPredicateFormatInitializing``) returns an
/// ``NSComparisonPredicate`` or ``NSCompoundPredicate`` when the format describes one.
open class NSPredicate: NSObject, @unchecked Sendable {
    package let node: PredicateNode

    init(node: PredicateNode) {
        self.node = node
        super.init()
    }

    /// A predicate that always evaluates to `value` (`TRUEPREDICATE` / `FALSEPREDICATE`).
    public convenience init(value: Bool) {
        self.init(node: .constant(value))
    }

    /// A predicate decided by `block`, which receives the evaluated object and the
    /// substitution variables. Block predicates cannot be written as format strings.
    public convenience init(block: @escaping (Any?, [String: Any]?) -> Bool) {
        self.init(node: .block(PredicateBlock(block)))
    }

    /// Parses a predicate, throwing a ``PredicateParseError`` instead of trapping when
    /// the format string is malformed. Arguments fill `%@`, `%K`, `%d` and friends in order.
    ///
    /// The result is an ``NSComparisonPredicate``, an ``NSCompoundPredicate`` or a
    /// constant predicate, as with Foundation.
    ///
    /// - Parameters:
    ///   - format: The predicate in Foundation's format syntax.
    ///   - arguments: The values of the format's specifiers, in order.
    /// - Returns: The parsed predicate.
    /// - Throws: A ``PredicateParseError`` with the reason and the position in `format`.
    public static func parse(format: String, argumentArray arguments: [Any?] = []) throws -> NSPredicate {
        try PredicateParser.parsePredicate(format: format, arguments: arguments)
    }

    /// Builds the predicate class matching `node`, so that `is NSComparisonPredicate`
    /// and `as? NSCompoundPredicate` work on every predicate we create.
    package static func make(_ node: PredicateNode) -> NSPredicate {
        switch node {
        case .comparison(let parts): return NSComparisonPredicate(parts: parts)
        case .compound(let type, let subpredicates):
            return NSCompoundPredicate(type: type, subpredicates: subpredicates)
        case .constant, .block: return NSPredicate(node: node)
        }
    }

    /// The predicate in format-string syntax; parsing it gives an equal predicate.
    open var predicateFormat: String { PredicateFormatter.format(self) }

    /// A copy of the predicate with `$variables` replaced by the given constant values.
    /// Variables without a value stay in place.
    ///
    /// - Parameter variables: Values by variable name, without the `$`.
    /// - Returns: The new predicate; this one is unchanged.
    open func withSubstitutionVariables(_ variables: [String: Any]) -> NSPredicate {
        Substitution.predicate(self, variables)
    }

    /// Whether `object` satisfies the predicate.
    ///
    /// - Parameter object: The value to test: a managed object, a dictionary, or any
    ///   ``KeyValueCoding`` value.
    /// - Returns: `true` when the object matches.
    open func evaluate(with object: Any?) -> Bool {
        evaluate(with: object, substitutionVariables: nil)
    }

    /// Whether `object` satisfies the predicate, reading `$variables` from `bindings`.
    ///
    /// - Parameters:
    ///   - object: The value to test.
    ///   - bindings: Values of the predicate's variables, by name without the `$`.
    /// - Returns: `true` when the object matches.
    open func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        PredicateEvaluator.evaluate(self, object: object, bindings: bindings ?? [:])
    }

    /// Kept for API compatibility: predicates here are always evaluable.
    open func allowEvaluation() {}

    /// Structural equality: same shape, operators, options and values.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPredicate else { return false }
        return other === self || other.node == node
    }

    /// A hash consistent with structural equality.
    open override var hash: Int { node.hashValue }

    /// Same as ``predicateFormat``.
    open override var description: String { predicateFormat }
}

extension NSPredicate: NSCopying {
    /// Predicates are immutable, so a copy is the predicate itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
