/// The internal tree behind an ``NSExpression``.
///
/// Keeping the structure in one enum lets the parser, the formatter, the evaluator
/// and structural equality switch over every kind of expression in one place.
package enum ExpressionNode {
    case constant(Any?)
    case evaluatedObject
    case variable(String)
    /// A key path read from `operand`, or from the evaluated object when `operand` is nil.
    case keyPath(operand: NSExpression?, path: String)
    /// A built-in function (`operand == nil`) or `FUNCTION(operand, 'name', ...)`.
    case function(operand: NSExpression?, name: String, arguments: [NSExpression])
    case aggregate([NSExpression])
    case union(NSExpression, NSExpression)
    case intersect(NSExpression, NSExpression)
    case minus(NSExpression, NSExpression)
    case subquery(collection: NSExpression, variable: String, predicate: NSPredicate)
    case anyKey
    case block(ExpressionBlock, arguments: [NSExpression]?)
    case conditional(NSPredicate, NSExpression, NSExpression)
    /// `FIRST`, `LAST` or `SIZE` inside an index subscript.
    case symbol(String)
    /// `FETCH(request, context, countOnly)`: the results (or their count) of the fetch
    /// request `request` evaluates to, run in the context `context` evaluates to.
    case fetch(request: NSExpression, context: NSExpression, countOnly: Bool)
}

/// Boxes a block expression's closure so it can be compared by identity.
package final class ExpressionBlock: @unchecked Sendable {
    package let body: (Any?, [Any], NSMutableDictionary?) -> Any
    package init(_ body: @escaping (Any?, [Any], NSMutableDictionary?) -> Any) { self.body = body }
}

extension ExpressionNode: Hashable {
    package static func == (lhs: ExpressionNode, rhs: ExpressionNode) -> Bool {
        switch (lhs.canonical, rhs.canonical) {
        case let (.constant(a), .constant(b)): return ValueComparison.equals(a, b)
        case (.evaluatedObject, .evaluatedObject), (.anyKey, .anyKey): return true
        case let (.variable(a), .variable(b)), let (.symbol(a), .symbol(b)): return a == b
        case let (.keyPath(a, p), .keyPath(b, q)): return p == q && operandsEqual(a, b)
        case let (.function(a, n, x), .function(b, m, y)): return n == m && x == y && operandsEqual(a, b)
        case let (.aggregate(a), .aggregate(b)): return a == b
        case let (.union(a, b), .union(c, d)), let (.intersect(a, b), .intersect(c, d)),
            let (.minus(a, b), .minus(c, d)):
            return a == c && b == d
        case let (.subquery(a, v, p), .subquery(b, w, q)): return a == b && v == w && p == q
        case let (.block(a, x), .block(b, y)): return a === b && x == y
        case let (.conditional(p, a, b), .conditional(q, c, d)): return p == q && a == c && b == d
        case let (.fetch(a, b, x), .fetch(c, d, y)): return a == c && b == d && x == y
        default: return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch canonical {
        case .constant(let value): hasher.combine(0); hasher.combine(ValueComparison.hashKey(of: value))
        case .evaluatedObject: hasher.combine(1)
        case .variable(let name): hasher.combine(2); hasher.combine(name)
        case .keyPath(_, let path): hasher.combine(3); hasher.combine(path)
        case .function(_, let name, let arguments): hasher.combine(4); hasher.combine(name); hasher.combine(arguments)
        case .aggregate(let items): hasher.combine(14); hasher.combine(items)
        case .union(let a, let b), .intersect(let a, let b), .minus(let a, let b):
            hasher.combine(5); hasher.combine(a); hasher.combine(b)
        case .subquery(let collection, let variable, let predicate):
            hasher.combine(13); hasher.combine(collection); hasher.combine(variable); hasher.combine(predicate)
        case .anyKey: hasher.combine(15)
        case .block(let block, _): hasher.combine(19); hasher.combine(ObjectIdentifier(block))
        case .conditional(let predicate, _, _): hasher.combine(20); hasher.combine(predicate)
        case .symbol(let name): hasher.combine(21); hasher.combine(name)
        case .fetch(let request, _, let countOnly):
            hasher.combine(50); hasher.combine(request); hasher.combine(countOnly)
        }
    }

    /// An aggregate made only of constants equals the constant array of their
    /// values, so `{1, 2}` parsed from text equals a `%@` array argument.
    private var canonical: ExpressionNode {
        guard case .aggregate(let items) = self else { return self }
        var values: [Any?] = []
        for item in items {
            guard case .constant(let value) = item.node else { return self }
            values.append(value)
        }
        return .constant(values)
    }

    /// A key path on the evaluated object equals one with an explicit `SELF` operand.
    private static func operandsEqual(_ a: NSExpression?, _ b: NSExpression?) -> Bool {
        (a ?? NSExpression.expressionForEvaluatedObject()) == (b ?? NSExpression.expressionForEvaluatedObject())
    }
}
