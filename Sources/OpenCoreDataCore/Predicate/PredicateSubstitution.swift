/// Replaces `$variables` with constants throughout predicate and expression trees,
/// for `withSubstitutionVariables(_:)`.
enum Substitution {
    /// `predicate` with every variable found in `variables` replaced by its value.
    static func predicate(_ predicate: NSPredicate, _ variables: [String: Any]) -> NSPredicate {
        switch predicate.node {
        case .constant, .block:
            return predicate
        case .comparison(var parts):
            parts.left = expression(parts.left, variables)
            parts.right = expression(parts.right, variables)
            return NSPredicate.make(.comparison(parts))
        case .compound(let type, let subpredicates):
            return NSPredicate.make(.compound(type, subpredicates.map { self.predicate($0, variables) }))
        }
    }

    /// `expression` with every variable found in `variables` replaced by its value.
    static func expression(_ expression: NSExpression, _ variables: [String: Any]) -> NSExpression {
        let sub = { (child: NSExpression) in self.expression(child, variables) }
        switch expression.node {
        case .constant, .evaluatedObject, .anyKey, .symbol:
            return expression
        case .variable(let name):
            guard let value = variables[name] else { return expression }
            return NSExpression(forConstantValue: value)
        case .keyPath(let operand, let path):
            return NSExpression(node: .keyPath(operand: operand.map(sub), path: path))
        case .function(let operand, let name, let arguments):
            return NSExpression(node: .function(operand: operand.map(sub), name: name, arguments: arguments.map(sub)))
        case .aggregate(let items):
            return NSExpression(node: .aggregate(items.map(sub)))
        case .union(let a, let b): return NSExpression(node: .union(sub(a), sub(b)))
        case .intersect(let a, let b): return NSExpression(node: .intersect(sub(a), sub(b)))
        case .minus(let a, let b): return NSExpression(node: .minus(sub(a), sub(b)))
        case .subquery(let collection, let variable, let predicate):
            // The iterator variable is bound by the subquery itself, never substituted.
            var inner = variables
            inner[variable] = nil
            return NSExpression(node: .subquery(collection: sub(collection), variable: variable,
                                                predicate: self.predicate(predicate, inner)))
        case .block(let block, let arguments):
            return NSExpression(node: .block(block, arguments: arguments?.map(sub)))
        case .conditional(let predicate, let a, let b):
            return NSExpression(node: .conditional(self.predicate(predicate, variables), sub(a), sub(b)))
        }
    }
}
