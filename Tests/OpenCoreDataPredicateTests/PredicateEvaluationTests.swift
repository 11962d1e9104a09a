import Testing
@testable import OpenCoreDataPredicate

// MARK: Fixtures

/// A small object graph reached through `KeyValueCoding`.
final class Department: KeyValueCoding {
    let name: String
    var employees: [Employee] = []
    init(name: String) { self.name = name }
    func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "employees": return employees
        default: return nil
        }
    }
}

final class Employee: KeyValueCoding {
    let name: String
    let salary: Int
    let nickname: String?
    let tags: Set<String>
    weak var department: Department?
    init(name: String, salary: Int, nickname: String? = nil, tags: Set<String> = []) {
        self.name = name
        self.salary = salary
        self.nickname = nickname
        self.tags = tags
    }
    func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "salary": return salary
        case "nickname": return nickname
        case "tags": return tags
        case "department": return department
        default: return nil
        }
    }
}

/// A stand-in for a managed object and its object ID.
struct IdentifiedThing: ObjectIdentityComparable {
    let id: Int
    let payload: String
    var comparisonIdentity: AnyHashable { id }
}

func makeDepartment() -> Department {
    let department = Department(name: "Engineering")
    department.employees = [
        Employee(name: "Ada", salary: 120, nickname: "Countess", tags: ["math", "swift"]),
        Employee(name: "Grace", salary: 150, tags: ["cobol"]),
        Employee(name: "Linus", salary: 90),
    ]
    for employee in department.employees { employee.department = department }
    return department
}

/// Parses and evaluates in one step, failing the test on a parse error.
func check(_ format: String, _ object: Any?, _ args: Any?...) throws -> Bool {
    try NSPredicate.parse(format: format, argumentArray: args).evaluate(with: object)
}

// MARK: Tests

@Suite struct PredicateEvaluationTests {
    let person: [String: Any] = [
        "name": "Zoë", "age": 42, "height": 1.8, "nickname": NSNull(),
        "tags": ["swift", "linux"], "scores": [3, 5, 8], "empty": [Int](),
        "born": Date(timeIntervalSinceReferenceDate: 0),
        "id": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        "home": URL(string: "https://example.com")!, "blob": Data([1, 2, 3]),
        "address": ["city": "Zürich", "zip": 8000],
    ]

    @Test func comparisonOperatorsOnNumbers() throws {
        #expect(try check("age == 42", person))
        #expect(try check("age = 42", person))
        #expect(try check("age != 41", person))
        #expect(try check("age <> 41", person))
        #expect(try check("age < 43", person))
        #expect(try !check("age < 42", person))
        #expect(try check("age <= 42", person))
        #expect(try check("age =< 42", person))
        #expect(try check("age > 41", person))
        #expect(try check("age >= 42", person))
        #expect(try check("age => 42", person))
        #expect(try check("age BETWEEN {40, 42}", person))
        #expect(try !check("age BETWEEN {43, 50}", person))
        #expect(try check("age IN {1, 42}", person))
        #expect(try check("height > 1.5", person))
    }

    @Test func numbersCompareAcrossTypes() throws {
        #expect(try check("SELF == %@", 42, 42.0))
        #expect(try check("SELF == %@", NSNumber(value: 42), Int8(42)))
        #expect(try check("SELF == %@", Decimal(string: "1.5")!, 1.5))
        #expect(try check("SELF < %@", UInt64.max, Float(1e30)))
        #expect(try check("SELF == 1", true))
        #expect(try check("SELF == YES", NSNumber(value: true)))
        #expect(try check("SELF > %@", Int64(5), UInt8(4)))
        #expect(try !check("SELF == '42'", 42))
    }

    @Test func stringOperatorsAndOptions() throws {
        #expect(try check("name == 'Zoë'", person))
        #expect(try !check("name == 'zoë'", person))
        #expect(try check("name ==[c] 'zoë'", person))
        #expect(try !check("name ==[c] 'zoe'", person))
        #expect(try check("name ==[cd] 'ZOE'", person))
        #expect(try check("name ==[d] 'Zoe'", person))
        #expect(try check("name !=[c] 'bob'", person))
        #expect(try check("name BEGINSWITH 'Zo'", person))
        #expect(try check("name BEGINSWITH[c] 'zo'", person))
        #expect(try !check("name BEGINSWITH ''", person))
        #expect(try check("name ENDSWITH 'ë'", person))
        #expect(try check("name ENDSWITH[d] 'e'", person))
        #expect(try check("name CONTAINS 'o'", person))
        #expect(try check("name CONTAINS[cd] 'OE'", person))
        #expect(try check("name LIKE 'Z*'", person))
        #expect(try check("name LIKE 'Z?ë'", person))
        #expect(try !check("name LIKE 'Z?'", person))
        #expect(try check("name LIKE[cd] 'z*e'", person))
        #expect(try check("name MATCHES 'Z.ë'", person))
        #expect(try !check("name MATCHES 'Z'", person))
        #expect(try check("name MATCHES[c] 'z.Ë'", person))
        #expect(try check("name MATCHES[cd] '[a-z]+'", person))
        #expect(try check("name < 'a'", person))
        #expect(try check("name >[c] 'a'", person))
        #expect(try check("name IN {'x', 'Zoë'}", person))
        #expect(try check("name IN[c] {'x', 'zoË'}", person))
        #expect(try check("name IN 'Hi Zoë!'", person))
        #expect(try check("name IN[cd] 'hi zoe!'", person))
        #expect(try check("name BETWEEN {'A', 'Zz'}", person))
        #expect(try check("name ==[n] 'Zoë'", person))
    }

    @Test func likeEdgeCases() {
        #expect(StringMatching.like("abc", pattern: "*", options: []))
        #expect(StringMatching.like("", pattern: "*", options: []))
        #expect(!StringMatching.like("", pattern: "?", options: []))
        #expect(StringMatching.like("a*c", pattern: "a\\*c", options: []))
        #expect(!StringMatching.like("abc", pattern: "a\\*c", options: []))
        #expect(StringMatching.like("mississippi", pattern: "*sip*", options: []))
        #expect(StringMatching.like("mississippi", pattern: "m*i*s*i", options: []))
        #expect(!StringMatching.like("mississippi", pattern: "m*x*", options: []))
    }

    @Test func nilRules() throws {
        #expect(try check("nickname == nil", person))
        #expect(try check("nickname == NULL", person))
        #expect(try check("missing == nil", person))
        #expect(try !check("name == nil", person))
        #expect(try check("name != nil", person))
        #expect(try !check("nickname < 5", person))
        #expect(try !check("nickname > 5", person))
        #expect(try !check("nickname >= 5", person))
        #expect(try !check("nickname BETWEEN {1, 2}", person))
        #expect(try !check("nickname BEGINSWITH 'a'", person))
        #expect(try !check("nickname IN {1, 2}", person))
        #expect(try check("nil == nil", nil))
        #expect(try check("SELF == nil", nil))
        #expect(try check("SELF == nil", NSNull()))
    }

    @Test func modifiersOnEmptyCollections() throws {
        #expect(try check("ALL empty > 5", person))
        #expect(try !check("ANY empty > 5", person))
        #expect(try check("NONE empty > 5", person))
        #expect(try !check("SOME empty > 5", person))
    }

    @Test func modifiersOnCollections() throws {
        #expect(try check("ANY scores == 5", person))
        #expect(try check("SOME scores > 7", person))
        #expect(try !check("ALL scores > 3", person))
        #expect(try check("ALL scores >= 3", person))
        #expect(try check("NONE scores > 8", person))
        #expect(try !check("NONE scores == 8", person))
        #expect(try check("ANY tags BEGINSWITH[c] 'SW'", person))
        #expect(try check("ALL tags IN {'swift', 'linux', 'go'}", person))
    }

    @Test func inAndContainsOverCollections() throws {
        #expect(try check("tags CONTAINS 'swift'", person))
        #expect(try check("tags CONTAINS[c] 'LINUX'", person))
        #expect(try !check("tags CONTAINS 'go'", person))
        #expect(try check("'swift' IN tags", person))
        #expect(try check("8000 IN address", person))
        #expect(try check("address CONTAINS 'Zürich'", person))
        #expect(try check("SELF IN %@", 2, Set([1, 2])))
        #expect(try check("SELF IN %@", 2, NSSet(array: [1, 2])))
        #expect(try check("SELF IN %@", 2, NSOrderedSet(array: [1, 2])))
        #expect(try check("SELF IN %@", 2, NSArray(array: [1, 2])))
        #expect(try !check("SELF IN %@", 3, [1, 2]))
        #expect(try !check("SELF IN %@", 3, nil))
    }

    @Test func otherValueTypes() throws {
        #expect(try check("born == %@", person, Date(timeIntervalSinceReferenceDate: 0)))
        #expect(try check("born < %@", person, Date(timeIntervalSinceReferenceDate: 10)))
        #expect(try check("born == CAST(0, 'NSDate')", person))
        #expect(try check("born < CAST('2001-01-02T00:00:00Z', 'NSDate')", person))
        #expect(try check("id == %@", person, UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(try check("id == CAST('E621E1F8-C36C-495A-93FC-0C247A3E6E5F', 'NSUUID')", person))
        #expect(try check("home == %@", person, URL(string: "https://example.com")!))
        #expect(try check("blob == %@", person, Data([1, 2, 3])))
        #expect(try check("blob < %@", person, Data([1, 2, 4])))
        #expect(try check("address.city ==[d] 'Zurich'", person))
        #expect(try check("address.zip > 7999", person))
    }

    @Test func keyValueCodingObjectsAndToManyKeyPaths() throws {
        let department = makeDepartment()
        #expect(try check("name == 'Engineering'", department))
        #expect(try check("ANY employees.name == 'Ada'", department))
        #expect(try !check("ANY employees.name == 'Bob'", department))
        #expect(try check("ALL employees.salary >= 90", department))
        #expect(try check("employees.name CONTAINS 'Grace'", department))
        #expect(try check("ANY employees.tags == 'cobol'", department))
        #expect(try check("ANY employees.nickname == nil", department))
        #expect(try check("department.name == 'Engineering'", department.employees[0]))
        #expect(try check("'Linus' IN employees.name", department))
        #expect(try check("unknownKey == nil", department))
    }

    @Test func collectionOperators() throws {
        let department = makeDepartment()
        #expect(try check("employees.@count == 3", department))
        #expect(try check("employees.@sum.salary == 360", department))
        #expect(try check("employees.@avg.salary == 120", department))
        #expect(try check("employees.@min.salary == 90", department))
        #expect(try check("employees.@max.salary == 150", department))
        #expect(try check("employees.@max.name == 'Linus'", department))
        #expect(try check("scores.@sum == 16", person))
        #expect(try check("scores.@count == 3", person))
        #expect(try check("empty.@count == 0", person))
        #expect(try check("empty.@sum == 0", person))
        #expect(try check("empty.@avg == nil", person))
        #expect(try check("tags.@count == 2", person))
        let values =
            KeyPathEvaluation.value(forKeyPath: "@distinctUnionOfObjects.x", of: [["x": 1], ["x": 2], ["x": 1]])
            as? [Any?]
        #expect(values?.count == 2)
        let all = KeyPathEvaluation.value(forKeyPath: "@unionOfObjects.x", of: [["x": 1], ["x": 1]]) as? [Any?]
        #expect(all?.count == 2)
    }

    /// The union operators through parsed predicates: the key after the operator is read
    /// from each element (of each inner collection for the `…OfArrays`/`…OfSets` ones).
    @Test func unionOperatorsInParsedPredicates() throws {
        let shelf: [String: Any] = [
            "groups": [[["x": 1], ["x": 2]], [["x": 2], ["x": 3]]],
            "sets": [Set([1, 2]), Set([2, 3])],
            "people": [["x": 1], ["x": 1], ["x": 2], ["y": 5]],
        ]
        #expect(try check("groups.@unionOfArrays.x[SIZE] == 4", shelf))
        #expect(try check("groups.@distinctUnionOfArrays.x[SIZE] == 3", shelf))
        #expect(try check("ANY groups.@unionOfArrays.x == 3", shelf))
        #expect(try check("ALL groups.@distinctUnionOfArrays.x IN {1, 2, 3}", shelf))
        #expect(try check("sets.@distinctUnionOfSets[SIZE] == 3 AND 3 IN sets.@distinctUnionOfSets", shelf))
        #expect(try check("people.@unionOfObjects.x[SIZE] == 3", shelf))
        #expect(try check("people.@distinctUnionOfObjects.x[SIZE] == 2", shelf))
        #expect(try check("NONE people.@unionOfObjects.x == nil", shelf))
        #expect(try !check("5 IN people.@distinctUnionOfObjects.x", shelf))
        func values(_ keyPath: String) -> [Int] {
            (NSExpression(forKeyPath: keyPath).expressionValue(with: shelf, context: nil) as? [Any?] ?? []).compactMap {
                $0 as? Int
            }
        }
        #expect(values("groups.@unionOfArrays.x") == [1, 2, 2, 3])
        #expect(values("groups.@distinctUnionOfArrays.x").sorted() == [1, 2, 3])
        #expect(values("sets.@distinctUnionOfSets").sorted() == [1, 2, 3])
        #expect(values("people.@unionOfObjects.x") == [1, 1, 2])
        #expect(values("people.@distinctUnionOfObjects.x").sorted() == [1, 2])
    }

    /// MATCHES covers the whole string (`$` alone also matches before a final newline);
    /// `length` is NSString's, in UTF-16 units, as a function and as a key.
    @Test func matchesAnchoringAndLengthUnits() throws {
        #expect(try !check("SELF MATCHES 'abc'", "abc\n"))
        #expect(try check("SELF MATCHES 'abc\\n'", "abc\n"))
        #expect(try check("SELF MATCHES 'a|abc'", "abc"))
        #expect(try !check("SELF MATCHES 'b'", "abc"))
        // An invalid pattern matches nothing, even where anchoring would make it compile.
        #expect(try !check("SELF MATCHES 'a)(b'", "ab"))
        #expect(try !check("SELF MATCHES '('", "("))
        // The same pattern, compiled once and cached, keeps its options apart.
        #expect(try check("SELF MATCHES[c] 'ABC'", "abc"))
        #expect(try !check("SELF MATCHES 'ABC'", "abc"))
        #expect(try check("length(SELF) == 4 AND SELF.length == 4", "👍🏽"))
        #expect(try check("length(SELF) == 2 AND SELF.length == 2", "e\u{301}"))
        #expect(try check("length(name) == name.length", ["name": "🇨🇭 Zürich"]))
    }

    @Test func subqueries() throws {
        let department = makeDepartment()
        #expect(try check("SUBQUERY(employees, $e, $e.salary > 100).@count == 2", department))
        #expect(
            try check("SUBQUERY(employees, $e, $e.salary > 100 AND $e.name BEGINSWITH 'G').@count == 1", department))
        #expect(try check("SUBQUERY(employees, $e, ANY $e.tags == 'swift')[SIZE] == 1", department))
        #expect(try check("SUBQUERY(employees, $e, $e.salary > 1000).@count == 0", department))
        #expect(try check("SUBQUERY(scores, $s, $s > 4).@count == 2", person))
    }

    @Test func compoundPredicates() throws {
        #expect(try check("age > 40 AND name BEGINSWITH 'Z'", person))
        #expect(try check("age > 50 OR name BEGINSWITH 'Z'", person))
        #expect(try check("age > 50 || age == 42 && name == 'Zoë'", person))
        #expect(try check("NOT age > 50", person))
        #expect(try check("!(age > 50)", person))
        #expect(try !check("NOT (age > 40 AND age < 50)", person))
        #expect(try check("TRUEPREDICATE", nil))
        #expect(try !check("FALSEPREDICATE", nil))
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: []).evaluate(with: nil))
        #expect(!NSCompoundPredicate(orPredicateWithSubpredicates: []).evaluate(with: nil))
    }

    @Test func arithmeticAndFunctionsInComparisons() throws {
        #expect(try check("age + 8 == 50", person))
        #expect(try check("age * 2 - 4 == 80", person))
        #expect(try check("(age - 2) / 4 == 10", person))
        #expect(try check("2 ** 3 ** 2 == 512", nil))
        #expect(try check("-age == -42", person))
        #expect(try check("uppercase(name) == 'ZOË'", person))
        #expect(try check("lowercase:(name) == 'zoë'", person))
        #expect(try check("sum(scores) == 16", person))
        #expect(try check("max:(scores) == 8", person))
        #expect(try check("abs(-3) == 3", nil))
        #expect(try check("now() > CAST(0, 'NSDate')", nil))
        #expect(try check("scores[FIRST] == 3 AND scores[LAST] == 8 AND scores[1] == 5 AND scores[SIZE] == 3", person))
        #expect(try check("address['city'] == 'Zürich'", person))
        #expect(try check("TERNARY(age > 18, 'adult', 'minor') == 'adult'", person))
    }

    @Test func substitutionVariables() throws {
        let template = try NSPredicate.parse(format: "age > $minimum AND name IN $names")
        #expect(template.evaluate(with: person, substitutionVariables: ["minimum": 40, "names": ["Zoë"]]))
        #expect(!template.evaluate(with: person, substitutionVariables: ["minimum": 50, "names": ["Zoë"]]))
        let bound = template.withSubstitutionVariables(["minimum": 40, "names": ["Zoë"]])
        #expect(bound.predicateFormat == "age > 40 AND name IN {\"Zoë\"}")
        #expect(bound.evaluate(with: person))
        #expect(bound is NSCompoundPredicate)
        let partial = template.withSubstitutionVariables(["minimum": 1])
        #expect(partial.predicateFormat == "age > 1 AND name IN $names")
    }

    @Test func objectIdentityComparison() throws {
        let a = IdentifiedThing(id: 1, payload: "object")
        let b = IdentifiedThing(id: 1, payload: "object ID")
        let c = IdentifiedThing(id: 2, payload: "object")
        #expect(try check("SELF == %@", a, b))
        #expect(try !check("SELF == %@", a, c))
        #expect(try check("SELF IN %@", a, [c, b]))
    }

    @Test func blockPredicates() {
        let predicate = NSPredicate { object, bindings in
            (object as? Int ?? 0) > (bindings?["limit"] as? Int ?? 0)
        }
        #expect(predicate.evaluate(with: 5, substitutionVariables: ["limit": 3]))
        #expect(!predicate.evaluate(with: 5, substitutionVariables: ["limit": 7]))
        #expect(predicate.predicateFormat.hasPrefix("BLOCKPREDICATE("))
        #expect(NSPredicate(value: true).evaluate(with: nil))
    }

    @Test func reusableEntryPoints() {
        #expect(ValueComparison.compare(1, 2.5) == .orderedAscending)
        #expect(ValueComparison.compare("b", "A", options: .caseInsensitive) == .orderedDescending)
        #expect(ValueComparison.compare(nil, 1) == nil)
        #expect(ValueComparison.compare("1", 1) == nil)
        #expect(ValueComparison.equals("É", "e", options: [.caseInsensitive, .diacriticInsensitive]))
        #expect(StringMatching.fold("ÀÉÎ", options: [.caseInsensitive, .diacriticInsensitive]) == "aei")
        #expect(PredicateEvaluator.compare("abc", .beginsWith, "AB", options: .caseInsensitive))
        #expect(PredicateEvaluator.compare(3, .between, [1, 3], options: []))
    }
}
