/// The internal tree behind an ``NSPredicate``.
///
/// Every predicate, whatever its class, carries one of these, so evaluation,
/// formatting and structural equality never depend on which class built it.
package enum PredicateNode: Hashable {
    case constant(Bool)
    case comparison(ComparisonNode)
    case compound(NSCompoundPredicate.LogicalType, [NSPredicate])
    case block(PredicateBlock)
}

/// The parts of a comparison predicate.
package struct ComparisonNode: Hashable {
    package var left: NSExpression
    package var right: NSExpression
    package var modifier: NSComparisonPredicate.Modifier
    package var operatorType: NSComparisonPredicate.Operator
    package var options: NSComparisonPredicate.Options
    package var customSelector: Selector?
}

/// Boxes a block predicate's closure; block predicates are equal only to themselves.
package final class PredicateBlock: Hashable, @unchecked Sendable {
    package let body: (Any?, [String: Any]?) -> Bool
    package init(_ body: @escaping (Any?, [String: Any]?) -> Bool) { self.body = body }
    package static func == (lhs: PredicateBlock, rhs: PredicateBlock) -> Bool { lhs === rhs }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
