/// Evaluates expressions in memory.
package enum ExpressionEvaluator {
    /// The value of `expression` for `object`, with `$variables` read from `bindings`.
    ///
    /// Collections produced by aggregates, set operations and subqueries are `[Any?]`.
    /// Unknown variables and unsupported functions evaluate to `nil`; `FUNCTION(object, …)`
    /// asks `object` when it is an ``ExpressionFunctionTarget``.
    package static func value(of expression: NSExpression, object: Any?, bindings: [String: Any]) -> Any? {
        let evaluate = { (child: NSExpression) in value(of: child, object: object, bindings: bindings) }
        switch expression.node {
        case .constant(let value):
            return value
        case .evaluatedObject:
            return object
        case .variable(let name):
            return CollectionValue.unwrapNull(bindings[name])
        case .symbol(let name):
            return name
        case .anyKey:
            return nil
        case .keyPath(let operand, let path):
            let base = operand.map(evaluate) ?? object
            return KeyPathEvaluation.value(forKeyPath: path, of: base)
        case .function(let operand, let name, let arguments):
            if let operand {
                let target = evaluate(operand) as? ExpressionFunctionTarget
                return target?.evaluateFunction(named: name, arguments: arguments.map(evaluate))
            }
            if name == PredicateFunctions.index, arguments.count == 2 {
                return PredicateFunctions.element(of: evaluate(arguments[0]), at: arguments[1].node, evaluate: evaluate)
            }
            return PredicateFunctions.call(name, arguments.map(evaluate))
        case .aggregate(let items):
            return items.map(evaluate)
        case .union(let a, let b):
            return distinct(elements(evaluate(a)) + elements(evaluate(b)))
        case .intersect(let a, let b):
            let right = elements(evaluate(b))
            return distinct(
                elements(evaluate(a)).filter { item in right.contains { ValueComparison.equals(item, $0) } })
        case .minus(let a, let b):
            let right = elements(evaluate(b))
            return distinct(
                elements(evaluate(a)).filter { item in !right.contains { ValueComparison.equals(item, $0) } })
        case .subquery(let collection, let variable, let predicate):
            return elements(evaluate(collection)).filter { element in
                var inner = bindings
                inner[variable] = element ?? NSNull()
                return predicate.evaluate(with: element, substitutionVariables: inner)
            }
        case .block(let block, let arguments):
            let values: [Any] = (arguments ?? []).map { evaluate($0) ?? NSNull() }
            let context = NSMutableDictionary()
            for (key, value) in bindings { context[key] = value }
            return CollectionValue.unwrapNull(block.body(object, values, context))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return evaluate(predicate.evaluate(with: object, substitutionVariables: bindings) ? whenTrue : whenFalse)
        case .fetch(let request, let context, let countOnly):
            let runner = evaluate(context) as? FetchExpressionContext
            return runner?.resultOfFetchExpression(request: evaluate(request), countOnly: countOnly)
        }
    }

    /// The elements of a collection value, or an empty array for anything else.
    private static func elements(_ value: Any?) -> [Any?] {
        CollectionValue.members(of: value) ?? []
    }

    /// `values` without later duplicates, keeping first occurrences in order.
    package static func distinct(_ values: [Any?]) -> [Any?] {
        var result: [Any?] = []
        for value in values where !result.contains(where: { ValueComparison.equals($0, value) }) {
            result.append(value)
        }
        return result
    }
}
