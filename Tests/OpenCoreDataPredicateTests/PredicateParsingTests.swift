import Testing
@testable import OpenCoreDataPredicate

@Suite struct PredicateParsingTests {
    private func comparison(_ format: String, _ args: Any?...) throws -> NSComparisonPredicate {
        let predicate = try NSPredicate.parse(format: format, argumentArray: args)
        return try #require(predicate as? NSComparisonPredicate)
    }

    @Test func initFormatReturnsSubclasses() {
        let comparison = NSPredicate(format: "age > %d", 3)
        #expect(comparison is NSComparisonPredicate)
        #expect((comparison as? NSComparisonPredicate)?.predicateOperatorType == .greaterThan)
        let compound = NSPredicate(format: "a == 1 OR b == 2")
        #expect((compound as? NSCompoundPredicate)?.compoundPredicateType == .or)
        #expect((compound as? NSCompoundPredicate)?.subpredicates.count == 2)
        let typed = NSCompoundPredicate(format: "NOT a == 1")
        #expect(typed.compoundPredicateType == .not)
        let fromArray = NSPredicate(format: "name == %@", argumentArray: ["x"])
        #expect(fromArray.evaluate(with: ["name": "x"]))
        #expect(!(NSPredicate(format: "TRUEPREDICATE") is NSComparisonPredicate))
    }

    @Test func operatorsAndRawValues() throws {
        let table: [(String, NSComparisonPredicate.Operator, UInt)] = [
            ("<", .lessThan, 0), ("<=", .lessThanOrEqualTo, 1), (">", .greaterThan, 2),
            (">=", .greaterThanOrEqualTo, 3),
            ("==", .equalTo, 4), ("!=", .notEqualTo, 5), ("MATCHES", .matches, 6), ("LIKE", .like, 7),
            ("BEGINSWITH", .beginsWith, 8), ("ENDSWITH", .endsWith, 9), ("IN", .in, 10), ("CONTAINS", .contains, 99),
            ("BETWEEN", .between, 100),
        ]
        for (symbol, type, raw) in table {
            let parsed = try comparison("a \(symbol) b")
            #expect(parsed.predicateOperatorType == type)
            #expect(type.rawValue == raw)
            #expect(parsed.leftExpression.keyPath == "a")
            #expect(parsed.rightExpression.expressionType == .keyPath)
        }
        #expect(NSComparisonPredicate.Operator.customSelector.rawValue == 11)
        #expect(NSComparisonPredicate.Modifier.any.rawValue == 2)
        #expect(NSComparisonPredicate.Options.normalized.rawValue == 4)
        #expect(NSCompoundPredicate.LogicalType.or.rawValue == 2)
        #expect(NSExpression.ExpressionType.conditional.rawValue == 20)
    }

    @Test func modifiersAndOptions() throws {
        #expect(try comparison("ANY a == 1").comparisonPredicateModifier == .any)
        #expect(try comparison("some a == 1").comparisonPredicateModifier == .any)
        #expect(try comparison("ALL a == 1").comparisonPredicateModifier == .all)
        #expect(try comparison("a == 1").comparisonPredicateModifier == .direct)
        let none = try #require(try NSPredicate.parse(format: "NONE a == 1") as? NSCompoundPredicate)
        #expect(none.compoundPredicateType == .not)
        #expect((none.subpredicates.first as? NSComparisonPredicate)?.comparisonPredicateModifier == .any)
        #expect(try comparison("a ==[c] 'x'").options == .caseInsensitive)
        #expect(try comparison("a LIKE[d] 'x'").options == .diacriticInsensitive)
        #expect(try comparison("a CONTAINS[cd] 'x'").options == [.caseInsensitive, .diacriticInsensitive])
        #expect(try comparison("a BEGINSWITH[n] 'x'").options == .normalized)
    }

    @Test func keywordsAreCaseInsensitiveAndEscapable() throws {
        #expect(try NSPredicate.parse(format: "a == 1 and b == 2 Or not c == 3").evaluate(with: ["a": 1, "b": 2]))
        #expect(try NSPredicate.parse(format: "a like[c] 'X*'").evaluate(with: ["a": "xy"]))
        #expect(try NSPredicate.parse(format: "a == yes").evaluate(with: ["a": true]))
        #expect(try comparison("#IN == 1").leftExpression.keyPath == "IN")
        #expect(try comparison("#size.count == 1").leftExpression.keyPath == "size.count")
        #expect(try NSPredicate.parse(format: "#first == 'x'").evaluate(with: ["first": "x"]))
    }

    @Test func literals() throws {
        func constant(_ text: String) throws -> Any? {
            try comparison("a == \(text)").rightExpression.constantValue
        }
        #expect(try constant("42") as? Int == 42)
        #expect(try constant("0x2A") as? Int == 42)
        #expect(try constant("0o52") as? Int == 42)
        #expect(try constant("0b101010") as? Int == 42)
        #expect(try constant("4.25") as? Double == 4.25)
        #expect(try constant("1e3") as? Double == 1000)
        #expect(try constant("-7") as? Int == -7)
        #expect(try constant("'single'") as? String == "single")
        #expect(try constant("\"double\"") as? String == "double")
        #expect(try constant("'a\\'b\\\"c\\\\d\\ne\\tf'") as? String == "a'b\"c\\d\ne\tf")
        #expect(try constant("'\\u00E9'") as? String == "é")
        #expect(try constant("YES") as? Bool == true)
        #expect(try constant("TRUE") as? Bool == true)
        #expect(try constant("NO") as? Bool == false)
        #expect(try constant("false") as? Bool == false)
        #expect(try constant("nil") == nil)
        #expect(try constant("NULL") == nil)
        let aggregate = try comparison("a IN {1, 'two', 3.0}").rightExpression
        #expect(aggregate.expressionType == .aggregate)
        #expect((aggregate.collection as? [NSExpression])?.count == 3)
        let date = try constant("CAST(100, 'NSDate')") as? Date
        #expect(date == Date(timeIntervalSinceReferenceDate: 100))
        #expect(
            try constant("CAST('2001-01-01 00:01:40 +0000', 'NSDate')") as? Date
                == Date(timeIntervalSinceReferenceDate: 100))
        #expect(try constant("CAST('12', 'NSNumber')") as? Int == 12)
        #expect(try constant("CAST(12, 'NSString')") as? String == "12")
        #expect(try constant("CAST('1.25', 'NSDecimalNumber')") as? Decimal == Decimal(string: "1.25"))
    }

    @Test func formatSpecifiers() throws {
        let predicate = try NSPredicate.parse(
            format:
                "%K == %@ AND a == %d AND b == %i AND c == %ld AND d == %lld AND e == %u AND f == %f AND g == %lf AND h == %s AND i == %c",
            argumentArray: ["name", "x", 1, Int32(2), 3, Int64(4), UInt(5), 1.5, Float(2.5), "str", Character("z")])
        let object: [String: Any] = [
            "name": "x", "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 1.5, "g": 2.5, "h": "str", "i": "z",
        ]
        #expect(predicate.evaluate(with: object))
        #expect(try comparison("%K == 1", "a.b").leftExpression.keyPath == "a.b")
        #expect(try comparison("SELF.%K == 1", "key").leftExpression.keyPath == "key")
        #expect(try comparison("a == %@", nil).rightExpression.constantValue == nil)
        #expect(try comparison("a == %@", NSExpression(forKeyPath: "b")).rightExpression.keyPath == "b")
        #expect(try comparison("a == %c", 65).rightExpression.constantValue as? String == "A")
        // The printf radix and notation letters take numbers; e E g G give doubles.
        let numeric = try NSPredicate.parse(
            format: "a == %x AND b == %X AND c == %o AND d == %lx AND e == %e AND f == %E AND g == %g AND h == %G",
            argumentArray: [255, 255, 8, Int64(7), 1.5, 2, Float(3.5), 4])
        #expect(numeric.evaluate(with: ["a": 255, "b": 255, "c": 8, "d": 7, "e": 1.5, "f": 2, "g": 3.5, "h": 4]))
        #expect(try comparison("a == %x", 255).rightExpression.constantValue as? Int == 255)
        #expect(try comparison("a == %e", 2).rightExpression.constantValue as? Double == 2)
        #expect(try comparison("a == %G", Float(0.5)).rightExpression.constantValue as? Double == 0.5)
    }

    @Test(arguments: [
        ("a == %s", [[1, 2]] as [(any Sendable)?], 5, "%s needs a string or character argument"),
        ("a == %c", [Date()], 5, "%c needs a string or character argument"),
        ("a == %d", ["x"], 5, "%d needs a numeric argument"),
        ("a == %x", [nil], 5, "%x needs a numeric argument"),
        ("a == %e", [[1.5]], 5, "%e needs a numeric argument"),
        ("%K == 1", [3], 0, "%K needs a non-empty string argument"),
        ("a == %%", [], 5, "unsupported format specifier"),
        ("a == %1$@", ["x"], 5, "unsupported format specifier"),
        ("a == 1 AND b == %@", [], 16, "missing argument for format specifier #1"),
        ("FUNCTION(SELF) == 1", [], 8, "FUNCTION needs an operand and a selector name string"),
        ("FUNCTION() == 1", [], 8, "FUNCTION needs an operand and a selector name string"),
        // Numbers need a digit before the point.
        ("a == .5", [], 5, "expected an expression"),
    ])
    func formatErrorsNameTheProblemAndPosition(
        _ format: String, _ arguments: [(any Sendable)?], _ position: Int, _ reason: String
    ) {
        let error = #expect(throws: PredicateParseError.self) {
            try NSPredicate.parse(format: format, argumentArray: arguments.map { $0 })
        }
        #expect(error?.reason == reason)
        #expect(error?.position == position)
        #expect(error?.message.contains("at position \(position)") == true)
    }

    @Test func expressionsWithArgumentArraysAndCompoundTypes() throws {
        #expect(
            NSExpression(format: "%@ + %d", argumentArray: [1, 2]).expressionValue(with: nil, context: nil) as? Int == 3
        )
        #expect(
            NSExpression(format: "%K.@count", argumentArray: ["items"]).expressionValue(
                with: ["items": [1, 2]], context: nil) as? Int == 2)
        #expect(
            NSExpression(format: "lowercase(%@)", argumentArray: ["ÄB"]).expressionValue(with: nil, context: nil)
                as? String == "äb")
        let a = NSPredicate(format: "a == 1"), b = NSPredicate(format: "b == 2")
        let and = NSCompoundPredicate(type: .and, subpredicates: [a, b])
        #expect(and.compoundPredicateType == .and)
        #expect(and.subpredicates.count == 2)
        #expect(and == NSPredicate(format: "a == 1 AND b == 2"))
        #expect(and.evaluate(with: ["a": 1, "b": 2]))
        #expect(!and.evaluate(with: ["a": 1, "b": 3]))
        let or = NSCompoundPredicate(type: .or, subpredicates: [a, b])
        #expect(or.predicateFormat == "a == 1 OR b == 2")
        #expect(or.evaluate(with: ["a": 0, "b": 2]))
        let not = NSCompoundPredicate(type: .not, subpredicates: [a])
        #expect(not.predicateFormat == "NOT a == 1")
        #expect(not.evaluate(with: ["a": 2]))
        #expect(NSCompoundPredicate(type: .and, subpredicates: []).evaluate(with: nil))
        #expect(!NSCompoundPredicate(type: .or, subpredicates: []).evaluate(with: nil))
    }

    @Test func expressionStructure() throws {
        let keyPath = try comparison("department.name == 'x'").leftExpression
        #expect(keyPath.expressionType == .keyPath)
        #expect(keyPath.keyPath == "department.name")
        #expect(keyPath.operand.expressionType == .evaluatedObject)
        let variable = try comparison("$x.name == 'y'").leftExpression
        #expect(variable.keyPath == "name")
        #expect(variable.operand.variable == "x")
        let function = try comparison("lowercase(name) == 'y'").leftExpression
        #expect(function.expressionType == .function)
        #expect(function.function == "lowercase:")
        #expect(function.arguments?.first?.keyPath == "name")
        let arithmetic = try comparison("a + b * c == 1").leftExpression
        #expect(arithmetic.function == "add:to:")
        #expect(arithmetic.arguments?.last?.function == "multiply:by:")
        let subquery = try comparison("SUBQUERY(items, $i, $i.x == 1).@count == 1").leftExpression
        #expect(subquery.keyPath == "@count")
        #expect(subquery.operand.expressionType == .subquery)
        #expect(subquery.operand.variable == "i")
        #expect((subquery.operand.collection as? NSExpression)?.keyPath == "items")
        #expect(subquery.operand.predicate is NSComparisonPredicate)
        let selfExpression = try comparison("SELF == 1").leftExpression
        #expect(selfExpression.expressionType == .evaluatedObject)
        let union = try comparison("a UNION b CONTAINS 1").leftExpression
        #expect(union.expressionType == .unionSet)
        #expect(union.leftExpression.keyPath == "a")
        #expect(union.rightExpression.keyPath == "b")
        let ternary = try comparison("TERNARY(a == 1, 'x', 'y') == 'x'").leftExpression
        #expect(ternary.expressionType == .conditional)
        #expect(ternary.trueExpression.constantValue as? String == "x")
        #expect(ternary.falseExpression.constantValue as? String == "y")
        let custom = try comparison("FUNCTION(SELF, 'distance:', 2) > 1").leftExpression
        #expect(custom.function == "distance:")
        #expect(custom.operand.expressionType == .evaluatedObject)
    }

    @Test func parenthesesDisambiguation() throws {
        #expect(try NSPredicate.parse(format: "(a + 1) * 2 == 8").evaluate(with: ["a": 3]))
        #expect(try NSPredicate.parse(format: "((a == 3))").evaluate(with: ["a": 3]))
        #expect(try NSPredicate.parse(format: "(a) == 3").evaluate(with: ["a": 3]))
        #expect(try NSPredicate.parse(format: "((a == 1) OR (b == 2)) AND (c == 3)").evaluate(with: ["b": 2, "c": 3]))
    }

    @Test(arguments: [
        ("", 0), ("a ==", 4), ("a == 'unterminated", 5), ("== 1", 0), ("a == 1 AND", 10), ("a === 1", 4),
        ("a ~ 1", 2), ("(a == 1", 7), ("a == 1)", 6), ("a ==[x] 1", 5), ("bogus(a) == 1", 0), ("a.@bogus == 1", 2),
        ("a == %@", 5), ("%K == 1", 0), ("a == %d", 5), ("SUBQUERY(a, b, b == 1) == 1", 12), ("in == 1", 0),
        ("a == CAST(1, 'NSWhatever')", 5), ("a == CAST('x', 'NSNumber')", 5), ("a == 0xZZ", 5), ("a == 12abc", 5),
        ("a IN {1, 2", 10), ("a UTI-CONFORMS-TO 'public.image'", 2), ("a == $", 5), ("abs(1, 2) == 1", 0),
        ("a == 1 b == 2", 7),
        ("a == 'bad \\u12' ", 10), ("a BETWEEN", 9), ("lowercase: == 1", 11),
    ])
    func parseErrorsReportPositions(_ format: String, _ position: Int) {
        do {
            _ = try NSPredicate.parse(format: format)
            Issue.record("\(format) parsed")
        } catch let error as PredicateParseError {
            #expect(error.position == position, "\(error.message)")
            #expect(error.format == format)
            #expect(error.message.contains("position \(position)"))
            #expect(error.message.contains("\"\(format)\""))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func subclassFormatMismatchThrows() throws {
        #expect(throws: PredicateParseError.self) {
            _ = try NSExpression.parse(format: "a == 1")
        }
        let error = try #require(throws: PredicateParseError.self) { try NSPredicate.parse(format: "a ==[q] 1") }
        #expect(error.reason.contains("option"))
    }
}

@Suite struct PredicateParserRobustnessTests {
    /// Found by the fuzzer: nested "(" groups made the parser backtrack 2^depth times.
    @Test func deeplyNestedParenthesesParseQuickly() throws {
        let depth = 60
        let format = String(repeating: "(", count: depth) + "a + 1" + String(repeating: ")", count: depth) + " > 2"
        let predicate = try NSPredicate.parse(format: format, argumentArray: [])
        #expect(predicate.evaluate(with: ["a": 5]))
        let broken = "!!TERNARY(" + String(repeating: "(", count: 40) + "uu/uSuu----NO--LNO"
        #expect(throws: PredicateParseError.self) { try NSPredicate.parse(format: broken, argumentArray: []) }
    }

    /// Found by the fuzzer: every nesting construct recursed without bound, so 100,000
    /// `(` or `!` overflowed the stack. Past 128 levels the parse fails, naming the position.
    @Test(arguments: [
        ("(", "a == 1", ")", 128), ("!", "a == 1", "", 128), ("NOT ", "a == 1", "", 512), ("-", "a == 1", "", 127),
        ("~", "a == 1", "", 127),
        ("{", "a", "}", 127), ("a[", "0", "]", 128), ("2 ** ", "2 == a", "", 635), ("abs(", "a", ") == 1", 508),
        ("SUBQUERY(a, $x, ", "$x == 1", ")", 1017), ("TERNARY(", "a == 1", ", 1, 2) == 1", 512),
    ])
    func deepNestingFailsWithAPosition(_ opening: String, _ core: String, _ closing: String, _ position: Int) {
        let count = 10_000
        let format = String(repeating: opening, count: count) + core + String(repeating: closing, count: count)
        let error = #expect(throws: PredicateParseError.self) {
            try NSPredicate.parse(format: format, argumentArray: [])
        }
        #expect(error?.reason == "nested more than 128 levels deep")
        #expect(error?.position == position, "\(error?.message.prefix(120) ?? "")")
    }

    /// Operator chains nest the tree one level per operator though the parser loops:
    /// 100,000 `1+` parsed fine, then evaluating or printing the tree overflowed the stack.
    @Test(arguments: ["1 + ", "2 * ", "a[0]", "{1} UNION ", "1 & ", "1 | 2 ^ "])
    func longOperatorChainsFailInsteadOfNestingWithoutBound(_ link: String) {
        let format =
            link.hasPrefix("a[")
            ? "x == a" + String(repeating: "[0]", count: 100_000)
            : "x == " + String(repeating: link, count: 100_000) + (link.contains("UNION") ? "{1}" : "1")
        let error = #expect(throws: PredicateParseError.self) {
            try NSPredicate.parse(format: format, argumentArray: [])
        }
        #expect(error?.reason == "nested more than 128 levels deep")
    }

    @Test func operatorChainsUpToTheLimitParseAndEvaluate() throws {
        let sum = "x == " + String(repeating: "1 + ", count: 100) + "1"
        #expect(try NSPredicate.parse(format: sum).evaluate(with: ["x": 101]))
        let product = "x == " + String(repeating: "1 * ", count: 100) + "2"
        #expect(try NSPredicate.parse(format: product).evaluate(with: ["x": 2]))
        let bits = "x == " + String(repeating: "1 | 2 & ", count: 50) + "3"
        #expect(try NSPredicate.parse(format: bits).evaluate(with: ["x": 3]))
    }

    @Test func nestingUpToTheLimitParses() throws {
        let parentheses = String(repeating: "(", count: 100) + "a == 1" + String(repeating: ")", count: 100)
        #expect(try NSPredicate.parse(format: parentheses).evaluate(with: ["a": 1]))
        let negations = String(repeating: "!", count: 100) + "a == 1"
        #expect(try NSPredicate.parse(format: negations).evaluate(with: ["a": 1]))
        let minuses = "a == " + String(repeating: "-", count: 100) + "1"
        #expect(try NSPredicate.parse(format: minuses).evaluate(with: ["a": 1]))
    }

    /// Found by the fuzzer: `Int64.min % -1` trapped, and so did `Decimal(Double)` on
    /// an infinity (in CAST, comparisons and arithmetic with decimals).
    @Test func arithmeticEdgesDoNotTrap() throws {
        func value(_ format: String, _ arguments: Any?...) throws -> Any? {
            try NSExpression.parse(format: format, argumentArray: arguments).expressionValue(with: nil, context: nil)
        }
        #expect(try value("modulus:by:(%@, -1)", Int64.min) as? Double == 0)
        #expect(try value("modulus:by:(%@, 3)", Int64.min) as? Int == -2)
        #expect(try value("%@ / -1", Int64.min) as? Double == 9.223372036854775808e18)
        #expect(try value("%@ * -1", Int64.min) as? Double == 9.223372036854775808e18)
        #expect(try value("%@ - 1", Int64.min) as? Double == -9.223372036854775808e18)
        #expect(try value("0 - %@", Int64.min) as? Double == 9.223372036854775808e18)
        #expect(try value("abs(%@)", Int64.min) as? Double == 9.223372036854775808e18)
        let nan = try #require(try value("CAST(1e999, 'NSDecimalNumber')") as? Decimal)
        #expect(nan.isNaN)
        #expect(try (value("CAST('inf', 'NSDecimalNumber')") as? Decimal)?.isNaN == true)
        let decimal = Decimal(string: "2.5")!
        #expect(try value("%@ + %@", decimal, Double.infinity) as? Double == .infinity)
        #expect(try value("%@ * %@", decimal, -Double.infinity) as? Double == -.infinity)
        #expect(try (value("%@ / %@", Double.nan, decimal) as? Double)?.isNaN == true)
        #expect(try value("%@ + 1", decimal) as? Decimal == Decimal(string: "3.5"))
        #expect(try check("SELF < %@", decimal, Double.infinity))
        #expect(try check("SELF > %@", decimal, -Double.infinity))
        #expect(try !check("SELF > %@", decimal, Double.infinity))
        #expect(try check("SELF > %@", decimal, Decimal(string: "2.4")!))
        // A decimal NaN prints as a cast that parses back to an equal predicate.
        let predicate = try NSPredicate.parse(format: "a == CAST(1e999, 'NSDecimalNumber')")
        #expect(predicate.predicateFormat == "a == CAST(\"NaN\", \"NSDecimalNumber\")")
        #expect(try NSPredicate.parse(format: predicate.predicateFormat) == predicate)
    }
}
