/// Prints predicates and expressions in format-string syntax, such that parsing
/// the output yields an equal predicate or expression.
enum PredicateFormatter {
    /// The format string of `predicate`.
    static func format(_ predicate: NSPredicate) -> String {
        switch predicate.node {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .block(let block):
            return "BLOCKPREDICATE(\(ObjectIdentifier(block)))"
        case .comparison(let parts):
            return format(parts)
        case .compound(let type, let subpredicates):
            switch type {
            case .not:
                guard let inner = subpredicates.first else { return "NOT TRUEPREDICATE" }
                return "NOT " + grouped(inner)
            case .and, .or:
                guard !subpredicates.isEmpty else { return type == .and ? "TRUEPREDICATE" : "FALSEPREDICATE" }
                return subpredicates.map(grouped).joined(separator: type == .and ? " AND " : " OR ")
            }
        }
    }

    /// A subpredicate, parenthesized when it is itself an `AND` or `OR`.
    private static func grouped(_ predicate: NSPredicate) -> String {
        if case .compound(let type, let items) = predicate.node, type != .not, items.count > 1 {
            return "(" + format(predicate) + ")"
        }
        return format(predicate)
    }

    private static func format(_ parts: ComparisonNode) -> String {
        let left = format(parts.left)
        let right = format(parts.right)
        if parts.operatorType == .customSelector {
            return "\(left) \(parts.customSelector?.name ?? "") \(right)"
        }
        let modifier: String
        switch parts.modifier {
        case .direct: modifier = ""
        case .any: modifier = "ANY "
        case .all: modifier = "ALL "
        }
        var options = ""
        if parts.options.contains(.caseInsensitive) { options += "c" }
        if parts.options.contains(.diacriticInsensitive) { options += "d" }
        if parts.options.contains(.normalized) { options += "n" }
        if !options.isEmpty { options = "[\(options)]" }
        return "\(modifier)\(left) \(symbol(for: parts.operatorType))\(options) \(right)"
    }

    private static func symbol(for type: NSComparisonPredicate.Operator) -> String {
        switch type {
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqualTo: return ">="
        case .equalTo: return "=="
        case .notEqualTo: return "!="
        case .matches: return "MATCHES"
        case .like: return "LIKE"
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .in: return "IN"
        case .customSelector: return ""
        case .contains: return "CONTAINS"
        case .between: return "BETWEEN"
        }
    }

    // MARK: Expressions

    /// Functions printed as operators, with the parser's precedence (higher binds tighter).
    private static let infix: [String: (symbol: String, precedence: Int)] = [
        "bitwiseOr:with:": ("|", 1), "bitwiseXor:with:": ("^", 2), "bitwiseAnd:with:": ("&", 3),
        "add:to:": ("+", 4), "from:subtract:": ("-", 4),
        "multiply:by:": ("*", 5), "divide:by:": ("/", 5), "raise:toPower:": ("**", powerPrecedence),
    ]

    /// The precedence of `**`, which associates right: nested powers are parenthesized.
    private static let powerPrecedence = 6

    /// The format string of `expression`.
    static func format(_ expression: NSExpression) -> String {
        switch expression.node {
        case .constant(let value): return constant(value)
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .symbol(let name): return name
        case .anyKey: return "ANYKEY"
        case .keyPath(let operand, let path):
            let key = path.split(separator: ".", omittingEmptySubsequences: false).map { escapedKey(String($0)) }
                .joined(separator: ".")
            guard let operand, operand.node != .evaluatedObject else { return key }
            return postfixOperand(operand) + "." + key
        case .function(let operand, let name, let arguments):
            return function(operand: operand, name: name, arguments: arguments)
        case .aggregate(let items):
            return "{" + items.map(format).joined(separator: ", ") + "}"
        case .union(let a, let b): return setOperand(a) + " UNION " + setOperand(b)
        case .intersect(let a, let b): return setOperand(a) + " INTERSECT " + setOperand(b)
        case .minus(let a, let b): return setOperand(a) + " MINUS " + setOperand(b)
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(format(collection)), $\(variable), \(format(predicate)))"
        case .block(let block, let arguments):
            return "BLOCK(\(ObjectIdentifier(block)), \((arguments ?? []).map(format).joined(separator: ", ")))"
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return "TERNARY(\(format(predicate)), \(format(whenTrue)), \(format(whenFalse)))"
        case .fetch(let request, let context, let countOnly):
            return "FETCH(\(format(request)), \(format(context)), \(countOnly ? "YES" : "NO"))"
        }
    }

    private static func function(operand: NSExpression?, name: String, arguments: [NSExpression]) -> String {
        if let operand {
            return "FUNCTION("
                + ([operand, NSExpression(forConstantValue: name)] + arguments).map(format).joined(separator: ", ")
                + ")"
        }
        if let (symbol, precedence) = infix[name], arguments.count == 2 {
            // Parenthesize an operand that binds looser, a right operand of equal
            // precedence (the operators associate left), and any nested power.
            let left = arithmeticOperand(arguments[0], parentPrecedence: precedence, isRight: false)
            let right = arithmeticOperand(arguments[1], parentPrecedence: precedence, isRight: true)
            return "\(left) \(symbol) \(right)"
        }
        if name == PredicateFunctions.index, arguments.count == 2 {
            return postfixOperand(arguments[0]) + "[" + format(arguments[1]) + "]"
        }
        if name == PredicateFunctions.cast, arguments.count == 2 {
            return "CAST(\(format(arguments[0])), \(format(arguments[1])))"
        }
        return name + "(" + arguments.map(format).joined(separator: ", ") + ")"
    }

    private static func precedence(of expression: NSExpression) -> Int? {
        if case .function(nil, let name, let arguments) = expression.node, arguments.count == 2 {
            return infix[name]?.precedence
        }
        if case .constant(let value) = expression.node, let number = NumericValue(value), number.doubleValue < 0 {
            return 0
        }
        switch expression.node {
        case .union, .intersect, .minus: return 0
        default: return nil
        }
    }

    private static func arithmeticOperand(_ expression: NSExpression, parentPrecedence: Int, isRight: Bool) -> String {
        guard let own = precedence(of: expression) else { return format(expression) }
        let needsParentheses =
            own < parentPrecedence || (own == parentPrecedence && (isRight || own == powerPrecedence))
        return needsParentheses ? "(" + format(expression) + ")" : format(expression)
    }

    /// An expression followed by `.key` or `[index]`, parenthesized unless it is atomic.
    private static func postfixOperand(_ expression: NSExpression) -> String {
        switch expression.node {
        case .function(nil, let name, _) where infix[name] != nil: return "(" + format(expression) + ")"
        case .union, .intersect, .minus: return "(" + format(expression) + ")"
        case .constant(let value) where NumericValue(value) != nil: return "(" + format(expression) + ")"
        default: return format(expression)
        }
    }

    private static func setOperand(_ expression: NSExpression) -> String {
        switch expression.node {
        case .union, .intersect, .minus: return "(" + format(expression) + ")"
        default: return format(expression)
        }
    }

    /// A key, escaped with `#` when it is a reserved word.
    private static func escapedKey(_ key: String) -> String {
        PredicateParser.reservedWords.contains(key.uppercased()) ? "#" + key : key
    }

    // MARK: Constants

    /// A constant in a form the parser reads back as an equal value.
    static func constant(_ value: Any?) -> String {
        guard let value = CollectionValue.unwrapNull(value) else { return "nil" }
        if let string = StringMatching.string(from: value) { return quoted(string) }
        if type(of: value) == Bool.self, let bool = value as? Bool { return bool ? "YES" : "NO" }
        if let number = NumericValue(value) {
            switch number {
            case .integer(let integer): return String(integer)
            case .unsigned(let unsigned): return String(unsigned)
            case .decimal(let decimal):
                return decimal.isNaN ? "CAST(\"NaN\", \"NSDecimalNumber\")" : "\(decimal)"
            case .double(let double):
                return double.isFinite ? "\(double)" : "CAST(\(quoted("\(double)")), \"NSNumber\")"
            }
        }
        if let date = value as? Date { return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")" }
        if let uuid = value as? UUID { return "CAST(\(quoted(uuid.uuidString)), \"NSUUID\")" }
        if let url = value as? URL { return "CAST(\(quoted(url.absoluteString)), \"NSURL\")" }
        if let data = value as? Data { return "CAST(\(quoted(data.base64EncodedString())), \"NSData\")" }
        if let elements = CollectionValue.elements(of: value) {
            return "{" + elements.map(constant).joined(separator: ", ") + "}"
        }
        return quoted(String(describing: value))
    }

    /// `string` in double quotes with quotes, backslashes and control characters escaped.
    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
