/// The built-in functions of the expression language (`sum:`, `lowercase:`, `now`,
/// the arithmetic operators, ...), evaluated on already-computed argument values.
package enum PredicateFunctions {
    /// The internal function behind subscripts: `array[FIRST]`, `array[2]`, `dict["key"]`.
    package static let index = "objectFrom:withIndex:"
    /// The internal function behind `CAST(value, "Type")` when `value` is not a constant.
    package static let cast = "castObject:toType:"

    /// Every function name `call(_:_:)` understands; the parser rejects others.
    package static let names: Set<String> = [
        "sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:",
        "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:",
        "sqrt:", "log:", "ln:", "exp:", "ceiling:", "floor:", "trunc:", "abs:",
        "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "onesComplement:",
        "uppercase:", "lowercase:", "canonical:", "length:", "now", "random", "random:", "noindex:", index, cast,
    ]

    /// The result of function `name` applied to `arguments`, or `nil` when the
    /// function is unknown or the arguments do not fit it.
    package static func call(_ name: String, _ arguments: [Any?]) -> Any? {
        switch (name, arguments.count) {
        case ("now", 0): return Date()
        case ("random", 0): return Double.random(in: 0..<1)
        case ("random:", 1):
            guard let bound = NumericValue(arguments[0])?.exactInteger, bound > 0 else { return nil }
            return Int(Int64.random(in: 0..<bound))
        case ("noindex:", 1): return arguments[0]
        case (cast, 2):
            guard let type = StringMatching.string(from: arguments[1]) else { return nil }
            return ValueCasting.cast(arguments[0], to: type)
        case ("uppercase:", 1): return StringMatching.string(from: arguments[0])?.uppercased()
        case ("lowercase:", 1): return StringMatching.string(from: arguments[0])?.lowercased()
        // Core Data's derivation for search: case- and diacritic-folded ("Ünïcödé" → "unicode").
        case ("canonical:", 1):
            return StringMatching.string(from: arguments[0])?.folding(
                options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        // NSString's length (UTF-16 units), as the `length` key path gives.
        case ("length:", 1): return StringMatching.string(from: arguments[0])?.utf16.count
        case ("sum:", _), ("count:", _), ("min:", _), ("max:", _), ("average:", _), ("median:", _), ("mode:", _),
            ("stddev:", _):
            return statistic(name, collectionArguments(arguments))
        case (_, 1): return unary(name, arguments[0])
        case (_, 2): return binary(name, arguments[0], arguments[1])
        default: return nil
        }
    }

    /// The element of `collection` selected by a subscript: `FIRST`, `LAST`, `SIZE`,
    /// an integer position, or a key of a dictionary or ``KeyValueCoding`` value.
    package static func element(of collection: Any?, at index: ExpressionNode, evaluate: (NSExpression) -> Any?) -> Any?
    {
        let elements = CollectionValue.elements(of: collection)
        switch index {
        case .symbol("FIRST"): return elements?.first ?? nil
        case .symbol("LAST"): return elements?.last ?? nil
        case .symbol("SIZE"): return CollectionValue.members(of: collection)?.count
        default:
            let key = evaluate(NSExpression(node: index))
            if let elements, let position = NumericValue(key)?.exactInteger {
                return position >= 0 && position < elements.count ? elements[Int(position)] : nil
            }
            guard let name = StringMatching.string(from: key) else { return nil }
            return KeyPathEvaluation.value(forKey: name, of: collection)
        }
    }

    /// A single collection argument stands for its elements; otherwise the arguments
    /// themselves are the values.
    private static func collectionArguments(_ arguments: [Any?]) -> [Any?] {
        if arguments.count == 1, let elements = CollectionValue.elements(of: arguments[0]) { return elements }
        return arguments
    }

    private static func statistic(_ name: String, _ values: [Any?]) -> Any? {
        let present = values.compactMap { $0 }
        if name == "count:" { return present.count }
        if name == "min:" || name == "max:" {
            let wanted: ComparisonResult = name == "min:" ? .orderedAscending : .orderedDescending
            return present.dropFirst().reduce(present.first) { best, value in
                ValueComparison.compare(value, best) == wanted ? value : best
            }
        }
        let numbers = present.compactMap(NumericValue.init)
        guard numbers.count == present.count else { return nil }
        switch name {
        case "sum:":
            return numbers.reduce(NumericValue.integer(0)) { add($0, $1) }.anyValue
        case "average:":
            guard !numbers.isEmpty else { return nil }
            return numbers.map(\.doubleValue).reduce(0, +) / Double(numbers.count)
        case "median:":
            let sorted = numbers.map(\.doubleValue).sorted()
            guard !sorted.isEmpty else { return nil }
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        case "mode:":
            var counts: [Double: Int] = [:]
            for number in numbers { counts[number.doubleValue, default: 0] += 1 }
            guard let top = counts.values.max() else { return [Any?]() }
            return counts.filter { $0.value == top }.keys.sorted().map { Optional($0 as Any) }
        case "stddev:":
            guard !numbers.isEmpty else { return nil }
            let doubles = numbers.map(\.doubleValue)
            let mean = doubles.reduce(0, +) / Double(doubles.count)
            return (doubles.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(doubles.count)).squareRoot()
        default:
            return nil
        }
    }

    private static func unary(_ name: String, _ argument: Any?) -> Any? {
        guard let number = NumericValue(argument) else { return nil }
        let double = number.doubleValue
        switch name {
        case "sqrt:": return double.squareRoot()
        case "log:": return log10(double)
        case "ln:": return log(double)
        case "exp:": return exp(double)
        case "ceiling:": return double.rounded(.up)
        case "floor:": return double.rounded(.down)
        case "trunc:": return double.rounded(.towardZero)
        case "abs:":
            if case .integer(let value) = number, value != .min { return Int(abs(value)) }
            return Swift.abs(double)
        case "onesComplement:": return number.exactInteger.map { Int(~$0) }
        default: return nil
        }
    }

    private static func binary(_ name: String, _ lhs: Any?, _ rhs: Any?) -> Any? {
        // Dates move by a number of seconds, a convenience Foundation lacks.
        if let date = lhs as? Date, let seconds = NumericValue(rhs)?.doubleValue {
            switch name {
            case "add:to:": return date.addingTimeInterval(seconds)
            case "from:subtract:": return date.addingTimeInterval(-seconds)
            default: return nil
            }
        }
        if name == "add:to:", let date = rhs as? Date, let seconds = NumericValue(lhs)?.doubleValue {
            return date.addingTimeInterval(seconds)
        }
        guard let a = NumericValue(lhs), let b = NumericValue(rhs) else { return nil }
        switch name {
        case "add:to:": return add(a, b).anyValue
        case "from:subtract:": return subtract(a, b).anyValue
        case "multiply:by:": return multiply(a, b).anyValue
        case "divide:by:":
            if NumericValue.usesDecimal(a, b) { return a.decimalValue / b.decimalValue }
            return a.doubleValue / b.doubleValue
        case "modulus:by:":
            // `Int64.min % -1` overflows (and traps with `%`): that case takes the Double path.
            if let x = a.exactInteger, let y = b.exactInteger, y != 0 {
                let (remainder, overflow) = x.remainderReportingOverflow(dividingBy: y)
                if !overflow { return Int(remainder) }
            }
            return fmod(a.doubleValue, b.doubleValue)
        case "raise:toPower:": return pow(a.doubleValue, b.doubleValue)
        default: break
        }
        guard let x = a.exactInteger, let y = b.exactInteger else { return nil }
        switch name {
        case "bitwiseAnd:with:": return Int(x & y)
        case "bitwiseOr:with:": return Int(x | y)
        case "bitwiseXor:with:": return Int(x ^ y)
        case "leftshift:by:": return Int(x << y)
        case "rightshift:by:": return Int(x >> y)
        default: return nil
        }
    }

    /// `a + b` as `+` and `@sum` compute it; shared with the store's `OCD_SUM`.
    package static func add(_ a: NumericValue, _ b: NumericValue) -> NumericValue {
        arithmetic(a, b, integer: { $0.addingReportingOverflow($1) }, decimal: +, double: +)
    }

    private static func subtract(_ a: NumericValue, _ b: NumericValue) -> NumericValue {
        arithmetic(a, b, integer: { $0.subtractingReportingOverflow($1) }, decimal: -, double: -)
    }

    private static func multiply(_ a: NumericValue, _ b: NumericValue) -> NumericValue {
        arithmetic(a, b, integer: { $0.multipliedReportingOverflow(by: $1) }, decimal: *, double: *)
    }

    /// One of `+ - *`: integers while the result fits, decimals when a side is a decimal
    /// (and both are finite), doubles otherwise.
    private static func arithmetic(
        _ a: NumericValue, _ b: NumericValue,
        integer: (Int64, Int64) -> (partialValue: Int64, overflow: Bool),
        decimal: (Decimal, Decimal) -> Decimal,
        double: (Double, Double) -> Double
    ) -> NumericValue {
        if case .integer(let x) = a, case .integer(let y) = b {
            let (result, overflow) = integer(x, y)
            if !overflow { return .integer(result) }
        }
        if NumericValue.usesDecimal(a, b) { return .decimal(decimal(a.decimalValue, b.decimalValue)) }
        return .double(double(a.doubleValue, b.doubleValue))
    }
}
