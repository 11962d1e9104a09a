import Foundation
import OpenCoreData
import OpenCoreDataCore

// Each `PredicateExpressions` node the SQL translation supports, as a term (an Expression's
// `evaluate` is in `PredicateTranslation+Expression.swift`). Node types not listed here
// (subscripts, casts and type checks, `min()`/`max()` of stored values, …) throw
// `SwiftDataError.unsupportedPredicate` naming the node.

// MARK: - Leaves

extension PredicateExpressions.Value: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        .constant(value)
    }
}

extension PredicateExpressions.NilLiteral: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        .constant(nil)
    }
}

extension PredicateExpressions.Variable: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        try context.value(of: key)
    }
}

extension PredicateExpressions.KeyPath: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let base = try context.term(root)
        if base.isConstant { return try context.folded(self) }
        return try context.member(keyPath as AnyKeyPath, of: base, baseType: Root.Output.self)
    }
}

// MARK: - Logic

extension PredicateExpressions.Conjunction: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let left = try context.predicate(try context.term(lhs), for: "the left side of &&")
        // `false && x` never reads x.
        if PredicateTranslationContext.constantValue(of: left) == false { return .constant(false) }
        let right = try context.predicate(try context.term(rhs), for: "the right side of &&")
        return .predicate(context.and([left, right]))
    }
}

extension PredicateExpressions.Disjunction: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let left = try context.predicate(try context.term(lhs), for: "the left side of ||")
        if PredicateTranslationContext.constantValue(of: left) == true { return .constant(true) }
        let right = try context.predicate(try context.term(rhs), for: "the right side of ||")
        return .predicate(context.or([left, right]))
    }
}

extension PredicateExpressions.Negation: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let inner = try context.term(wrapped)
        if inner.isConstant { return try context.folded(self) }
        return .predicate(context.not(try context.predicate(inner, for: "the operand of !")))
    }
}

extension PredicateExpressions.Conditional: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let condition = try context.predicate(try context.term(test), for: "the condition of a ternary")
        if let value = PredicateTranslationContext.constantValue(of: condition) {
            return value ? try context.term(trueBranch) : try context.term(falseBranch)
        }
        let whenTrue = try context.term(trueBranch)
        let whenFalse = try context.term(falseBranch)
        if If.Output.self == Bool.self {
            let a = try context.predicate(whenTrue, for: "a branch of a ternary")
            let b = try context.predicate(whenFalse, for: "a branch of a ternary")
            return .predicate(context.or([context.and([condition, a]), context.and([context.not(condition), b])]))
        }
        return .expression(
            NSExpression(
                forConditional: condition,
                trueExpression: try context.expression(whenTrue, for: "a branch of a ternary"),
                falseExpression: try context.expression(whenFalse, for: "a branch of a ternary")))
    }
}

// MARK: - Comparisons

extension PredicateExpressions.Equal: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let left = try context.term(lhs)
        let right = try context.term(rhs)
        if left.isConstant && right.isConstant { return try context.folded(self) }
        return .predicate(try context.equality(left, right))
    }
}

extension PredicateExpressions.NotEqual: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let left = try context.term(lhs)
        let right = try context.term(rhs)
        if left.isConstant && right.isConstant { return try context.folded(self) }
        return .predicate(try context.equality(left, right, negated: true))
    }
}

extension PredicateExpressions.Comparison: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let left = try context.term(lhs)
        let right = try context.term(rhs)
        if left.isConstant && right.isConstant { return try context.folded(self) }
        let type: NSComparisonPredicate.Operator
        switch op {
        case .lessThan: type = .lessThan
        case .lessThanOrEqual: type = .lessThanOrEqualTo
        case .greaterThan: type = .greaterThan
        case .greaterThanOrEqual: type = .greaterThanOrEqualTo
        }
        return .predicate(
            context.compare(
                try context.expression(left, for: "an operand of a comparison"), type,
                try context.expression(right, for: "an operand of a comparison")))
    }
}

extension PredicateTranslationContext {
    /// `left == right` (or `!=` when `negated`) for terms of any kind.
    func equality(_ left: SQLTerm, _ right: SQLTerm, negated: Bool = false) throws -> NSPredicate {
        if negated, !Self.isPlainValue(left) || !Self.isPlainValue(right) {
            return not(try equality(left, right))
        }
        switch (left, right) {
        case (.stringComparison(let a, let b, let options, let node), .constant(let value)),
            (.constant(let value), .stringComparison(let a, let b, let options, let node)):
            guard let result = value as? ComparisonResult else {
                throw unsupported(node, "its ComparisonResult must be compared with a constant result")
            }
            let type: NSComparisonPredicate.Operator =
                switch result {
                case .orderedSame: .equalTo
                case .orderedAscending: .lessThan
                case .orderedDescending: .greaterThan
                }
            return compare(a, type, b, options: options)
        case (.stringComparison(_, _, _, let node), _), (_, .stringComparison(_, _, _, let node)):
            throw unsupported(
                node,
                "its ComparisonResult must be compared with a constant (.orderedSame, .orderedAscending or .orderedDescending)"
            )
        case (.optionalPredicate(let condition, let isNil), .constant(let value)),
            (.constant(let value), .optionalPredicate(let condition, let isNil)):
            guard let flag = Self.unwrapped(value) as? Bool else { return isNil }
            return and([not(isNil), flag ? condition : not(condition)])
        case (.predicate(let condition), .constant(let value)), (.constant(let value), .predicate(let condition)):
            guard let flag = Self.unwrapped(value) as? Bool else { return NSPredicate(value: false) }
            return flag ? condition : not(condition)
        case (.predicate, _), (_, .predicate), (.optionalPredicate, _), (_, .optionalPredicate):
            return equivalent(
                try predicate(left, for: "an operand of =="), try predicate(right, for: "an operand of =="))
        default:
            return compare(
                try expression(left, for: "an operand of =="), negated ? .notEqualTo : .equalTo,
                try expression(right, for: "an operand of =="))
        }
    }

    /// Whether `term` is a value compared with `==`/`!=` as such (not a condition or a
    /// comparison result).
    static func isPlainValue(_ term: SQLTerm) -> Bool {
        switch term {
        case .constant(let value): !(value is Bool) && !(value is ComparisonResult)
        case .expression: true
        default: false
        }
    }
}

// MARK: - Optionals

extension PredicateExpressions.OptionalFlatMap: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let base = try context.term(wrapped)
        if case .constant(let value) = base {
            guard let value = PredicateTranslationContext.unwrapped(value) else { return .constant(nil) }
            return try context.with(variable, boundTo: .constant(value)) { try context.term(transform) }
        }
        let baseExpression = try context.expression(base, for: "an optional chain's base")
        let result = try context.with(variable, boundTo: .expression(baseExpression)) { try context.term(transform) }
        // A to-many relationship is never nil in the store (it is empty); a nil to-one makes
        // key paths through it nil, as `?.` does.
        let isToMany = (Wrapped.self as? any PredicateSQLCollectionMembers.Type).map { !$0.isText } ?? false
        let baseIsNil = isToMany ? NSPredicate(value: false) : context.isNil(baseExpression)
        switch result {
        case .predicate(let condition):
            return .optionalPredicate(condition, isNil: baseIsNil)
        case .optionalPredicate(let condition, let isNil):
            return .optionalPredicate(condition, isNil: context.or([baseIsNil, isNil]))
        case .expression(let expression)
        where PredicateTranslationContext.isKeyPath(expression, through: baseExpression):
            return result
        case .constant, .expression:
            if PredicateTranslationContext.constantValue(of: baseIsNil) == false { return result }
            return .expression(
                NSExpression(
                    forConditional: baseIsNil, trueExpression: NSExpression(forConstantValue: nil),
                    falseExpression: try context.expression(result, for: "an optional chain's result")))
        case .stringComparison, .range:
            return result
        }
    }
}

extension PredicateTranslationContext {
    /// Whether `expression` is `base` or reads a key path through it (so is nil when `base`
    /// is), not ending in a collection operator.
    static func isKeyPath(_ expression: NSExpression, through base: NSExpression) -> Bool {
        if expression == base { return true }
        guard case .keyPath(let operand, let path) = expression.node, !path.contains("@") else { return false }
        switch base.node {
        case .keyPath(let baseOperand, let basePath):
            return operand == baseOperand && path.hasPrefix(basePath + ".")
        case .variable:
            return operand == base
        default:
            return false
        }
    }
}

extension PredicateExpressions.NilCoalesce: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let left = try context.term(lhs)
        if case .constant(let value) = left {
            if PredicateTranslationContext.unwrapped(value) != nil { return left }
            return try context.term(rhs)
        }
        let right = try context.term(rhs)
        switch left {
        case .optionalPredicate(let condition, let isNil):
            let fallback = try context.predicate(right, for: "the default of ??")
            return .predicate(
                context.or([context.and([context.not(isNil), condition]), context.and([isNil, fallback])]))
        case .predicate:
            return left
        default:
            let value = try context.expression(left, for: "the optional of ??")
            if RHS.Output.self == Bool.self {
                // A stored optional Bool with a default.
                let fallback = try context.predicate(right, for: "the default of ??")
                let isTrue = context.compare(value, .equalTo, NSExpression(forConstantValue: true))
                return .predicate(context.or([isTrue, context.and([context.isNil(value), fallback])]))
            }
            return .expression(context.coalesce(value, try context.expression(right, for: "the default of ??")))
        }
    }
}

extension PredicateTranslationContext {
    /// `value ?? fallback`: `TERNARY(value == nil, fallback, value)`, folded into an optional
    /// chain's `TERNARY(base == nil, nil, x)`, and just `value` for a count (never nil).
    func coalesce(_ value: NSExpression, _ fallback: NSExpression) -> NSExpression {
        switch value.node {
        case .conditional(let test, let whenTrue, let whenFalse):
            if case .constant(let constant) = whenTrue.node, Self.unwrapped(constant) == nil {
                return NSExpression(
                    forConditional: test, trueExpression: fallback, falseExpression: coalesce(whenFalse, fallback))
            }
        case .keyPath(_, let path) where path.hasSuffix("@count"):
            return value
        default:
            break
        }
        return NSExpression(forConditional: isNil(value), trueExpression: fallback, falseExpression: value)
    }
}

extension PredicateExpressions.ForcedUnwrap: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let value = try context.term(inner)
        switch value {
        case .constant:
            return try context.folded(self)
        case .optionalPredicate(let condition, let isNil):
            // Unwrapping nil stops in-memory evaluation; in SQL the object does not match.
            return .predicate(context.and([context.not(isNil), condition]))
        default:
            // In SQL a nil to-one makes what is read through it nil.
            return value
        }
    }
}

// MARK: - Arithmetic

extension PredicateExpressions.Arithmetic: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let left = try context.term(lhs)
        let right = try context.term(rhs)
        if left.isConstant && right.isConstant { return try context.folded(self) }
        let name =
            switch op {
            case .add: "add:to:"
            case .subtract: "from:subtract:"
            case .multiply: "multiply:by:"
            }
        return .expression(
            NSExpression(
                forFunction: name,
                arguments: [
                    try context.expression(left, for: "an operand of \(name)"),
                    try context.expression(right, for: "an operand of \(name)"),
                ]))
    }
}

extension PredicateExpressions.FloatDivision: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let left = try context.term(lhs)
        let right = try context.term(rhs)
        if left.isConstant && right.isConstant { return try context.folded(self) }
        return .expression(
            NSExpression(
                forFunction: "divide:by:",
                arguments: [
                    try context.expression(left, for: "a dividend"),
                    try context.expression(right, for: "a divisor"),
                ]))
    }
}

extension PredicateExpressions.IntDivision: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let left = try context.term(lhs)
        let right = try context.term(rhs)
        if case .constant(let divisor) = right, let number = divisor as? LHS.Output, number == 0 {
            throw context.unsupported("PredicateExpressions.IntDivision", "division by zero")
        }
        if left.isConstant && right.isConstant { return try context.folded(self) }
        // Swift's integer division truncates; `divide:by:` gives a fraction.
        let quotient = NSExpression(
            forFunction: "divide:by:",
            arguments: [
                try context.expression(left, for: "a dividend"),
                try context.expression(right, for: "a divisor"),
            ])
        return .expression(NSExpression(forFunction: "trunc:", arguments: [quotient]))
    }
}

extension PredicateExpressions.IntRemainder: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let left = try context.term(lhs)
        let right = try context.term(rhs)
        if case .constant(let divisor) = right, let number = divisor as? LHS.Output, number == 0 {
            throw context.unsupported("PredicateExpressions.IntRemainder", "division by zero")
        }
        if left.isConstant && right.isConstant { return try context.folded(self) }
        return .expression(
            NSExpression(
                forFunction: "modulus:by:",
                arguments: [
                    try context.expression(left, for: "a dividend"),
                    try context.expression(right, for: "a divisor"),
                ]))
    }
}

extension PredicateExpressions.UnaryMinus: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let value = try context.term(wrapped)
        if value.isConstant { return try context.folded(self) }
        return .expression(
            NSExpression(
                forFunction: "from:subtract:",
                arguments: [
                    NSExpression(forConstantValue: 0),
                    try context.expression(value, for: "the operand of -"),
                ]))
    }
}

// MARK: - Strings

extension PredicateExpressions.CollectionContainsCollection: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let string = try context.term(base)
        let substring = try context.term(other)
        if string.isConstant && substring.isConstant { return try context.folded(self) }
        guard Base.Output.self is any StringProtocol.Type else {
            throw context.unsupported(
                "PredicateExpressions.CollectionContainsCollection",
                "only strings can be searched for a run of elements (String.contains(_:))")
        }
        return .predicate(
            context.compare(
                try context.expression(string, for: "a string"), .contains,
                try context.expression(substring, for: "a substring")))
    }
}

extension PredicateExpressions.SequenceStartsWith: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let string = try context.term(base)
        let start = try context.term(prefix)
        if string.isConstant && start.isConstant { return try context.folded(self) }
        guard Base.Output.self is any StringProtocol.Type else {
            throw context.unsupported(
                "PredicateExpressions.SequenceStartsWith", "only strings can be tested with starts(with:)")
        }
        return .predicate(
            context.compare(
                try context.expression(string, for: "a string"), .beginsWith,
                try context.expression(start, for: "a prefix")))
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let string = try context.term(root)
        let substring = try context.term(other)
        if string.isConstant && substring.isConstant { return try context.folded(self) }
        return .predicate(
            context.compare(
                try context.expression(string, for: "a string"), .contains,
                try context.expression(substring, for: "a substring"),
                options: [.caseInsensitive, .diacriticInsensitive]))
    }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let string = try context.term(root)
        let otherString = try context.term(other)
        if string.isConstant && otherString.isConstant { return try context.folded(self) }
        return .stringComparison(
            try context.expression(string, for: "a string"), try context.expression(otherString, for: "a string"),
            [.caseInsensitive], node: "PredicateExpressions.StringCaseInsensitiveCompare")
    }
}

extension PredicateExpressions.StringLocalizedCompare: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let string = try context.term(root)
        let otherString = try context.term(other)
        if string.isConstant && otherString.isConstant { return try context.folded(self) }
        // SQL compares strings by Unicode canonical order, not by a locale's collation.
        return .stringComparison(
            try context.expression(string, for: "a string"), try context.expression(otherString, for: "a string"),
            [], node: "PredicateExpressions.StringLocalizedCompare")
    }
}

extension PredicateExpressions.StringContainsRegex: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let string = try context.term(subject)
        let pattern = try context.term(regex)
        if string.isConstant && pattern.isConstant { return try context.folded(self) }
        guard case .constant(let value) = pattern, let predicateRegex = value as? PredicateExpressions.PredicateRegex
        else {
            throw context.unsupported(
                "PredicateExpressions.StringContainsRegex", "the regular expression must be a captured Regex")
        }
        // MATCHES tests the whole string: search for the pattern anywhere, across lines.
        let anywhere = "(?s).*(?:\(predicateRegex.stringRepresentation)).*"
        return .predicate(
            context.compare(
                try context.expression(string, for: "a string"), .matches, NSExpression(forConstantValue: anywhere)))
    }
}

// MARK: - Collections

extension PredicateExpressions.SequenceContains: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let collection = try context.term(sequence)
        let member = try context.term(element)
        if collection.isConstant && member.isConstant { return try context.folded(self) }
        if LHS.Output.self is any StringProtocol.Type {
            // A character in a string.
            return .predicate(
                context.compare(
                    try context.expression(collection, for: "a string"), .contains,
                    try context.expression(member, for: "a character")))
        }
        if !collection.isConstant {
            try context.requireRelationship(
                LHS.Output.Element.self, node: "PredicateExpressions.SequenceContains", "contains(_:)")
        }
        return .predicate(
            context.compare(
                try context.expression(member, for: "an element"), .in,
                try context.expression(collection, for: "a collection")))
    }
}

extension PredicateExpressions.SequenceContainsWhere: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let collection = try context.term(sequence)
        if case .constant(let value) = collection {
            if let folded = context.foldedIfIndependent(self) { return folded }
            return .predicate(context.or(try context.elementTests(of: value, variable, test)))
        }
        try context.requireRelationship(
            LHS.Output.Element.self, node: "PredicateExpressions.SequenceContainsWhere", "contains(where:)")
        let elements = try context.subquery(collection, variable, test, negated: false)
        return .predicate(
            context.compare(context.appending("@count", to: elements), .greaterThan, NSExpression(forConstantValue: 0)))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let collection = try context.term(sequence)
        if case .constant(let value) = collection {
            if let folded = context.foldedIfIndependent(self) { return folded }
            return .predicate(context.and(try context.elementTests(of: value, variable, test)))
        }
        try context.requireRelationship(
            LHS.Output.Element.self, node: "PredicateExpressions.SequenceAllSatisfy", "allSatisfy")
        // Every element satisfies the test when none fails it.
        let failures = try context.subquery(collection, variable, test, negated: true)
        return .predicate(
            context.compare(context.appending("@count", to: failures), .equalTo, NSExpression(forConstantValue: 0)))
    }
}

extension PredicateExpressions.Filter: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let collection = try context.term(sequence)
        if collection.isConstant {
            if let folded = context.foldedIfIndependent(self) { return folded }
            throw context.unsupported(
                "PredicateExpressions.Filter",
                "filtering a captured collection by the fetched object; SQL can only filter to-many relationships")
        }
        try context.requireRelationship(LHS.Output.Element.self, node: "PredicateExpressions.Filter", "filter")
        return .expression(try context.subquery(collection, variable, filter, negated: false))
    }
}

extension PredicateTranslationContext {
    /// `SUBQUERY(collection, $v, test)` (or `NOT test`), with the closure's variable as `$v`.
    func subquery<Element>(
        _ collection: SQLTerm, _ variable: PredicateExpressions.Variable<Element>, _ test: some PredicateExpression,
        negated: Bool
    ) throws -> NSExpression {
        let source = try expression(collection, for: "a collection")
        let name = newSubqueryVariable()
        let condition = try insideSubquery {
            try with(variable, boundTo: .expression(NSExpression(forVariable: name))) {
                try predicate(try term(test), for: "a closure's result")
            }
        }
        return NSExpression(
            forSubquery: source, usingIteratorVariable: name, predicate: negated ? not(condition) : condition)
    }

    /// The closure's test for each element of a constant collection (the test reads the
    /// fetched object too, or it would have been evaluated now).
    func elementTests<Element>(
        of collection: Any?, _ variable: PredicateExpressions.Variable<Element>,
        _ test: some PredicateExpression
    ) throws -> [NSPredicate] {
        guard let sequence = Self.unwrapped(collection) as? any Sequence else { return [] }
        return try Self.elements(of: sequence).map { element in
            try with(variable, boundTo: .constant(element)) { try predicate(try term(test), for: "a closure's result") }
        }
    }
}

// MARK: - Ranges

extension PredicateExpressions.Range: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let low = try context.term(lower)
        let high = try context.term(upper)
        if low.isConstant && high.isConstant { return try context.folded(self) }
        return .range(lower: low, upper: high, closed: false)
    }
}

extension PredicateExpressions.ClosedRange: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let low = try context.term(lower)
        let high = try context.term(upper)
        if low.isConstant && high.isConstant { return try context.folded(self) }
        return .range(lower: low, upper: high, closed: true)
    }
}

extension PredicateExpressions.RangeExpressionContains: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let bounds = try context.term(range)
        let value = try context.term(element)
        if bounds.isConstant && value.isConstant { return try context.folded(self) }
        let lower: SQLTerm?, upper: SQLTerm?, closed: Bool
        switch bounds {
        case .range(let low, let high, let isClosed):
            (lower, upper, closed) = (low, high, isClosed)
        case .constant(let constant):
            guard let range = constant as? any PredicateSQLRangeBounds else {
                throw context.unsupported(
                    "PredicateExpressions.RangeExpressionContains",
                    "the range must be a standard range (a..<b, a...b, a..., ..<b, ...b)")
            }
            (lower, upper, closed) = (
                range.lowerBoundValue.map { .constant($0) }, range.upperBoundValue.map { .constant($0) }, range.isClosed
            )
        default:
            throw context.unsupported(
                "PredicateExpressions.RangeExpressionContains", "the range is not a range of values")
        }
        let tested = try context.expression(value, for: "a value tested against a range")
        if case .constant(let low)? = lower, case .constant(let high)? = upper, closed {
            return .predicate(
                context.compare(
                    tested, .between,
                    NSExpression(forConstantValue: [try context.convert(low), try context.convert(high)])))
        }
        var parts: [NSPredicate] = []
        if let lower {
            parts.append(
                context.compare(
                    tested, .greaterThanOrEqualTo, try context.expression(lower, for: "a range's lower bound")))
        }
        if let upper {
            parts.append(
                context.compare(
                    tested, closed ? .lessThanOrEqualTo : .lessThan,
                    try context.expression(upper, for: "a range's upper bound")))
        }
        return .predicate(context.and(parts))
    }
}

/// The standard ranges' bounds, read from a range held as `Any`.
protocol PredicateSQLRangeBounds {
    var lowerBoundValue: Any? { get }
    var upperBoundValue: Any? { get }
    /// Whether the upper bound is in the range.
    var isClosed: Bool { get }
}

extension Range: PredicateSQLRangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { upperBound }
    var isClosed: Bool { false }
}

extension ClosedRange: PredicateSQLRangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { upperBound }
    var isClosed: Bool { true }
}

extension PartialRangeFrom: PredicateSQLRangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { nil }
    var isClosed: Bool { true }
}

extension PartialRangeUpTo: PredicateSQLRangeBounds {
    var lowerBoundValue: Any? { nil }
    var upperBoundValue: Any? { upperBound }
    var isClosed: Bool { false }
}

extension PartialRangeThrough: PredicateSQLRangeBounds {
    var lowerBoundValue: Any? { nil }
    var upperBoundValue: Any? { upperBound }
    var isClosed: Bool { true }
}

// MARK: - Minimum and maximum

extension PredicateExpressions.SequenceMinimum: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let collection = try context.term(elements)
        if collection.isConstant { return try context.folded(self) }
        throw context.unsupported(
            "PredicateExpressions.SequenceMinimum",
            "min() of stored values: a stored array attribute is one opaque value in SQL (use a to-many relationship and a sort or @min in a Core Data fetch)"
        )
    }
}

extension PredicateExpressions.SequenceMaximum: PredicateSQLTranslatable {
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm {
        let collection = try context.term(elements)
        if collection.isConstant { return try context.folded(self) }
        throw context.unsupported(
            "PredicateExpressions.SequenceMaximum",
            "max() of stored values: a stored array attribute is one opaque value in SQL (use a to-many relationship and a sort or @max in a Core Data fetch)"
        )
    }
}
