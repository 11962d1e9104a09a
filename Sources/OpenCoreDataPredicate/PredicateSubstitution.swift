/// Rewrites the leaves of predicate and expression trees: replaces `$variables` with
/// constants (`withSubstitutionVariables(_:)`), or maps every constant (a parent context
/// naming a child's objects by its own IDs).
package struct Substitution {
    /// The values of the variables to replace.
    private var variables: [String: Any] = [:]
    /// Applied to every constant, when set.
    private var constant: ((Any?) -> Any?)?

    /// `predicate` with every variable found in `variables` replaced by its value.
    package static func predicate(_ predicate: NSPredicate, _ variables: [String: Any]) -> NSPredicate {
        Substitution(variables: variables).predicate(predicate)
    }

    /// `expression` with every variable found in `variables` replaced by its value.
    package static func expression(_ expression: NSExpression, _ variables: [String: Any]) -> NSExpression {
        Substitution(variables: variables).expression(expression)
    }

    /// `predicate` with every constant replaced by `transform` of it.
    package static func mappingConstants(
        in predicate: NSPredicate, _ transform: @escaping (Any?) -> Any?
    ) -> NSPredicate {
        Substitution(constant: transform).predicate(predicate)
    }

    private func predicate(_ predicate: NSPredicate) -> NSPredicate {
        switch predicate.node {
        case .constant, .block:
            return predicate
        case .comparison(var parts):
            parts.left = expression(parts.left)
            parts.right = expression(parts.right)
            return NSPredicate.make(.comparison(parts))
        case .compound(let type, let subpredicates):
            return NSPredicate.make(.compound(type, subpredicates.map(self.predicate)))
        }
    }

    private func expression(_ expression: NSExpression) -> NSExpression {
        let sub = self.expression
        switch expression.node {
        case .constant(let value):
            guard let constant else { return expression }
            return NSExpression(forConstantValue: constant(value))
        case .evaluatedObject, .anyKey, .symbol:
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
            var inner = self
            inner.variables[variable] = nil
            return NSExpression(
                node: .subquery(
                    collection: sub(collection), variable: variable,
                    predicate: inner.predicate(predicate)))
        case .block(let block, let arguments):
            return NSExpression(node: .block(block, arguments: arguments?.map(sub)))
        case .conditional(let predicate, let a, let b):
            return NSExpression(node: .conditional(self.predicate(predicate), sub(a), sub(b)))
        case .fetch(let request, let context, let countOnly):
            return NSFetchRequestExpression(
                node: .fetch(request: sub(request), context: sub(context), countOnly: countOnly))
        }
    }
}
