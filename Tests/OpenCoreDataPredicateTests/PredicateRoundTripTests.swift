import Testing
@testable import OpenCoreDataPredicate

@Suite struct PredicateRoundTripTests {
    static let formats: [String] = [
        "name == 'x'", "name = \"x\"", "age != 3", "age <> 3", "age < 3", "age <= 3", "age =< 3",
        "age > 3", "age >= 3", "age => 3", "age BETWEEN {1, 10}", "age IN {1, 2, 3}",
        "name CONTAINS 'a'", "name BEGINSWITH 'a'", "name ENDSWITH 'a'", "name LIKE 'a*b?'",
        "name MATCHES '[a-z]+\\\\d'", "name ==[c] 'a'", "name ==[d] 'a'", "name ==[cd] 'a'", "name ==[n] 'a'",
        "name LIKE[cd] 'a*'", "name MATCHES[c] 'a.*'", "name IN[c] {'a', 'b'}", "name BEGINSWITH[cd] 'é'",
        "ANY tags == 'x'", "SOME tags == 'x'", "ALL tags != 'x'", "NONE tags == 'x'",
        "a == 1 AND b == 2", "a == 1 && b == 2 && c == 3", "a == 1 OR b == 2", "a == 1 || b == 2 AND c == 3",
        "(a == 1 OR b == 2) AND c == 3", "a == 1 AND (b == 2 AND c == 3)", "NOT a == 1", "!(a == 1 OR b == 2)",
        "NOT NOT a == 1", "TRUEPREDICATE", "FALSEPREDICATE", "TRUEPREDICATE AND FALSEPREDICATE",
        "SUBQUERY(employees, $e, $e.salary > 10 AND $e.name BEGINSWITH 'A').@count > 0",
        "SUBQUERY(items, $i, ANY $i.tags == 'x')[SIZE] == 2",
        "employees.@count == 3", "employees.@sum.salary > 100", "employees.@avg.salary > 1", "employees.@min.age < 3",
        "employees.@max.age < 3", "employees.@distinctUnionOfObjects.name CONTAINS 'x'", "SELF == 3",
        "SELF.name == 'x'",
        "list[FIRST] == 1", "list[LAST] == 1", "list[SIZE] == 1", "list[0] == 1", "dict['key'] == 1", "a.b.c == 1",
        "'x' == nil", "a == nil", "a == NULL", "a == YES", "a == NO", "a == TRUE", "a == FALSE",
        "a == 0x1F", "a == 0o17", "a == 0b101", "a == 1.5", "a == 1e3", "a == -2", "a == -2.5", "a == 1.5e-7",
        "a == 'it\\'s'", "a == \"quote\\\"d\"", "a == 'tab\\tnew\\nline'", "a == '\\u00e9'", "a == 'back\\\\slash'",
        "a IN {}", "a IN {{1, 2}, {3}}", "a == CAST(0, 'NSDate')", "a < CAST(123456.789, 'NSDate')",
        "a == CAST('E621E1F8-C36C-495A-93FC-0C247A3E6E5F', 'NSUUID')", "a == CAST('https://x.org/a', 'NSURL')",
        "a == CAST('AQID', 'NSData')", "a == CAST('42', 'NSNumber')", "CAST(a, 'NSNumber') > 3",
        "CAST(d, 'NSDate') > 3",
        "a + b == 3", "a - b - c == 3", "a - (b - c) == 3", "a * b + c == 3", "a * (b + c) == 3", "a / b / c == 1",
        "a ** 2 ** 3 == 1", "(a ** 2) ** 3 == 1", "-a == 3", "a - -2 == 3", "(a + b).c == 3", "-2 * a == 1",
        "now() > a", "lowercase(name) == 'x'", "uppercase:(name) == 'X'", "abs(a) == 1", "sum({1, 2, 3}) == 6",
        "sum(a.b) > 1", "count({1, 2}) == 2", "min:({1, 2}) == 1", "max(scores) > 1", "average(scores) > 1",
        "add:to:(a, 2) == 3", "from:subtract:(a, 2) == 3", "sqrt(a) > 1", "random() < 2", "length(name) > 2",
        "FUNCTION(SELF, 'customMethod:', 3) == 1", "FUNCTION(a, 'go') == nil",
        "$var == 1", "a == $var", "$x.name == 'y'", "TERNARY(a > 1, 'big', 'small') == 'big'",
        "a UNION b CONTAINS 1", "a INTERSECT b CONTAINS 1", "a MINUS b CONTAINS 1", "(a UNION b) MINUS c CONTAINS 1",
        "#in == 1", "#size.#first == 1", "aNy Tags == 'x' and NOT name like[c] 'x*'", "truepredicate",
        "ANYKEY == 'x'", "a.@count.b == 1", "nil == nil", "{1, 2} CONTAINS 1", "'abc' CONTAINS 'b'",
    ]

    @Test(arguments: formats)
    func formatRoundTrips(_ format: String) throws {
        let predicate = try NSPredicate.parse(format: format)
        let reparsed = try NSPredicate.parse(format: predicate.predicateFormat)
        #expect(reparsed == predicate, "\(format) -> \(predicate.predicateFormat) -> \(reparsed.predicateFormat)")
        #expect(reparsed.hash == predicate.hash)
        #expect(reparsed.predicateFormat == predicate.predicateFormat)
    }

    @Test func canonicalOutput() throws {
        let cases: [(String, String)] = [
            ("name = 'x'", "name == \"x\""),
            ("age <> 3", "age != 3"),
            ("age =< 3", "age <= 3"),
            ("age => 3", "age >= 3"),
            ("a == 1 && b == 2 || c == 3", "(a == 1 AND b == 2) OR c == 3"),
            ("NONE tags == 'x'", "NOT ANY tags == \"x\""),
            ("SOME tags ==[cd] 'x'", "ANY tags ==[cd] \"x\""),
            ("a - (b - c) == 1", "a - (b - c) == 1"),
            ("(a - b) - c == 1", "a - b - c == 1"),
            ("a * (b + c) == 1", "a * (b + c) == 1"),
            ("SELF.name == 1", "name == 1"),
            ("#in == 1", "#in == 1"),
            ("lowercase(name) == 'x'", "lowercase:(name) == \"x\""),
            ("a == YES", "a == YES"),
            ("a == 0x10", "a == 16"),
            ("a IN {1, 'b', nil}", "a IN {1, \"b\", nil}"),
            ("a == CAST(10, 'NSDate')", "a == CAST(10.0, \"NSDate\")"),
            ("list[first] == 1", "list[FIRST] == 1"),
            ("SUBQUERY(x, $y, $y.z == 1).@count == 0", "SUBQUERY(x, $y, $y.z == 1).@count == 0"),
        ]
        for (input, expected) in cases {
            #expect(try NSPredicate.parse(format: input).predicateFormat == expected)
        }
    }

    @Test func formatArgumentsRoundTrip() throws {
        let predicate = try NSPredicate.parse(
            format: "%K IN %@ AND date > %@ AND id == %@",
            argumentArray: ["a.b", [1, 2], Date(timeIntervalSinceReferenceDate: 12.5), UUID()])
        let reparsed = try NSPredicate.parse(format: predicate.predicateFormat)
        #expect(reparsed == predicate)
    }

    @Test func builtPredicatesPrint() {
        let comparison = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "name"),
            rightExpression: NSExpression(forConstantValue: "Ada"),
            modifier: .any, type: .beginsWith, options: [.caseInsensitive, .diacriticInsensitive])
        #expect(comparison.predicateFormat == "ANY name BEGINSWITH[cd] \"Ada\"")
        let compound = NSCompoundPredicate(orPredicateWithSubpredicates: [comparison, NSPredicate(value: false)])
        #expect(compound.predicateFormat == "ANY name BEGINSWITH[cd] \"Ada\" OR FALSEPREDICATE")
        #expect(
            NSCompoundPredicate(notPredicateWithSubpredicate: compound).predicateFormat
                == "NOT (ANY name BEGINSWITH[cd] \"Ada\" OR FALSEPREDICATE)")
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: []).predicateFormat == "TRUEPREDICATE")
        #expect(comparison.description == comparison.predicateFormat)
    }
}
