import OpenCoreDataCore
/// Comparison operators with `PredicateEvaluator.compare`'s semantics: nil rules,
/// kinds that never compare (a date and a number), `[c]`/`[d]` folding, membership
/// in collections and substrings, BETWEEN, and ANY/ALL over collections.
extension SQLTranslator {
    /// `left <type> right`, with no modifier.
    package func compare(
        _ left: SQLOperand, _ type: NSComparisonPredicate.Operator, _ right: SQLOperand,
        options: NSComparisonPredicate.Options
    ) throws -> SQLCondition {
        if case .constant(let a) = left, case .constant(let b) = right {
            return .constant(PredicateEvaluator.compare(a, type, b, options: options))
        }
        switch type {
        case .in: return try membership(of: left, in: right, options: options)
        case .contains: return try membership(of: right, in: left, options: options)
        case .between: return try between(left, right, options: options)
        case .customSelector: throw SQLTranslationError.unsupported("custom selector comparisons")
        default: break
        }
        if isCollection(left) || isCollection(right) {
            return try compareWhole(left, type, right)
        }
        return try compareValues(
            try scalar(left, for: "a comparison operand"), type,
            try scalar(right, for: "a comparison operand"), options: options)
    }

    /// `ANY`/`ALL left <type> right`: some/every element satisfies the comparison.
    /// An empty (or nil) collection makes ANY false and ALL true; a single value
    /// counts as a one-element collection.
    package func quantified(
        _ modifier: NSComparisonPredicate.Modifier, _ left: SQLOperand, _ type: NSComparisonPredicate.Operator,
        _ right: SQLOperand, options: NSComparisonPredicate.Options
    ) throws -> SQLCondition {
        let isAny = modifier != .all
        switch left {
        case .collection(let collection):
            let test = try compare(.value(collection.element), type, right, options: options)
            if isAny {
                if test.constantValue == false { return .alwaysFalse }
                return SQLCondition(
                    collection.exists(test.constantValue == true ? nil : test.fragment), isNullable: false)
            }
            if test.constantValue == true { return .alwaysTrue }
            return SQLCondition(
                "NOT \(collection.exists(test.constantValue == false ? nil : test.negated.fragment))", isNullable: false
            )
        case .list(let items):
            let tests = try items.map { try compare($0, type, right, options: options) }
            return isAny ? .or(tests) : .and(tests)
        case .constant(let value):
            if let elements = CollectionValue.elements(of: value) {
                let tests = try elements.map { try compare(.constant($0), type, right, options: options) }
                return isAny ? .or(tests) : .and(tests)
            }
            guard value != nil else { return .constant(!isAny) }
            return try compare(left, type, right, options: options)
        case .value(let value):
            let test = try compare(left, type, right, options: options)
            guard value.isNullable else { return test }
            let isNil = SQLCondition("\(value.fragment) IS NULL", isNullable: false)
            return isAny ? .and([isNil.negated, test]) : .or([isNil, test])
        }
    }

    // MARK: Scalars

    /// Two single values: plain SQL operators when their kinds compare, constants
    /// when they cannot; nil is equal only to nil and is never ordered.
    private func compareValues(
        _ left: SQLValue, _ type: NSComparisonPredicate.Operator, _ right: SQLValue,
        options: NSComparisonPredicate.Options
    ) throws -> SQLCondition {
        for value in [left, right] {
            if case .opaque(let description) = value.kind, !(right.kind.isNull || left.kind.isNull) {
                throw SQLTranslationError.unsupported("comparing \(description)")
            }
            // A composite only compares with nil; its elements compare with anything.
            if case .composite(let composite) = value.kind, !(right.kind.isNull || left.kind.isNull) {
                throw SQLTranslationError.unsupported(
                    "comparing composite attribute '\(composite.keyPath)' as a whole (compare it with nil, or compare its elements: \(composite.keyPath).\(composite.composite.elements.first?.name ?? "element"))"
                )
            }
        }
        if left.kind.isNull || right.kind.isNull {
            let other = left.kind.isNull ? right : left
            switch type {
            case .equalTo: return isNull(other)
            case .notEqualTo: return isNull(other).negated
            default: return .alwaysFalse
            }
        }
        let comparable = left.kind.isComparable(with: right.kind)
        switch type {
        case .equalTo, .notEqualTo:
            guard comparable else { return .constant(type == .notEqualTo) }
            let (a, b, collate) = try operandsForComparison(left, right, options: options)
            let dialect = schema.dialect
            if type == .notEqualTo {
                return SQLCondition("\(a) \(raw: dialect.isNot) \(b)\(raw: collate)", isNullable: false)
            }
            if left.isNullable && right.isNullable {
                return SQLCondition("\(a) \(raw: dialect.is) \(b)\(raw: collate)", isNullable: false)
            }
            return SQLCondition("\(a) = \(b)\(raw: collate)", isNullable: left.isNullable || right.isNullable)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard comparable, left.kind.isOrdered else { return .alwaysFalse }
            let symbol = [
                NSComparisonPredicate.Operator.lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">",
                .greaterThanOrEqualTo: ">=",
            ][type]!
            let (a, b, collate) = try operandsForComparison(left, right, options: options)
            return SQLCondition(
                "\(a) \(raw: symbol) \(b)\(raw: collate)", isNullable: left.isNullable || right.isNullable)
        case .beginsWith, .endsWith, .like, .matches:
            // A pattern known now is checked now; one read from a column is checked by the
            // SQL function, which then fails the query.
            if type == .matches, let pattern = right.constantText {
                try StringMatching.checkRegularExpression(pattern, options: options)
            }
            let kind = [NSComparisonPredicate.Operator.beginsWith: 0, .endsWith: 1, .like: 3, .matches: 4][type]!
            return stringMatch(left, right, kind: kind, options: options)
        default:
            throw SQLTranslationError.unsupported("operator \(type) between single values")
        }
    }

    /// The SQL of both sides of `=`/`<`, folded for `[c]`/`[d]` when they are strings
    /// (constants here, columns with `OCD_FOLD`), and the collation giving Swift's
    /// string equality and order (canonical equivalence).
    private func operandsForComparison(
        _ left: SQLValue, _ right: SQLValue, options: NSComparisonPredicate.Options
    ) throws -> (SQLFragment, SQLFragment, String) {
        guard left.kind.isText else { return (left.fragment, right.fragment, "") }
        let dialect = schema.dialect
        return (
            dialect.comparedText(folded(left, options: options)), dialect.comparedText(folded(right, options: options)),
            " COLLATE OCD_UNICODE"
        )
    }

    private func folded(_ value: SQLValue, options: NSComparisonPredicate.Options) -> SQLFragment {
        let flags = Self.foldingFlags(options)
        guard case .string = value.kind, flags != 0 else { return value.fragment }
        if let text = value.constantText {
            return .bind(StringMatching.fold(text, options: options).sqlScalar)
        }
        return "OCD_FOLD(\(value.fragment), \(raw: String(flags)))"
    }

    /// The `OCD_FOLD`/`OCD_STRING_MATCH` flags for `[c]` (1) and `[d]` (2); `[n]` folds nothing.
    package static func foldingFlags(_ options: NSComparisonPredicate.Options) -> Int {
        (options.contains(.caseInsensitive) ? 1 : 0) | (options.contains(.diacriticInsensitive) ? 2 : 0)
    }

    /// BEGINSWITH (0), ENDSWITH (1), CONTAINS (2), LIKE (3), MATCHES (4) through the
    /// registered function that runs `StringMatching`; false unless both are strings.
    private func stringMatch(
        _ string: SQLValue, _ pattern: SQLValue, kind: Int, options: NSComparisonPredicate.Options
    ) -> SQLCondition {
        guard case .string = string.kind, case .string = pattern.kind else { return .alwaysFalse }
        let flags = Self.foldingFlags(options)
        return SQLCondition(
            "OCD_STRING_MATCH(\(string.fragment), \(pattern.fragment), \(raw: String(kind)), \(raw: String(flags)))",
            isNullable: false)
    }

    private func isNull(_ value: SQLValue) -> SQLCondition {
        if case .null = value.kind { return .alwaysTrue }
        guard value.isNullable else { return .alwaysFalse }
        return SQLCondition("\(value.fragment) IS NULL", isNullable: false)
    }

    // MARK: Collections

    private func isCollection(_ operand: SQLOperand) -> Bool {
        switch operand {
        case .collection, .list: true
        case .constant(let value): CollectionValue.members(of: value) != nil
        case .value: false
        }
    }

    /// A collection compared as a whole with a single value: never equal (unless both
    /// are nil), never ordered, never a string.
    private func compareWhole(
        _ left: SQLOperand, _ type: NSComparisonPredicate.Operator, _ right: SQLOperand
    ) throws -> SQLCondition {
        guard !(isCollection(left) && isCollection(right)) else {
            throw SQLTranslationError.unsupported(
                "comparing two collections with \(type); compare their elements with ANY/ALL or SUBQUERY")
        }
        let (whole, single) = isCollection(left) ? (left, right) : (right, left)
        var equal = SQLCondition.alwaysFalse
        if case .collection(let collection) = whole, let nilWhen = collection.nilWhen {
            let value = try scalar(single, for: "a comparison operand")
            equal = .and([SQLCondition(nilWhen, isNullable: false), isNull(value)])
        }
        switch type {
        case .equalTo: return equal
        case .notEqualTo: return equal.negated
        default: return .alwaysFalse
        }
    }

    /// `element IN container`: substring of a string, member of a collection
    /// (equality with options), else false.
    private func membership(
        of element: SQLOperand, in container: SQLOperand, options: NSComparisonPredicate.Options
    ) throws -> SQLCondition {
        switch container {
        case .constant(let value):
            if StringMatching.string(from: value) != nil {
                return try substring(element, of: try SQLConstantEncoding.value(value), options: options)
            }
            guard let members = CollectionValue.members(of: value) else { return .alwaysFalse }
            return try anyConstant(of: members, equals: element, options: options)
        case .value(let value):
            guard case .string = value.kind else { return .alwaysFalse }
            return try substring(element, of: value, options: options)
        case .list(let items):
            return .or(try items.map { try compare(element, .equalTo, $0, options: options) })
        case .collection(let collection):
            let test = try compare(.value(collection.element), .equalTo, element, options: options)
            if test.constantValue == false { return .alwaysFalse }
            return SQLCondition(collection.exists(test.constantValue == true ? nil : test.fragment), isNullable: false)
        }
    }

    private func substring(
        _ element: SQLOperand, of string: SQLValue, options: NSComparisonPredicate.Options
    ) throws -> SQLCondition {
        guard !isCollection(element) else { return .alwaysFalse }
        return stringMatch(string, try scalar(element, for: "the left side of IN"), kind: 2, options: options)
    }

    /// Whether `element` equals one of `members`: one SQL `IN (…)` for the members
    /// whose kind can equal the element, `IS NULL` for a nil member.
    private func anyConstant(
        of members: [Any?], equals element: SQLOperand, options: NSComparisonPredicate.Options
    ) throws -> SQLCondition {
        guard case .value(let value) = element, value.kind.isOrdered || value.kind.entity != nil else {
            return .or(try members.map { try compare(element, .equalTo, .constant($0), options: options) })
        }
        var tests: [SQLCondition] = []
        var list: [SQLFragment] = []
        for member in members {
            guard CollectionValue.members(of: member) == nil else { continue }
            let constant = try SQLConstantEncoding.value(member)
            if case .null = constant.kind {
                tests.append(isNull(value))
            } else if value.kind.isComparable(with: constant.kind) {
                let item = folded(constant, options: options)
                list.append(value.kind.isText ? schema.dialect.comparedText(item) : item)
            }
        }
        if !list.isEmpty {
            let collate = value.kind.isText ? " COLLATE OCD_UNICODE" : ""
            let items = SQLFragment.joined(list, separator: ", ")
            let tested = folded(value, options: options)
            let operand = value.kind.isText ? schema.dialect.comparedText(tested) : tested
            tests.append(
                SQLCondition("\(operand)\(raw: collate) IN (\(items))", isNullable: value.isNullable))
        }
        return .or(tests)
    }

    /// `left BETWEEN {lower, upper}`: `lower <= left <= upper` with the comparison's options.
    private func between(
        _ left: SQLOperand, _ right: SQLOperand, options: NSComparisonPredicate.Options
    ) throws -> SQLCondition {
        let bounds: [SQLOperand]
        switch right {
        case .constant(let value):
            guard let elements = CollectionValue.elements(of: value), elements.count == 2 else { return .alwaysFalse }
            bounds = elements.map { .constant($0) }
        case .list(let items):
            guard items.count == 2 else { return .alwaysFalse }
            bounds = items
        case .value:
            return .alwaysFalse
        case .collection:
            throw SQLTranslationError.unsupported("BETWEEN with a to-many collection as its bounds")
        }
        return .and([
            try compare(left, .greaterThanOrEqualTo, bounds[0], options: options),
            try compare(left, .lessThanOrEqualTo, bounds[1], options: options),
        ])
    }
}
