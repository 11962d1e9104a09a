import Foundation
import OpenCoreData

// `expression.evaluate(a, b, …)` inside a predicate: Foundation's `Expression` (iOS 18's
// `#Expression`) applied to inputs. In SQL it is inlined: each input is translated where the
// call stands, the Expression's variables are bound to those terms, and the Expression's body
// is translated in their place, so it runs in the store like the rest of the predicate.
//
// The Expression itself must be known now (a captured value, the usual case); one read from
// the fetched object would be a stored closure, which SQL cannot run.

/// Inlines the Expression's body with its variables bound to the translated inputs, for any
/// number of inputs (the inputs and the Expression's variables are parameter packs of the same
/// shape, walked in order).
extension PredicateExpressions.ExpressionEvaluate: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let node = "PredicateExpressions.ExpressionEvaluate"
        let transformation = try context.term(expression)
        guard case .constant(let value) = transformation else {
            throw context.unsupported(
                node, "the Expression must be a captured value; one read from the fetched object cannot run in SQL")
        }
        guard let evaluated = PredicateTranslationContext.unwrapped(value) as? Transformation.Output else {
            throw context.unsupported(node, "the Expression is nil or not an Expression of the inputs' types")
        }
        var inputs: [SQLTerm] = []
        for input in repeat each input {
            inputs.append(try context.term(input))
        }
        // Nothing read from the store: the call's result is known now.
        if inputs.allSatisfy(\.isConstant) { return try context.folded(self) }
        var variables: [PredicateExpressionVariableBinding] = []
        for variable in repeat each evaluated.variable {
            variables.append(PredicateExpressionVariableBinding(variable))
        }
        guard variables.count == inputs.count else {
            // The types make the two packs the same length; this only guards the zip below.
            throw context.unsupported(
                node, "the Expression has \(variables.count) variables for \(inputs.count) inputs")
        }
        return try context.with(variables[...], boundTo: inputs[...]) {
            try context.term(evaluated.expression)
        }
    }
}

/// One of an Expression's variables with its value type erased: a pack of variables of
/// different types becomes an array, bound one after another to the inputs' terms.
struct PredicateExpressionVariableBinding {
    /// Runs the body with the variable bound to the term (through the context's typed `with`,
    /// which also binds a constant for folding constant parts now).
    let bind: (PredicateTranslationContext, SQLTerm, () throws -> SQLTerm) throws -> SQLTerm

    /// Wraps `variable`, keeping its type inside the closure.
    init<Value>(_ variable: PredicateExpressions.Variable<Value>) {
        bind = { context, term, body in try context.with(variable, boundTo: term, body) }
    }
}

extension PredicateTranslationContext {
    /// Runs `body` with each of `variables` bound to the term at the same position in `terms`
    /// (nested `with`s, so every binding is undone afterwards, even when `body` throws).
    func with(
        _ variables: ArraySlice<PredicateExpressionVariableBinding>, boundTo terms: ArraySlice<SQLTerm>,
        _ body: () throws -> SQLTerm
    ) throws -> SQLTerm {
        guard let first = variables.first, let term = terms.first else { return try body() }
        return try first.bind(self, term) {
            try with(variables.dropFirst(), boundTo: terms.dropFirst(), body)
        }
    }
}
