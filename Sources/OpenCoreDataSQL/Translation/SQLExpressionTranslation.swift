import OpenCoreDataCore
/// Expressions: constants, `SELF`, `$variables`, key paths, built-in functions and
/// arithmetic, aggregates `{…}`, subscripts, `SUBQUERY` and `TERNARY`.
extension SQLTranslator {
    /// The operand an expression stands for, read in `scope`.
    package func operand(_ expression: NSExpression, in scope: SQLScope) throws -> SQLOperand {
        // Anything computed from constants alone is computed here, by the in-memory
        // evaluator itself (`now()` is thus one instant for the whole fetch).
        if expression.dependsOnConstantsOnly {
            return .constant(
                CollectionValue.unwrapNull(ExpressionEvaluator.value(of: expression, object: nil, bindings: [:])))
        }
        switch expression.node {
        case .constant(let value):
            return .constant(CollectionValue.unwrapNull(value))
        case .evaluatedObject:
            return scope.selfValue
        case .variable(let name):
            guard let bound = scope.variable(name) else {
                throw SQLTranslationError.unsupported(
                    "unbound variable $\(name) (bind it with withSubstitutionVariables(_:) before fetching)")
            }
            return bound
        case .keyPath(let base, let path):
            let start = try base.map { try operand($0, in: scope) } ?? scope.selfValue
            return try keyPath(path, from: start, in: scope)
        case .function(let target, let name, let arguments):
            if target != nil {
                throw SQLTranslationError.unsupported("\(expression) (FUNCTION calls methods, which SQL cannot)")
            }
            if name == PredicateFunctions.index, arguments.count == 2 {
                return try subscripted(arguments[0], by: arguments[1], in: scope)
            }
            if name == PredicateFunctions.cast, arguments.count == 2 {
                return try cast(arguments[0], to: arguments[1], in: scope)
            }
            return try function(name, operands: try arguments.map { try operand($0, in: scope) }, in: scope)
        case .aggregate(let items):
            return .list(try items.map { try operand($0, in: scope) })
        case .union, .intersect, .minus:
            throw SQLTranslationError.unsupported(
                "\(expression) (UNION, INTERSECT and MINUS need constant collections)")
        case .subquery(let collection, let variable, let predicate):
            return try subquery(collection, variable: variable, predicate: predicate, in: scope)
        case .anyKey:
            throw SQLTranslationError.unsupported("ANYKEY")
        case .block:
            throw SQLTranslationError.unsupported("block expressions (NSExpression(block:arguments:))")
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return try conditional(predicate, whenTrue, whenFalse, in: scope)
        case .symbol(let name):
            throw SQLTranslationError.unsupported("\(name) outside a subscript")
        case .fetch:
            throw SQLTranslationError.unsupported("FETCH expressions (they run a fetch in memory)")
        }
    }

    /// A single SQL value for an operand that must be one.
    package func scalar(_ operand: SQLOperand, for what: @autoclosure () -> String) throws -> SQLValue {
        switch operand {
        case .value(let value):
            return value
        case .constant(let constant):
            guard CollectionValue.members(of: constant) == nil else {
                throw SQLTranslationError.unsupported("a collection constant as \(what())")
            }
            return try SQLConstantEncoding.value(constant)
        case .collection, .list:
            throw SQLTranslationError.unsupported(
                "a collection as \(what()); use a collection operator such as @count or @sum")
        }
    }

    // MARK: Functions

    /// A built-in function applied to translated operands, with `PredicateFunctions`'
    /// results: plain SQL for `+ - *` on numbers and dates, the registered
    /// `OCD_FUNCTION` (which calls `PredicateFunctions` itself) for the rest.
    package func function(_ name: String, operands: [SQLOperand], in scope: SQLScope) throws -> SQLOperand {
        let constants = operands.compactMap { operand -> Any?? in
            if case .constant(let value) = operand { return .some(value) }
            return nil
        }
        if constants.count == operands.count {
            return .constant(PredicateFunctions.call(name, constants.map { $0 }))
        }
        if name == "noindex:", operands.count == 1 { return operands[0] }
        let statistics: [String: String] = ["sum:": "@sum", "average:": "@avg", "min:": "@min", "max:": "@max"]
        if operands.count == 1, case .collection(let collection) = operands[0] {
            // A single collection argument stands for its elements (nil ones skipped).
            if name == "count:" {
                return .value(
                    SQLValue(
                        collection.select("COUNT(\(collection.element.fragment))"), kind: .number, isNullable: false))
            }
            guard let operatorName = statistics[name] else {
                throw SQLTranslationError.unsupported("\(name) of a to-many collection")
            }
            return .value(try aggregate(operatorName, of: collection, path: name))
        }
        if operands.count == 1, case .list(let items) = operands[0], statistics[name] != nil || name == "count:" {
            return try function(name, operands: items, in: scope)
        }
        let values = try operands.map { try scalar($0, for: "an argument of \(name)") }
        let kinds = values.map(\.kind)
        func all(_ kind: SQLValueKind) -> Bool {
            kinds.allSatisfy { $0.isComparable(with: kind) }
        }
        func call(_ kind: SQLValueKind) -> SQLOperand {
            .value(registeredCall(name, values, kind: kind))
        }
        switch name {
        case "add:to:", "from:subtract:", "multiply:by:":
            let symbol = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*"][name]!
            let result: SQLValueKind?
            switch (kinds[0], kinds[1]) {
            case (.number, .number): result = .number
            // Dates move by seconds (PredicateFunctions' extension).
            case (.date, .number) where symbol != "*": result = .date
            case (.number, .date) where symbol == "+": result = .date
            default: result = nil
            }
            guard let result else { return .constant(nil) }
            return .value(SQLValue("(\(values[0].fragment) \(raw: symbol) \(values[1].fragment))", kind: result))
        case "divide:by:", "modulus:by:", "raise:toPower:", "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:",
            "leftshift:by:", "rightshift:by:", "sqrt:", "log:", "ln:", "exp:", "ceiling:", "floor:", "trunc:", "abs:",
            "onesComplement:", "random:":
            return all(.number) ? call(.number) : .constant(nil)
        case "uppercase:", "lowercase:", "canonical:":
            return all(.string) ? call(.string) : .constant(nil)
        case "length:":
            return all(.string) ? call(.number) : .constant(nil)
        case "sum:", "average:", "median:", "stddev:", "count:":
            if let bad = kinds.first(where: {
                if case .object = $0 { return true }; if case .opaque = $0 { return true };
                if case .composite = $0 { return true }; return false
            }) {
                throw SQLTranslationError.unsupported("\(name) of \(SQLConstantEncoding.kindDescription(bad)) values")
            }
            return call(.number)
        case "min:", "max:":
            let present = kinds.filter {
                if case .null = $0 { return false }; return true
            }
            guard let first = present.first else { return .constant(nil) }
            guard first.isOrdered, present.allSatisfy({ $0.isComparable(with: first) }) else {
                throw SQLTranslationError.unsupported("\(name) of values of different kinds")
            }
            return call(first)
        default:
            throw SQLTranslationError.unsupported("function \(name) on stored values")
        }
    }

    /// `OCD_FUNCTION('name', 'hints', args…)`: the registered function decodes each
    /// argument by its kind's hint and runs `PredicateFunctions.call`.
    private func registeredCall(_ name: String, _ values: [SQLValue], kind: SQLValueKind) -> SQLValue {
        let hints = values.map(\.kind.functionHint).joined()
        let arguments = SQLFragment.joined(values.map(\.fragment), separator: ", ")
        return SQLValue("OCD_FUNCTION('\(raw: name)', '\(raw: hints)', \(arguments))", kind: kind)
    }

    /// `CAST(value, 'Type')` of a stored value.
    private func cast(_ value: NSExpression, to type: NSExpression, in scope: SQLScope) throws -> SQLOperand {
        guard case .constant(let typeValue) = type.node, let typeName = StringMatching.string(from: typeValue) else {
            throw SQLTranslationError.unsupported("CAST to a type that is not a constant")
        }
        let source = try scalar(try operand(value, in: scope), for: "the value of CAST")
        let target: SQLValueKind
        switch typeName {
        case "NSNumber", "NSDecimalNumber": target = .number
        case "NSDate": target = .date
        case "NSString": target = .string
        case "NSUUID": target = .uuid
        case "NSURL": target = .url
        case "NSData": target = .data
        default: throw SQLTranslationError.unsupported("CAST to \(typeName)")
        }
        switch (source.kind, target) {
        case (.null, _):
            return .constant(nil)
        case (.object, _), (.opaque, _), (.composite, _):
            throw SQLTranslationError.unsupported("CAST of \(SQLConstantEncoding.kindDescription(source.kind)) values")
        // Same storage, new meaning: dates are stored as seconds since 2001.
        case (.number, .number), (.date, .date), (.string, .string), (.uuid, .uuid), (.url, .url), (.data, .data),
            (.date, .number), (.number, .date):
            var result = source
            result.kind = target
            return .value(result)
        default:
            return .value(
                registeredCall(
                    PredicateFunctions.cast, [source, try SQLConstantEncoding.value(typeName)], kind: target))
        }
    }

    // MARK: Subscripts, SUBQUERY, TERNARY

    /// `collection[FIRST]`, `[LAST]`, `[SIZE]`, `[n]`, `object['key']`.
    private func subscripted(_ base: NSExpression, by index: NSExpression, in scope: SQLScope) throws -> SQLOperand {
        let source = try operand(base, in: scope)
        let position: Int?
        let symbol: String?
        if case .symbol(let name) = index.node {
            symbol = name
            position = name == "FIRST" ? 0 : nil
        } else {
            guard case .constant(let key) = try operand(index, in: scope) else {
                throw SQLTranslationError.unsupported("a subscript that is not a constant in \(base)[\(index)]")
            }
            if let name = StringMatching.string(from: key) {
                switch source {
                case .value(let value) where value.kind.entity != nil:
                    return try keyPath(name, from: source, in: scope)
                case .constant(let value):
                    return .constant(KeyPathEvaluation.value(forKey: name, of: value))
                default:
                    break
                }
                throw SQLTranslationError.unsupported("subscript '\(name)' of \(base)")
            }
            guard let number = NumericValue(key)?.exactInteger else { return .constant(nil) }
            symbol = nil
            position = Int(exactly: number)
        }
        switch source {
        case .constant(let value):
            return .constant(
                PredicateFunctions.element(of: value, at: index.node) {
                    ExpressionEvaluator.value(of: $0, object: nil, bindings: [:])
                })
        case .value:
            // A single value has no elements (and no size).
            return .constant(nil)
        case .list(let items):
            switch symbol {
            case "SIZE": return .constant(items.count)
            case "LAST": return items.last ?? .constant(nil)
            default:
                guard let position, position >= 0, position < items.count else { return .constant(nil) }
                return items[position]
            }
        case .collection(let collection):
            if symbol == "SIZE" {
                return .value(
                    nilWhenNil(SQLValue(collection.select("COUNT(*)"), kind: .number, isNullable: false), collection))
            }
            guard let order = collection.order else {
                throw SQLTranslationError.unsupported(
                    "\(base)[\(index)]: positions need an ordered to-many relationship; \(base) is unordered")
            }
            let descending = symbol == "LAST"
            guard let offset = descending ? 0 : position, offset >= 0 else { return .constant(nil) }
            let orderBy = order.map { $0 + (descending ? " DESC" : "") }.joined(separator: ", ")
            let element = collection.select(
                collection.element.fragment, suffix: " ORDER BY \(orderBy) LIMIT 1 OFFSET \(offset)")
            return .value(SQLValue(element, kind: collection.element.kind))
        }
    }

    /// `SUBQUERY(collection, $x, predicate)`: the collection's scope, filtered by the
    /// predicate with each element bound to `$x` and used as `SELF`.
    private func subquery(
        _ collection: NSExpression, variable: String, predicate: NSPredicate, in scope: SQLScope
    ) throws -> SQLOperand {
        switch try operand(collection, in: scope) {
        case .collection(var source):
            source.scope.bind(variable, to: .value(source.element))
            source.scope.selfValue = .value(source.element)
            let condition = try self.condition(predicate, in: source.scope)
            if condition.constantValue != true { source.scope.addCondition(condition.fragment) }
            // The result is a new (possibly empty) array, never nil.
            source.nilWhen = nil
            return .collection(source)
        case .value:
            // A single value is not a collection: the subquery has no elements.
            return .constant([Any?]())
        case .constant(let value) where CollectionValue.members(of: value) == nil:
            return .constant([Any?]())
        case .constant, .list:
            throw SQLTranslationError.unsupported("SUBQUERY over a constant collection (\(collection))")
        }
    }

    /// `TERNARY(predicate, a, b)` as `CASE WHEN`.
    private func conditional(
        _ predicate: NSPredicate, _ whenTrue: NSExpression, _ whenFalse: NSExpression, in scope: SQLScope
    ) throws -> SQLOperand {
        let test = try condition(predicate, in: scope)
        let first = try operand(whenTrue, in: scope)
        let second = try operand(whenFalse, in: scope)
        if let value = test.constantValue { return value ? first : second }
        let a = try scalar(first, for: "a TERNARY result")
        let b = try scalar(second, for: "a TERNARY result")
        let kind: SQLValueKind
        switch (a.kind, b.kind) {
        case (.null, let other), (let other, .null): kind = other
        case let (x, y) where x.isComparable(with: y): kind = x
        default: throw SQLTranslationError.unsupported("TERNARY with results of different kinds")
        }
        return .value(SQLValue("CASE WHEN \(test.fragment) THEN \(a.fragment) ELSE \(b.fragment) END", kind: kind))
    }
}
