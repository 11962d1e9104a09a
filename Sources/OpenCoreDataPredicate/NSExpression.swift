/// An expression used in a predicate: a constant, a key path, a variable, a
/// function call, a subquery and so on.
///
/// Mirrors Foundation's `NSExpression`, which is unavailable in a usable form on
/// Linux. Instances are immutable; equality and hashing are structural.
open class NSExpression: NSObject, @unchecked Sendable {
    /// The kinds of expression, with Foundation's raw values.
    public enum ExpressionType: UInt, Sendable {
        /// A fixed value.
        case constantValue = 0
        /// The object being evaluated (`SELF`).
        case evaluatedObject = 1
        /// A `$variable`.
        case variable = 2
        /// A key path such as `department.name`.
        case keyPath = 3
        /// A function call, arithmetic, or `FUNCTION(...)`.
        case function = 4
        /// `UNION` of two collections.
        case unionSet = 5
        /// `INTERSECT` of two collections.
        case intersectSet = 6
        /// `MINUS`: elements of the left collection not in the right.
        case minusSet = 7
        /// `SUBQUERY(collection, $x, predicate)`.
        case subquery = 13
        /// A literal collection `{a, b}`.
        case aggregate = 14
        /// `ANYKEY` (Spotlight only).
        case anyKey = 15
        /// A closure-computed value.
        case block = 19
        /// `TERNARY(predicate, a, b)`.
        case conditional = 20
        /// `FETCH(request, context, countOnly)` (``NSFetchRequestExpression``); Core Data
        /// names it `NSFetchRequestExpressionType`.
        case fetchRequest = 50
    }

    package let node: ExpressionNode

    package init(node: ExpressionNode) {
        self.node = node
        super.init()
    }

    // MARK: Creating expressions

    /// Parses an expression from a format string, as `NSPredicate(format:)` does for
    /// the expression grammar. A malformed format string is a programmer error and
    /// traps with the parse error (use ``parse(format:argumentArray:)`` to recover).
    public convenience init(format: String, _ args: Any?...) {
        self.init(
            node: PredicateParseError.trapOnFailure { try NSExpression.parse(format: format, argumentArray: args) }.node
        )
    }

    /// Parses an expression from a format string with arguments taken from an array.
    public convenience init(format: String, argumentArray arguments: [Any]) {
        let values = arguments.map { Optional($0) }
        self.init(
            node: PredicateParseError.trapOnFailure { try NSExpression.parse(format: format, argumentArray: values) }
                .node)
    }

    /// Parses an expression from a format string, throwing a ``PredicateParseError``
    /// instead of trapping when the string is malformed.
    ///
    /// - Parameters:
    ///   - format: The expression in Foundation's format syntax.
    ///   - arguments: The values of the format's specifiers, in order.
    /// - Returns: The parsed expression.
    /// - Throws: A ``PredicateParseError`` with the reason and the position in `format`.
    public static func parse(format: String, argumentArray arguments: [Any?] = []) throws -> NSExpression {
        try PredicateParser.parseExpression(format: format, arguments: arguments)
    }

    /// An expression that always evaluates to `value`.
    public convenience init(forConstantValue value: Any?) {
        self.init(node: .constant(CollectionValue.unwrapNull(value)))
    }

    /// An expression for the object being evaluated (`SELF`).
    open class func expressionForEvaluatedObject() -> NSExpression {
        NSExpression(node: .evaluatedObject)
    }

    /// An expression that reads the variable `name` from the substitution variables.
    public convenience init(forVariable name: String) {
        self.init(node: .variable(name))
    }

    /// An expression that reads `keyPath` (dot-separated, with optional collection
    /// operators such as `@count`) from the evaluated object.
    public convenience init(forKeyPath keyPath: String) {
        self.init(node: .keyPath(operand: nil, path: keyPath))
    }

    /// An expression that calls the built-in function `name` (for example `"sum:"`,
    /// `"lowercase:"` or `"now"`) with `parameters`, which are expressions (other
    /// values are wrapped as constants).
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        self.init(node: .function(operand: nil, name: name, arguments: parameters.map(NSExpression.wrap)))
    }

    /// An expression that sends `name` to the result of `target` (`FUNCTION(...)` in
    /// format strings). Evaluating it yields `nil`: there is no selector dispatch on Linux.
    public convenience init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        self.init(node: .function(operand: target, name: name, arguments: (parameters ?? []).map(NSExpression.wrap)))
    }

    /// An expression that evaluates to the array of the values of `subexpressions`.
    public convenience init(forAggregate subexpressions: [Any]) {
        self.init(node: .aggregate(subexpressions.map(NSExpression.wrap)))
    }

    /// The union of the collections produced by two expressions.
    public convenience init(forUnionSet left: NSExpression, with right: NSExpression) {
        self.init(node: .union(left, right))
    }

    /// The intersection of the collections produced by two expressions.
    public convenience init(forIntersectSet left: NSExpression, with right: NSExpression) {
        self.init(node: .intersect(left, right))
    }

    /// The elements of the left collection that are not in the right one.
    public convenience init(forMinusSet left: NSExpression, with right: NSExpression) {
        self.init(node: .minus(left, right))
    }

    /// The elements of `expression`'s collection for which `predicate` holds, with
    /// each element bound to the variable `variable` while it is tested.
    public convenience init(
        forSubquery expression: NSExpression, usingIteratorVariable variable: String, predicate: NSPredicate
    ) {
        self.init(node: .subquery(collection: expression, variable: variable, predicate: predicate))
    }

    /// An expression matching any key (Spotlight only); it evaluates to `nil`.
    open class func expressionForAnyKey() -> NSExpression {
        NSExpression(node: .anyKey)
    }

    /// An expression computed by `block` from the evaluated object, the values of
    /// `arguments` and the evaluation context.
    public convenience init(block: @escaping (Any?, [Any], NSMutableDictionary?) -> Any, arguments: [NSExpression]?) {
        self.init(node: .block(ExpressionBlock(block), arguments: arguments))
    }

    /// An expression that evaluates `trueExpression` when `predicate` holds and
    /// `falseExpression` otherwise (`TERNARY(...)` in format strings).
    public convenience init(
        forConditional predicate: NSPredicate, trueExpression: NSExpression, falseExpression: NSExpression
    ) {
        self.init(node: .conditional(predicate, trueExpression, falseExpression))
    }

    private static func wrap(_ value: Any) -> NSExpression {
        (value as? NSExpression) ?? NSExpression(forConstantValue: value)
    }

    // MARK: Inspecting expressions

    /// The kind of this expression.
    open var expressionType: ExpressionType {
        switch node {
        case .constant, .symbol: return .constantValue
        case .evaluatedObject: return .evaluatedObject
        case .variable: return .variable
        case .keyPath: return .keyPath
        case .function: return .function
        case .aggregate: return .aggregate
        case .union: return .unionSet
        case .intersect: return .intersectSet
        case .minus: return .minusSet
        case .subquery: return .subquery
        case .anyKey: return .anyKey
        case .block: return .block
        case .conditional: return .conditional
        case .fetch: return .fetchRequest
        }
    }

    /// The value of a constant expression; `nil` for other kinds.
    ///
    /// Numbers and Booleans come back as `NSNumber` (decimals as `NSDecimalNumber`), as
    /// on Apple platforms, where they cross to Objective-C: `YES` and `3` parsed from a
    /// format string, or a Swift `Bool` or `Int` passed in, answer `as? Int`, `as? Bool`
    /// (0 and 1) and `as? Double` alike.
    open var constantValue: Any? {
        switch node {
        case .constant(let value): return NumberBoxing.boxed(value)
        case .symbol(let name): return name
        default: return nil
        }
    }

    /// The key path of a key-path expression; empty for other kinds.
    open var keyPath: String {
        if case .keyPath(_, let path) = node { return path }
        return ""
    }

    /// The variable name of a variable expression (or a subquery's iterator
    /// variable); empty for other kinds.
    open var variable: String {
        switch node {
        case .variable(let name): return name
        case .subquery(_, let name, _): return name
        default: return ""
        }
    }

    /// The function name of a function expression; empty for other kinds.
    open var function: String {
        if case .function(_, let name, _) = node { return name }
        return ""
    }

    /// The arguments of a function or block expression; `nil` for other kinds.
    open var arguments: [NSExpression]? {
        switch node {
        case .function(_, _, let arguments): return arguments
        case .block(_, let arguments): return arguments
        default: return nil
        }
    }

    /// The object a key path or `FUNCTION` expression applies to (`SELF` when implicit).
    open var operand: NSExpression {
        switch node {
        case .keyPath(let operand, _), .function(let operand, _, _): return operand ?? .expressionForEvaluatedObject()
        default: return .expressionForEvaluatedObject()
        }
    }

    /// The subexpressions of an aggregate (as `[NSExpression]`), or the collection
    /// expression of a subquery.
    open var collection: Any {
        switch node {
        case .aggregate(let items): return items
        case .subquery(let collection, _, _): return collection
        default: return [NSExpression]()
        }
    }

    /// The predicate of a subquery or conditional expression; `FALSEPREDICATE` otherwise.
    open var predicate: NSPredicate {
        switch node {
        case .subquery(_, _, let predicate), .conditional(let predicate, _, _): return predicate
        default: return NSPredicate(value: false)
        }
    }

    /// The left operand of a set expression; a `nil` constant otherwise.
    open var leftExpression: NSExpression {
        switch node {
        case .union(let left, _), .intersect(let left, _), .minus(let left, _): return left
        default: return NSExpression(forConstantValue: nil)
        }
    }

    /// The right operand of a set expression; a `nil` constant otherwise.
    open var rightExpression: NSExpression {
        switch node {
        case .union(_, let right), .intersect(_, let right), .minus(_, let right): return right
        default: return NSExpression(forConstantValue: nil)
        }
    }

    /// The expression used when a conditional's predicate holds; a `nil` constant otherwise.
    open var trueExpression: NSExpression {
        if case .conditional(_, let expression, _) = node { return expression }
        return NSExpression(forConstantValue: nil)
    }

    /// The expression used when a conditional's predicate fails; a `nil` constant otherwise.
    open var falseExpression: NSExpression {
        if case .conditional(_, _, let expression) = node { return expression }
        return NSExpression(forConstantValue: nil)
    }

    /// The closure of a block expression; `nil` for other kinds.
    open var expressionBlock: ((Any?, [Any], NSMutableDictionary?) -> Any)? {
        if case .block(let block, _) = node { return block.body }
        return nil
    }

    // MARK: Evaluating

    /// Evaluates the expression against `object`. Variables are read from `context`
    /// (string keys), which plays the role of substitution variables.
    ///
    /// - Parameters:
    ///   - object: The object key paths are read from.
    ///   - context: Values of the expression's variables, by name (string keys).
    /// - Returns: The expression's value; numbers and Booleans (arithmetic, `sum:`,
    ///   `count:`, `average:`, …) as `NSNumber`, decimals as `NSDecimalNumber`, as
    ///   Foundation returns them.
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        var bindings: [String: Any] = [:]
        context?.forEach { key, value in
            if let name = StringMatching.string(from: key) { bindings[name] = value }
        }
        return NumberBoxing.boxed(ExpressionEvaluator.value(of: self, object: object, bindings: bindings))
    }

    /// Kept for API compatibility: expressions here are always evaluable.
    open func allowEvaluation() {}

    /// A copy of this expression with its variables replaced by the constant values in `variables`.
    func substituting(_ variables: [String: Any]) -> NSExpression {
        Substitution.expression(self, variables)
    }

    // MARK: NSObject

    /// Structural equality: two expressions are equal when they have the same shape and values.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSExpression else { return false }
        return other === self || other.node == node
    }

    /// A hash consistent with structural equality.
    open override var hash: Int { node.hashValue }

    /// The expression in format-string syntax.
    open override var description: String { PredicateFormatter.format(self) }
}

extension NSExpression: NSCopying {
    /// Expressions are immutable, so a copy is the expression itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
