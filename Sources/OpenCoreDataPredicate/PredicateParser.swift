/// A recursive-descent parser for the predicate format-string language.
///
/// Precedence, loosest first: `OR`, `AND`, `NOT`, comparisons; in expressions:
/// `UNION`/`INTERSECT`/`MINUS`, the bitwise `|`, `^` and `&` (in C's order, all
/// below arithmetic), `+ -`, `* /`, `**` (right-associative), unary minus and `~`,
/// then postfix key paths and subscripts.
struct PredicateParser {
    private let format: String
    private let tokens: [PredicateToken]
    private var position = 0
    private let arguments: [Any?]
    private var argumentIndex = 0
    /// How many groups, operands and operators enclose the current token.
    private var depth = 0
    /// The deepest nesting accepted. Each level costs stack frames, so without a limit a
    /// hostile format (100,000 `(` or `!`) would overflow the stack instead of failing.
    /// At 128, the worst nesting takes under 256 KB of stack in release builds (measured),
    /// safe on 512 KB secondary threads; debug builds need up to 2 MB.
    static let maximumDepth = 128
    /// Parenthesized groups already found not to be predicates, by token position.
    /// Shared by the parser's copies (a class) so backtracking never repeats that work:
    /// without it, nested "(" groups cost 2^depth attempts.
    private let failedPredicateGroups = FailedGroups()

    private final class FailedGroups {
        var errors: [Int: PredicateParseError] = [:]
    }

    /// Words with special meaning; as keys they must be escaped with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN",
        "ANY", "SOME", "ALL", "NONE", "SUBQUERY", "FUNCTION", "CAST", "TERNARY", "TRUEPREDICATE", "FALSEPREDICATE",
        "YES", "NO", "TRUE", "FALSE", "NULL", "NIL", "SELF", "FIRST", "LAST", "SIZE", "ANYKEY",
        "UNION", "INTERSECT", "MINUS", "FETCH", "CASEINSENSITIVE", "CI",
    ]

    /// Parses a whole predicate.
    static func parsePredicate(format: String, arguments: [Any?]) throws -> NSPredicate {
        var parser = try PredicateParser(format: format, arguments: arguments)
        let predicate = try parser.parseOr()
        try parser.expectEnd()
        return predicate
    }

    /// Parses a whole expression.
    static func parseExpression(format: String, arguments: [Any?]) throws -> NSExpression {
        var parser = try PredicateParser(format: format, arguments: arguments)
        let expression = try parser.parseExpression()
        try parser.expectEnd()
        return expression
    }

    private init(format: String, arguments: [Any?]) throws {
        self.format = format
        self.tokens = try PredicateLexer.tokenize(format)
        self.arguments = arguments
    }

    // MARK: Token helpers

    private var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private func error(_ reason: String, at token: PredicateToken? = nil) -> PredicateParseError {
        PredicateParseError(reason: reason, position: (token ?? current).position, format: format)
    }

    /// The upper-cased keyword at the current token, if it is an unescaped word.
    private var keyword: String? {
        if case .word(let word) = current.kind { return word.uppercased() }
        return nil
    }

    private func isSymbol(_ symbols: String...) -> Bool {
        if case .symbol(let symbol) = current.kind { return symbols.contains(symbol) }
        return false
    }

    private mutating func accept(keyword word: String) -> Bool {
        guard keyword == word else { return false }
        advance()
        return true
    }

    private mutating func accept(_ symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        advance()
        return true
    }

    private mutating func expect(_ symbol: String) throws {
        guard accept(symbol) else { throw error("expected '\(symbol)'") }
    }

    private func expectEnd() throws {
        guard current.kind == .end else { throw error("unexpected token after the end of the expression") }
    }

    /// Enters one more nesting level, failing past ``maximumDepth``; callers leave it
    /// with `defer { depth -= 1 }`.
    private mutating func descend() throws {
        guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
        depth += 1
    }

    // MARK: Predicates

    private mutating func parseOr() throws -> NSPredicate {
        try descend()
        defer { depth -= 1 }
        var items = [try parseAnd()]
        while accept(keyword: "OR") || accept("||") { items.append(try parseAnd()) }
        return items.count == 1 ? items[0] : NSCompoundPredicate(orPredicateWithSubpredicates: items)
    }

    private mutating func parseAnd() throws -> NSPredicate {
        var items = [try parseNot()]
        while accept(keyword: "AND") || accept("&&") { items.append(try parseNot()) }
        return items.count == 1 ? items[0] : NSCompoundPredicate(andPredicateWithSubpredicates: items)
    }

    private mutating func parseNot() throws -> NSPredicate {
        if accept(keyword: "NOT") || accept("!") {
            try descend()
            defer { depth -= 1 }
            return NSCompoundPredicate(notPredicateWithSubpredicate: try parseNot())
        }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws -> NSPredicate {
        if accept(keyword: "TRUEPREDICATE") { return NSPredicate(value: true) }
        if accept(keyword: "FALSEPREDICATE") { return NSPredicate(value: false) }
        guard isSymbol("(") else { return try parseComparison() }
        // "(" opens either a nested predicate or an expression such as "(a + b) > 3":
        // try the predicate first and fall back to a comparison.
        let saved = self
        let predicateError: PredicateParseError
        if let known = failedPredicateGroups.errors[position] {
            predicateError = known
        } else {
            do {
                advance()
                let predicate = try parseOr()
                try expect(")")
                if !continuesExpression { return predicate }
                predicateError = error("expected a predicate")
            } catch let failure as PredicateParseError {
                predicateError = failure
            }
            self = saved
            failedPredicateGroups.errors[position] = predicateError
        }
        do {
            return try parseComparison()
        } catch let failure as PredicateParseError {
            throw failure.position >= predicateError.position ? failure : predicateError
        }
    }

    /// Whether the current token could continue an expression (so a parenthesized
    /// group was an operand, not a predicate).
    private var continuesExpression: Bool {
        if isSymbol(
            "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", ".", "[", "&", "|", "^")
        {
            return true
        }
        guard let keyword else { return false }
        return [
            "IN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "UNION", "INTERSECT", "MINUS",
        ].contains(keyword)
    }

    private mutating func parseComparison() throws -> NSPredicate {
        var modifier = NSComparisonPredicate.Modifier.direct
        var negate = false
        if accept(keyword: "ANY") || accept(keyword: "SOME") {
            modifier = .any
        } else if accept(keyword: "ALL") {
            modifier = .all
        } else if accept(keyword: "NONE") {
            modifier = .any; negate = true
        }
        let left = try parseExpression()
        let operatorToken = current
        guard let type = parseOperator() else {
            throw error(
                current.kind == .end
                    ? "expected a comparison operator before the end" : "expected a comparison operator",
                at: operatorToken)
        }
        let options = try parseOptions()
        let right = try parseExpression()
        let comparison = NSComparisonPredicate(
            leftExpression: left, rightExpression: right, modifier: modifier, type: type, options: options)
        // NONE is NOT ANY, as in Foundation.
        return negate ? NSCompoundPredicate(notPredicateWithSubpredicate: comparison) : comparison
    }

    private mutating func parseOperator() -> NSComparisonPredicate.Operator? {
        let symbols: [String: NSComparisonPredicate.Operator] = [
            "==": .equalTo, "=": .equalTo, "!=": .notEqualTo, "<>": .notEqualTo,
            "<": .lessThan, "<=": .lessThanOrEqualTo, "=<": .lessThanOrEqualTo,
            ">": .greaterThan, ">=": .greaterThanOrEqualTo, "=>": .greaterThanOrEqualTo,
        ]
        let words: [String: NSComparisonPredicate.Operator] = [
            "MATCHES": .matches, "LIKE": .like, "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith,
            "IN": .in, "CONTAINS": .contains, "BETWEEN": .between,
        ]
        var type: NSComparisonPredicate.Operator?
        if case .symbol(let symbol) = current.kind { type = symbols[symbol] }
        if let keyword { type = words[keyword] }
        if type != nil { advance() }
        return type
    }

    private mutating func parseOptions() throws -> NSComparisonPredicate.Options {
        guard accept("[") else { return [] }
        var options: NSComparisonPredicate.Options = []
        let optionToken = current
        guard case .word(let letters) = current.kind else { throw error("expected comparison options such as [cd]") }
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            default: throw error("unsupported comparison option '\(letter)'", at: optionToken)
            }
        }
        advance()
        try expect("]")
        return options
    }

    // MARK: Expressions

    private mutating func parseExpression() throws -> NSExpression {
        try descend()
        defer { depth -= 1 }
        var left = try parseBitwise()
        // Each operator nests the tree one level deeper (left-assoc), though the parser
        // loops: evaluating or printing it recurses, so chains count against the limit.
        var levels = 0
        defer { depth -= levels }
        while let word = keyword, ["UNION", "INTERSECT", "MINUS"].contains(word) {
            try descend()
            levels += 1
            advance()
            let right = try parseBitwise()
            switch word {
            case "UNION": left = NSExpression(forUnionSet: left, with: right)
            case "INTERSECT": left = NSExpression(forIntersectSet: left, with: right)
            default: left = NSExpression(forMinusSet: left, with: right)
            }
        }
        return left
    }

    /// `a | b`, `a ^ b` and `a & b`, read as the functions `bitwiseOr:with:`,
    /// `bitwiseXor:with:` and `bitwiseAnd:with:`; `&` binds tightest and `|` loosest, all
    /// left-associative. One loop for the three levels (operator precedence), so nesting
    /// costs no more stack per level than before they existed.
    private mutating func parseBitwise() throws -> NSExpression {
        var operands = [try parseAdditive()]
        var pending: [(function: String, precedence: Int)] = []
        var levels = 0
        defer { depth -= levels }
        func combineLast() {
            let right = operands.removeLast()
            let left = operands.removeLast()
            operands.append(NSExpression(forFunction: pending.removeLast().function, arguments: [left, right]))
        }
        while let (function, precedence) = bitwiseOperator {
            try descend()
            levels += 1
            advance()
            while let last = pending.last, last.precedence >= precedence { combineLast() }
            pending.append((function, precedence))
            operands.append(try parseAdditive())
        }
        while !pending.isEmpty { combineLast() }
        return operands[0]
    }

    /// The function and precedence of the bitwise operator at the current token.
    private var bitwiseOperator: (function: String, precedence: Int)? {
        guard case .symbol(let symbol) = current.kind else { return nil }
        switch symbol {
        case "|": return ("bitwiseOr:with:", 1)
        case "^": return ("bitwiseXor:with:", 2)
        case "&": return ("bitwiseAnd:with:", 3)
        default: return nil
        }
    }

    private mutating func parseAdditive() throws -> NSExpression {
        var left = try parseMultiplicative()
        var levels = 0
        defer { depth -= levels }
        while isSymbol("+", "-") {
            try descend()
            levels += 1
            let name = isSymbol("+") ? "add:to:" : "from:subtract:"
            advance()
            left = NSExpression(forFunction: name, arguments: [left, try parseMultiplicative()])
        }
        return left
    }

    private mutating func parseMultiplicative() throws -> NSExpression {
        var left = try parsePower()
        var levels = 0
        defer { depth -= levels }
        while isSymbol("*", "/") {
            try descend()
            levels += 1
            let name = isSymbol("*") ? "multiply:by:" : "divide:by:"
            advance()
            left = NSExpression(forFunction: name, arguments: [left, try parsePower()])
        }
        return left
    }

    private mutating func parsePower() throws -> NSExpression {
        let base = try parseUnary()
        guard accept("**") else { return base }
        try descend()
        defer { depth -= 1 }
        return NSExpression(forFunction: "raise:toPower:", arguments: [base, try parsePower()])
    }

    private mutating func parseUnary() throws -> NSExpression {
        if accept("~") {
            // `~x` is `onesComplement:(x)`, kept a function even on a constant (SQL
            // translation folds constant arguments anyway).
            try descend()
            defer { depth -= 1 }
            return NSExpression(forFunction: "onesComplement:", arguments: [try parseUnary()])
        }
        guard isSymbol("+", "-") else { return try parsePostfix() }
        let negate = isSymbol("-")
        advance()
        try descend()
        defer { depth -= 1 }
        let operand = try parseUnary()
        guard negate else { return operand }
        if case .constant(let value) = operand.node, let number = NumericValue(value) {
            switch number {
            case .integer(let integer) where integer != .min: return NSExpression(forConstantValue: Int(-integer))
            case .decimal(let decimal): return NSExpression(forConstantValue: -decimal)
            default: return NSExpression(forConstantValue: -number.doubleValue)
            }
        }
        return NSExpression(forFunction: "from:subtract:", arguments: [NSExpression(forConstantValue: 0), operand])
    }

    private mutating func parsePostfix() throws -> NSExpression {
        var expression = try parsePrimary()
        var levels = 0
        defer { depth -= levels }
        while true {
            if accept(".") {
                expression = try appendKey(try parseKeyComponent(), to: expression)
            } else if accept("[") {
                try descend()
                levels += 1
                let index: NSExpression
                if let word = keyword, ["FIRST", "LAST", "SIZE"].contains(word) {
                    advance()
                    index = NSExpression(node: .symbol(word))
                } else {
                    index = try parseExpression()
                }
                try expect("]")
                expression = NSExpression(forFunction: PredicateFunctions.index, arguments: [expression, index])
            } else {
                return expression
            }
        }
    }

    private mutating func parseKeyComponent() throws -> String {
        switch current.kind {
        case .escapedWord(let word):
            advance()
            return word
        case .word(let word) where !Self.reservedWords.contains(word.uppercased()) && !word.contains(":"):
            if word.hasPrefix("@"), !KeyPathEvaluation.collectionOperators.contains(word) {
                throw error("unsupported collection operator '\(word)'")
            }
            advance()
            return word
        case .specifier("K"):
            let token = current
            advance()
            return try keyArgument(at: token)
        default:
            throw error("expected a key")
        }
    }

    private func appendKey(_ key: String, to expression: NSExpression) throws -> NSExpression {
        switch expression.node {
        case .evaluatedObject:
            return NSExpression(forKeyPath: key)
        case .keyPath(let operand, let path):
            return NSExpression(node: .keyPath(operand: operand, path: path + "." + key))
        default:
            return NSExpression(node: .keyPath(operand: expression, path: key))
        }
    }

    private mutating func parsePrimary() throws -> NSExpression {
        let token = current
        switch token.kind {
        case .string(let value):
            advance()
            return NSExpression(forConstantValue: value)
        case .integer(let value):
            advance()
            return NSExpression(forConstantValue: Int(value))
        case .double(let value):
            advance()
            return NSExpression(forConstantValue: value)
        case .variable(let name):
            advance()
            return NSExpression(forVariable: name)
        case .specifier(let specifier):
            advance()
            return try parseArgument(specifier, at: token)
        case .escapedWord(let word):
            advance()
            return NSExpression(forKeyPath: word)
        case .symbol("("):
            advance()
            let expression = try parseExpression()
            try expect(")")
            return expression
        case .symbol("{"):
            advance()
            var items: [NSExpression] = []
            if !accept("}") {
                repeat { items.append(try parseExpression()) } while accept(",")
                try expect("}")
            }
            return NSExpression(forAggregate: items)
        case .word(let word):
            return try parseWord(word, at: token)
        case .end:
            throw error("expected an expression before the end")
        default:
            throw error("expected an expression")
        }
    }

    private mutating func parseWord(_ word: String, at token: PredicateToken) throws -> NSExpression {
        let upper = word.uppercased()
        switch upper {
        case "YES", "TRUE": advance(); return NSExpression(forConstantValue: true)
        case "NO", "FALSE": advance(); return NSExpression(forConstantValue: false)
        case "NIL", "NULL": advance(); return NSExpression(forConstantValue: nil)
        case "SELF": advance(); return .expressionForEvaluatedObject()
        case "ANYKEY": advance(); return .expressionForAnyKey()
        case "SUBQUERY": advance(); return try parseSubquery()
        case "FUNCTION": advance(); return try parseFunctionOperator()
        case "CAST": advance(); return try parseCast(at: token)
        case "TERNARY": advance(); return try parseTernary()
        case "FETCH": advance(); return try parseFetch(at: token)
        default: break
        }
        if Self.reservedWords.contains(upper) {
            throw error("unexpected keyword '\(word)' (escape keys that are reserved words with '#')")
        }
        advance()
        if isSymbol("(") { return try parseFunctionCall(word, at: token) }
        if word.contains(":") { throw error("expected '(' after function name '\(word)'") }
        if word.hasPrefix("@"), !KeyPathEvaluation.collectionOperators.contains(word) {
            throw error("unsupported collection operator '\(word)'", at: token)
        }
        return NSExpression(forKeyPath: word)
    }

    private mutating func parseArguments() throws -> [NSExpression] {
        try expect("(")
        var items: [NSExpression] = []
        if accept(")") { return items }
        repeat { items.append(try parseExpression()) } while accept(",")
        try expect(")")
        return items
    }

    private mutating func parseFunctionCall(_ word: String, at token: PredicateToken) throws -> NSExpression {
        let arguments = try parseArguments()
        var name = word
        if !name.contains(":") && !arguments.isEmpty { name += ":" }
        guard PredicateFunctions.names.contains(name), name != PredicateFunctions.index, name != PredicateFunctions.cast
        else {
            throw error("unsupported function '\(word)'", at: token)
        }
        let expectedCount = name == "now" || name == "random" ? 0 : name.filter { $0 == ":" }.count
        let takesList = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"].contains(name)
        guard arguments.count == expectedCount || (takesList && !arguments.isEmpty) else {
            throw error("function '\(name)' takes \(expectedCount) argument(s)", at: token)
        }
        return NSExpression(forFunction: name, arguments: arguments)
    }

    private mutating func parseFunctionOperator() throws -> NSExpression {
        let token = current
        let items = try parseArguments()
        guard items.count >= 2, case .constant(let selector) = items[1].node,
            let name = StringMatching.string(from: selector)
        else {
            throw error("FUNCTION needs an operand and a selector name string", at: token)
        }
        return NSExpression(forFunction: items[0], selectorName: name, arguments: Array(items.dropFirst(2)))
    }

    private mutating func parseCast(at token: PredicateToken) throws -> NSExpression {
        let items = try parseArguments()
        guard items.count == 2, case .constant(let typeValue) = items[1].node,
            let type = StringMatching.string(from: typeValue)
        else {
            throw error("CAST needs a value and a type name string", at: token)
        }
        guard ValueCasting.supportedTypes.contains(type) else {
            throw error("unsupported CAST type '\(type)'", at: token)
        }
        guard case .constant(let value) = items[0].node else {
            return NSExpression(forFunction: PredicateFunctions.cast, arguments: items)
        }
        guard let converted = ValueCasting.cast(value, to: type) else {
            throw error("cannot convert the value to \(type)", at: token)
        }
        return NSExpression(forConstantValue: converted)
    }

    private mutating func parseSubquery() throws -> NSExpression {
        try expect("(")
        let collection = try parseExpression()
        try expect(",")
        guard case .variable(let variable) = current.kind else { throw error("expected a $variable in SUBQUERY") }
        advance()
        try expect(",")
        let predicate = try parseOr()
        try expect(")")
        return NSExpression(forSubquery: collection, usingIteratorVariable: variable, predicate: predicate)
    }

    private mutating func parseTernary() throws -> NSExpression {
        try expect("(")
        let predicate = try parseOr()
        try expect(",")
        let whenTrue = try parseExpression()
        try expect(",")
        let whenFalse = try parseExpression()
        try expect(")")
        return NSExpression(forConditional: predicate, trueExpression: whenTrue, falseExpression: whenFalse)
    }

    /// `FETCH(request, context, countOnly)`, where `countOnly` is `YES` or `NO`.
    private mutating func parseFetch(at token: PredicateToken) throws -> NSExpression {
        let items = try parseArguments()
        guard items.count == 3, case .constant(let flag) = items[2].node, let countOnly = flag as? Bool else {
            throw error("FETCH needs a fetch request, a context and YES or NO (count only)", at: token)
        }
        return NSFetchRequestExpression.expressionForFetch(items[0], context: items[1], countOnly: countOnly)
    }

    // MARK: Format arguments

    private mutating func nextArgument(at token: PredicateToken) throws -> Any? {
        guard argumentIndex < arguments.count else {
            throw error("missing argument for format specifier #\(argumentIndex + 1)", at: token)
        }
        defer { argumentIndex += 1 }
        return CollectionValue.unwrapNull(arguments[argumentIndex])
    }

    private mutating func keyArgument(at token: PredicateToken) throws -> String {
        guard let key = StringMatching.string(from: try nextArgument(at: token)), !key.isEmpty else {
            throw error("%K needs a non-empty string argument", at: token)
        }
        return key
    }

    private mutating func parseArgument(_ specifier: Character, at token: PredicateToken) throws -> NSExpression {
        switch specifier {
        case "K":
            return NSExpression(forKeyPath: try keyArgument(at: token))
        case "@":
            let value = try nextArgument(at: token)
            if let expression = value as? NSExpression { return expression }
            return NSExpression(forConstantValue: value)
        case "s", "c":
            let value = try nextArgument(at: token)
            if let string = StringMatching.string(from: value) { return NSExpression(forConstantValue: string) }
            if let character = value as? Character { return NSExpression(forConstantValue: String(character)) }
            if let code = NumericValue(value)?.exactInteger, let scalar = Unicode.Scalar(UInt32(clamping: code)) {
                return NSExpression(forConstantValue: String(Character(scalar)))
            }
            throw error("%\(specifier) needs a string or character argument", at: token)
        default:
            guard let number = NumericValue(try nextArgument(at: token)) else {
                throw error("%\(specifier) needs a numeric argument", at: token)
            }
            let isFloating = "feEgG".contains(specifier)
            return NSExpression(forConstantValue: isFloating ? number.doubleValue : number.anyValue)
        }
    }
}
