import Testing
@testable import OpenCoreDataPredicate

@Suite struct PredicateExpressionTests {
    private func value(_ format: String, _ object: Any? = nil, _ args: Any?...) throws -> Any? {
        try NSExpression.parse(format: format, argumentArray: args).expressionValue(with: object, context: nil)
    }

    @Test func initializersAndAccessors() {
        let constant = NSExpression(forConstantValue: 5)
        #expect(constant.expressionType == .constantValue)
        #expect(constant.constantValue as? Int == 5)
        #expect(NSExpression.expressionForEvaluatedObject().expressionType == .evaluatedObject)
        let variable = NSExpression(forVariable: "v")
        #expect(variable.expressionType == .variable)
        #expect(variable.variable == "v")
        let keyPath = NSExpression(forKeyPath: "a.b")
        #expect(keyPath.expressionType == .keyPath)
        #expect(keyPath.keyPath == "a.b")
        let function = NSExpression(forFunction: "sum:", arguments: [NSExpression(forConstantValue: [1, 2, 3])])
        #expect(function.expressionType == .function)
        #expect(function.function == "sum:")
        #expect(function.arguments?.count == 1)
        #expect(function.expressionValue(with: nil, context: nil) as? Int == 6)
        let aggregate = NSExpression(forAggregate: [NSExpression(forConstantValue: 1), 2])
        #expect(aggregate.expressionType == .aggregate)
        #expect((aggregate.collection as? [NSExpression])?.count == 2)
        let subquery = NSExpression(
            forSubquery: NSExpression(forKeyPath: "items"), usingIteratorVariable: "x",
            predicate: NSPredicate(format: "$x > 1"))
        #expect(subquery.expressionType == .subquery)
        #expect((subquery.expressionValue(with: ["items": [1, 2, 3]], context: nil) as? [Any?])?.count == 2)
        let conditional = NSExpression(
            forConditional: NSPredicate(value: true), trueExpression: constant, falseExpression: variable)
        #expect(conditional.expressionType == .conditional)
        #expect(conditional.expressionValue(with: nil, context: nil) as? Int == 5)
        #expect(NSExpression.expressionForAnyKey().expressionType == .anyKey)
        let union = NSExpression(
            forUnionSet: NSExpression(forConstantValue: [1, 2]), with: NSExpression(forConstantValue: [2, 3]))
        #expect((union.expressionValue(with: nil, context: nil) as? [Any?])?.count == 3)
        let intersect = NSExpression(
            forIntersectSet: NSExpression(forConstantValue: [1, 2]), with: NSExpression(forConstantValue: [2, 3]))
        #expect((intersect.expressionValue(with: nil, context: nil) as? [Any?])?.first as? Int == 2)
        let minus = NSExpression(
            forMinusSet: NSExpression(forConstantValue: [1, 2]), with: NSExpression(forConstantValue: [2, 3]))
        #expect(minus.expressionType == .minusSet)
        #expect((minus.expressionValue(with: nil, context: nil) as? [Any?])?.first as? Int == 1)
    }

    @Test func blockExpressions() {
        let block = NSExpression(
            block: { object, arguments, _ in
                (object as? Int ?? 0) + (arguments.first as? Int ?? 0)
            }, arguments: [NSExpression(forConstantValue: 10)])
        #expect(block.expressionType == .block)
        #expect(block.expressionValue(with: 5, context: nil) as? Int == 15)
        #expect(NSPredicate(format: "%@ == 15", block).evaluate(with: 5))
    }

    @Test func variablesFromContext() {
        let context = NSMutableDictionary()
        context["limit"] = 7
        #expect(NSExpression(format: "$limit * 2").expressionValue(with: nil, context: context) as? Int == 14)
        #expect(NSExpression(format: "$missing").expressionValue(with: nil, context: nil) == nil)
    }

    @Test func arithmetic() throws {
        #expect(try value("1 + 2 * 3") as? Int == 7)
        #expect(try value("(1 + 2) * 3") as? Int == 9)
        #expect(try value("10 - 4 - 3") as? Int == 3)
        #expect(try value("10 / 4") as? Double == 2.5)
        #expect(try value("2 ** 10") as? Double == 1024)
        #expect(try value("2 ** 3 ** 2") as? Double == 512)
        #expect(try value("-3 + 1") as? Int == -2)
        #expect(try value("-a", ["a": 4]) as? Int == -4)
        #expect(try value("a * 1.5", ["a": 4]) as? Double == 6)
        #expect(try value("a + 1", ["a": Decimal(string: "0.1")!]) as? Decimal == Decimal(string: "1.1"))
        #expect(try value("a + 'x'", ["a": 1]) == nil)
        #expect(
            try value("%@ + 60", nil, Date(timeIntervalSinceReferenceDate: 0)) as? Date
                == Date(timeIntervalSinceReferenceDate: 60))
        #expect(try value("%d + %d", nil, Int.max, 1) as? Double != nil)
    }

    @Test func bitwiseOperators() throws {
        // Below arithmetic, in C's order: & binds tighter than ^, which binds tighter than |.
        #expect(try value("6 & 3 + 1") as? Int == 4)
        #expect(try value("1 | 2 ^ 6 & 3") as? Int == 1)
        #expect(try value("(1 | 2) ^ 6") as? Int == 5)
        #expect(try value("~0") as? Int == -1)
        #expect(try value("~-a", ["a": 1]) as? Int == 0)
        #expect(try value("a & 4", ["a": Int16(5)]) as? Int == 4)
        #expect(try value("a | 1", ["a": 2.5]) == nil, "bitwise operators take integers")
        let predicate = try NSPredicate.parse(format: "flags & %d != 0 || flags ^ 1 == 0", argumentArray: [2])
        #expect(predicate.predicateFormat == "flags & 2 != 0 OR flags ^ 1 == 0")
        #expect(NSPredicate(format: predicate.predicateFormat) == predicate)
        #expect(NSExpression(format: "(a | b) & c").description == "(a | b) & c")
        #expect(NSExpression(format: "a | b & c").description == "a | b & c")
        #expect(NSExpression(format: "(a + 1) & -2").description == "a + 1 & (-2)")
        #expect(NSExpression(format: "~a").description == "onesComplement:(a)")
    }

    @Test func functions() throws {
        #expect(try value("sum({1, 2, 3.5})") as? Double == 6.5)
        #expect(try value("count({1, 2, 3})") as? Int == 3)
        #expect(try value("min({3, 1, 2})") as? Int == 1)
        #expect(try value("max({3, 1, 2})") as? Int == 3)
        #expect(try value("average({1, 2, 3, 4})") as? Double == 2.5)
        #expect(try value("median({5, 1, 3})") as? Double == 3)
        #expect(try value("stddev({2, 4, 4, 4, 5, 5, 7, 9})") as? Double == 2)
        #expect(try (value("mode({1, 2, 2, 3})") as? [Any?])?.first as? Double == 2)
        #expect(try value("sqrt(16)") as? Double == 4)
        #expect(try value("log(100)") as? Double == 2)
        #expect(try value("ln(1)") as? Double == 0)
        #expect(try value("exp(0)") as? Double == 1)
        #expect(try value("ceiling(1.2)") as? Double == 2)
        #expect(try value("floor(1.8)") as? Double == 1)
        #expect(try value("trunc(-1.8)") as? Double == -1)
        #expect(try value("abs(-4)") as? Int == 4)
        #expect(try value("modulus:by:(10, 3)") as? Int == 1)
        #expect(try value("raise:toPower:(2, 3)") as? Double == 8)
        #expect(try value("bitwiseAnd:with:(6, 3)") as? Int == 2)
        #expect(try value("bitwiseOr:with:(6, 3)") as? Int == 7)
        #expect(try value("bitwiseXor:with:(6, 3)") as? Int == 5)
        #expect(try value("leftshift:by:(1, 4)") as? Int == 16)
        #expect(try value("rightshift:by:(16, 4)") as? Int == 1)
        #expect(try value("onesComplement(0)") as? Int == -1)
        #expect(try value("uppercase('abc')") as? String == "ABC")
        #expect(try value("lowercase:('ABC')") as? String == "abc")
        #expect(try value("length('héllo')") as? Int == 5)
        #expect(try value("now()") is Date)
        #expect(try (value("random()") as? Double).map { $0 >= 0 && $0 < 1 } == true)
        #expect(try (value("random(5)") as? Int).map { (0..<5).contains($0) } == true)
        #expect(try value("noindex(3)") as? Int == 3)
        #expect(try value("CAST(a, 'NSNumber')", ["a": "12"]) as? Int == 12)
        #expect(try value("CAST(a, 'NSDate')", ["a": 5]) as? Date == Date(timeIntervalSinceReferenceDate: 5))
        #expect(try value("FUNCTION(SELF, 'anything')", 1) == nil)
    }

    @Test func keyPathsIndexesAndOperators() throws {
        let object: [String: Any] = [
            "list": [10, 20, 30], "set": Set([1, 2]), "inner": ["k": "v"], "people": [["age": 3], ["age": 5]],
        ]
        #expect(try value("list[0]", object) as? Int == 10)
        #expect(try value("list[LAST]", object) as? Int == 30)
        #expect(try value("list[5]", object) == nil)
        #expect(try value("list[SIZE]", object) as? Int == 3)
        #expect(try value("set[SIZE]", object) as? Int == 2)
        #expect(try value("inner['k']", object) as? String == "v")
        #expect(try value("inner.k", object) as? String == "v")
        #expect(try value("people.@sum.age", object) as? Int == 8)
        #expect(try value("people.@avg.age", object) as? Double == 4)
        #expect(try (value("people.age", object) as? [Any?])?.count == 2)
        #expect(try value("list.@count", object) as? Int == 3)
        #expect(try value("SELF", 5) as? Int == 5)
        #expect(try value("missing.deeper", object) == nil)
    }

    @Test func expressionFormatting() {
        #expect(NSExpression(format: "a + b * c").description == "a + b * c")
        #expect(NSExpression(format: "(a + b) * c").description == "(a + b) * c")
        #expect(NSExpression(forFunction: "now", arguments: []).description == "now()")
        #expect(NSExpression(forConstantValue: "q\"").description == "\"q\\\"\"")
        #expect(NSExpression(forConstantValue: [1, "a"]).description == "{1, \"a\"}")
        #expect(NSExpression(forKeyPath: "order.in").description == "order.#in")
        #expect(NSExpression(forVariable: "x").description == "$x")
        #expect(NSExpression(format: "%@", nil).description == "nil")
    }

    @Test func malformedFormatTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = NSPredicate(format: "a ==")
        }
        await #expect(processExitsWith: .failure) {
            _ = NSExpression(format: "1 +")
        }
        await #expect(processExitsWith: .failure) {
            _ = NSComparisonPredicate(format: "a == 1 OR b == 2")
        }
    }
}
