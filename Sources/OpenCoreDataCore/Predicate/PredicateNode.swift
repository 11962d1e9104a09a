/// The internal tree behind an ``NSPredicate``.
///
/// Every predicate, whatever its class, carries one of these, so evaluation,
/// formatting and structural equality never depend on which class built it.
enum PredicateNode: Hashable {
    case constant(Bool)
    case comparison(ComparisonNode)
    case compound(NSCompoundPredicate.LogicalType, [NSPredicate])
    case block(PredicateBlock)
}

/// The parts of a comparison predicate.
struct ComparisonNode: Hashable {
    var left: NSExpression
    var right: NSExpression
    var modifier: NSComparisonPredicate.Modifier
    var operatorType: NSComparisonPredicate.Operator
    var options: NSComparisonPredicate.Options
    var customSelector: Selector?
}

/// Boxes a block predicate's closure; block predicates are equal only to themselves.
final class PredicateBlock: Hashable, @unchecked Sendable {
    let body: (Any?, [String: Any]?) -> Bool
    init(_ body: @escaping (Any?, [String: Any]?) -> Bool) { self.body = body }
    static func == (lhs: PredicateBlock, rhs: PredicateBlock) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
