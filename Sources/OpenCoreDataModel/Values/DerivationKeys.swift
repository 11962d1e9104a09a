/// What a derivation or fetched property reads: the model checks derivations against it,
/// objects recompute derived values from it.
package enum DerivationKeys {
    /// The first component of every key path the expression reads from the object
    /// itself (`name` for `lowercase:(name)`, `items` for `items.@count`).
    package static func rootKeys(of expression: NSExpression) -> [String] {
        switch expression.node {
        case .keyPath(let operand, let path):
            if let operand { return rootKeys(of: operand) }
            guard let first = path.split(separator: ".").first, !first.hasPrefix("@") else { return [] }
            return [String(first)]
        case .function(let operand, _, let arguments):
            return (operand.map(rootKeys) ?? []) + arguments.flatMap(rootKeys)
        case .aggregate(let items):
            return items.flatMap(rootKeys)
        case .union(let a, let b), .intersect(let a, let b), .minus(let a, let b):
            return rootKeys(of: a) + rootKeys(of: b)
        case .subquery(let collection, _, _):
            return rootKeys(of: collection)
        case .conditional(_, let a, let b):
            return rootKeys(of: a) + rootKeys(of: b)
        case .constant, .evaluatedObject, .variable, .anyKey, .symbol, .block, .fetch:
            return []
        }
    }
}
