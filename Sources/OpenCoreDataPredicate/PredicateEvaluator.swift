/// Evaluates predicates in memory with Foundation's semantics.
package enum PredicateEvaluator {
    /// Whether `object` satisfies `predicate`, with `$variables` read from `bindings`.
    package static func evaluate(_ predicate: NSPredicate, object: Any?, bindings: [String: Any]) -> Bool {
        switch predicate.node {
        case .constant(let value):
            return value
        case .block(let block):
            return block.body(object, bindings)
        case .compound(let type, let subpredicates):
            // Subpredicates go through `evaluate(with:substitutionVariables:)` so that
            // subclasses overriding it are honoured.
            switch type {
            case .and: return subpredicates.allSatisfy { $0.evaluate(with: object, substitutionVariables: bindings) }
            case .or: return subpredicates.contains { $0.evaluate(with: object, substitutionVariables: bindings) }
            case .not: return !(subpredicates.first?.evaluate(with: object, substitutionVariables: bindings) ?? true)
            }
        case .comparison(let parts):
            return evaluate(parts, object: object, bindings: bindings)
        }
    }

    private static func evaluate(_ parts: ComparisonNode, object: Any?, bindings: [String: Any]) -> Bool {
        guard parts.operatorType != .customSelector else { return false }
        let left = ExpressionEvaluator.value(of: parts.left, object: object, bindings: bindings)
        let right = ExpressionEvaluator.value(of: parts.right, object: object, bindings: bindings)
        switch parts.modifier {
        case .direct:
            return compare(left, parts.operatorType, right, options: parts.options)
        case .any:
            return elements(of: left).contains { compare($0, parts.operatorType, right, options: parts.options) }
        case .all:
            return elements(of: left).allSatisfy { compare($0, parts.operatorType, right, options: parts.options) }
        }
    }

    /// The elements an `ANY`/`ALL` comparison iterates: a collection's elements, a
    /// single non-collection value on its own, and nothing for `nil`.
    private static func elements(of value: Any?) -> [Any?] {
        if let elements = CollectionValue.elements(of: value) { return elements }
        guard let value = CollectionValue.unwrapNull(value) else { return [] }
        return [value]
    }

    /// Applies one comparison operator to two already-evaluated values.
    ///
    /// This is the entry point for code that must agree with in-memory evaluation
    /// (e.g. SQL functions). `.customSelector` is never satisfied.
    package static func compare(
        _ left: Any?, _ type: NSComparisonPredicate.Operator, _ right: Any?,
        options: NSComparisonPredicate.Options
    ) -> Bool {
        switch type {
        case .equalTo:
            return ValueComparison.equals(left, right, options: options)
        case .notEqualTo:
            return !ValueComparison.equals(left, right, options: options)
        case .lessThan:
            return ValueComparison.compare(left, right, options: options) == .orderedAscending
        case .lessThanOrEqualTo:
            return [.orderedAscending, .orderedSame].contains(ValueComparison.compare(left, right, options: options))
        case .greaterThan:
            return ValueComparison.compare(left, right, options: options) == .orderedDescending
        case .greaterThanOrEqualTo:
            return [.orderedDescending, .orderedSame].contains(ValueComparison.compare(left, right, options: options))
        case .matches:
            guard let string = StringMatching.string(from: left), let pattern = StringMatching.string(from: right)
            else { return false }
            return StringMatching.matchesRegularExpression(string, pattern: pattern, options: options)
        case .like:
            guard let string = StringMatching.string(from: left), let pattern = StringMatching.string(from: right)
            else { return false }
            return StringMatching.like(string, pattern: pattern, options: options)
        case .beginsWith:
            guard let string = StringMatching.string(from: left), let prefix = StringMatching.string(from: right) else {
                return false
            }
            return StringMatching.hasPrefix(string, prefix, options: options)
        case .endsWith:
            guard let string = StringMatching.string(from: left), let suffix = StringMatching.string(from: right) else {
                return false
            }
            return StringMatching.hasSuffix(string, suffix, options: options)
        case .in:
            return isMember(left, of: right, options: options)
        case .contains:
            return isMember(right, of: left, options: options)
        case .between:
            guard let bounds = CollectionValue.elements(of: right), bounds.count == 2,
                let lower = ValueComparison.compare(left, bounds[0], options: options),
                let upper = ValueComparison.compare(left, bounds[1], options: options)
            else { return false }
            return lower != .orderedAscending && upper != .orderedDescending
        case .customSelector:
            return false
        }
    }

    /// `element IN container`: membership in a collection or a dictionary's values,
    /// or substring containment when both are strings.
    private static func isMember(_ element: Any?, of container: Any?, options: NSComparisonPredicate.Options) -> Bool {
        if let string = StringMatching.string(from: container) {
            guard let substring = StringMatching.string(from: element) else { return false }
            return StringMatching.contains(string, substring, options: options)
        }
        guard let members = CollectionValue.members(of: container) else { return false }
        return members.contains { ValueComparison.equals(element, $0, options: options) }
    }
}
