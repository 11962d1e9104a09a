import OpenCoreData
import OpenCoreDataTestSupport

// Random predicates over the photo library (PhotoLibraryFixture), for the suites that check
// a store's fetches against in-memory evaluation, on every engine.

/// What the generator may say about one entity. In paths, `{}` stands for the base
/// (nothing, or `$x.` inside a SUBQUERY) and `{S}` for the object itself.
public struct EntityVocabulary: Sendable {
    let entity: String
    var strings: [String] = []
    var numbers: [String] = []
    var dates: [String] = []
    var uuids: [String] = []
    /// Single objects and their entity.
    var objects: [(String, String)] = []
    var stringCollections: [String] = []
    var numberCollections: [String] = []
    var objectCollections: [(String, String)] = []
    /// Collections of objects a SUBQUERY can iterate, and their entity.
    var subqueries: [(String, String)] = []

    static let all: [String: EntityVocabulary] = [
        "Photo": EntityVocabulary(
            entity: "Photo",
            strings: [
                "{}title", "{}whoTook.name", "{}tags[FIRST].name", "{}tags[LAST].name", "lowercase({}title)",
                "uppercase({}whoTook.name)",
                "TERNARY({}views > 10, {}title, {}whoTook.name)", "CAST({}views, 'NSString')",
                "{}whoTook.photos[FIRST].title",
            ],
            numbers: [
                "{}views", "{}rating", "{}isPublic", "{}whoTook.rating", "{}tags.@count", "{}tags[SIZE]",
                "{}whoTook.photos.@count",
                "{}whoTook.photos.@sum.views", "{}whoTook.photos.@avg.rating", "{}whoTook.photos.@max.views",
                "{}whoTook.photos.rating.@min",
                "{}views + 1", "{}views * {}rating", "{}views / 4", "-{}views", "abs({}views)", "{}views ** 2",
                "length({}title)",
                "{}title.length", "{}tags.@sum.weight", "{}tags.@max.weight", "{}tags.@avg.weight",
                "{}whoTook.favorites.@count",
                "sum:({}tags.weight)", "count:({}tags.name)", "max:({}tags.weight)", "{}whoTook.@count",
                "{}whoTook.photos.tags.@count",
                "{}tags[1].weight", "{}views - {}whoTook.rating",
                "SUBQUERY({}tags, $q, $q.name BEGINSWITH[c] 'n').@count",
            ],
            dates: [
                "{}uploadDate", "{}whoTook.born", "{}uploadDate + 3600", "CAST({}views, 'NSDate')",
                "{}whoTook.photos.@max.uploadDate",
                "{}whoTook.born - 100", "{}tags.photos.@min.uploadDate",
            ],
            uuids: ["{}uuid"],
            objects: [
                ("{S}", "Photo"), ("{}whoTook", "Photographer"), ("{}tags[FIRST]", "Tag"),
                ("{}whoTook.photos[LAST]", "Photo"),
            ],
            stringCollections: [
                "{}tags.name", "{}whoTook.photos.title", "{}tags.photos.title", "{}whoTook.favorites.name",
                "{}whoTook.photos.tags.name", "SUBQUERY({}tags, $q, $q.weight > 1).name", "{}tags.photos.whoTook.name",
            ],
            numberCollections: [
                "{}tags.weight", "{}whoTook.photos.views", "{}whoTook.photos.rating", "{}tags.photos.views",
                "{}tags.@count",
            ],
            objectCollections: [
                ("{}tags", "Tag"), ("{}whoTook.photos", "Photo"), ("{}whoTook.favorites", "Tag"),
                ("{}tags.photos", "Photo"),
                ("{}tags.photos.whoTook", "Photographer"),
            ],
            subqueries: [("{}tags", "Tag"), ("{}whoTook.photos", "Photo")]
        ),
        "Photographer": EntityVocabulary(
            entity: "Photographer",
            strings: [
                "{}name", "{}photos[FIRST].title", "{}photos[LAST].title", "uppercase({}name)", "{}photos[2].title",
            ],
            numbers: [
                "{}rating", "{}active", "{}photos.@count", "{}photos.@sum.views", "{}photos.@avg.rating",
                "{}photos.@min.views",
                "{}favorites.@count", "{}photos.tags.@count", "{}rating * 2", "{}photos[SIZE]",
                "{}photos.@max.title.length",
                "{}favorites.@sum.weight",
            ],
            dates: ["{}born", "{}photos.@max.uploadDate", "{}photos.@min.uploadDate"],
            objects: [("{S}", "Photographer"), ("{}photos[FIRST]", "Photo")],
            stringCollections: ["{}photos.title", "{}favorites.name", "{}photos.tags.name"],
            numberCollections: ["{}photos.views", "{}photos.rating", "{}photos.tags.weight"],
            objectCollections: [("{}photos", "Photo"), ("{}favorites", "Tag"), ("{}photos.tags", "Tag")],
            subqueries: [("{}photos", "Photo"), ("{}favorites", "Tag")]
        ),
        "Tag": EntityVocabulary(
            entity: "Tag",
            strings: ["{}name", "lowercase({}name)"],
            numbers: ["{}weight", "{}photos.@count", "{}photos.@avg.views", "{}photos.@sum.rating"],
            dates: ["{}photos.@max.uploadDate"],
            objects: [("{S}", "Tag")],
            stringCollections: ["{}photos.title", "{}photos.whoTook.name"],
            numberCollections: ["{}photos.views", "{}photos.whoTook.rating"],
            objectCollections: [("{}photos", "Photo"), ("{}photos.whoTook", "Photographer")],
            subqueries: [("{}photos", "Photo")]
        ),
    ]
}

/// Builds random predicate formats (with `%@` arguments) from the vocabularies.
public struct PredicateGenerator {
    public var random: SplitMix64
    /// Objects and IDs that `%@` object arguments are drawn from, by entity.
    public let objects: [String: [NSManagedObject]]

    static let strings = [
        "Sunset", "sunset", "SUNSET", "café", "Cafe\u{301}", "cafe", "Ñandú", "nandu", "", "file10", "Résumé", "resume",
        "a", "n", "e", "Ansel Adams", "ansel", "Edouard Boubat", "Édouard Boubat", "nature", "NATURE", "city", "z",
        "zebra",
        "5", "120", "a*b?c", "Zoë Strauss",
    ]
    static let likePatterns = ["*un*", "S?nset", "*e", "café*", "a\\*b*", "*", "?", "*a*e*", "cafe*"]
    // Valid patterns only: an invalid one fails a store fetch, which cannot agree with memory
    // (StoreFetchTranslationTests.anInvalidRegularExpressionFailsTheFetch covers it).
    static let regexes = [".*e.*", "[A-Z].*", "S.*t", "(S|c).*", "caf.*", "café", "[a-z]+[0-9]+"]
    static var numbers: [Any] { [0, 1, 2, 3, 5, 7, 10, 42, 100, -1, 1.5, 2.5, 4.0, 1000, true, 4.75, 1.25] }
    static let dateOffsets: [Double] = [-86400, -3600, -100, 0, -1e9, -8.5e8, -7200, -60, 3600]
    static let stringOperators = [
        "==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
    ]
    static let orderOperators = ["==", "!=", "<", "<=", ">", ">="]
    static let optionSets = ["", "[c]", "[d]", "[cd]", "[n]", "[cn]"]

    public init(random: SplitMix64, objects: [String: [NSManagedObject]]) {
        self.random = random
        self.objects = objects
    }

    /// A random predicate format for `entity`, with its `%@` arguments.
    public mutating func predicate(for entity: String, depth: Int = 0, base: String = "") -> (String, [Any]) {
        if depth < 2, random.chance(25) {
            let count = 2 + random.below(2)
            var parts: [String] = []
            var arguments: [Any] = []
            for _ in 0..<count {
                let (format, args) = predicate(for: entity, depth: depth + 1, base: base)
                parts.append("(\(format))")
                arguments += args
            }
            let joined = parts.joined(separator: random.chance(50) ? " AND " : " OR ")
            return random.chance(25) ? ("NOT (\(joined))", arguments) : (joined, arguments)
        }
        let (format, arguments) = comparison(for: entity, depth: depth, base: base)
        return random.chance(12) ? ("NOT (\(format))", arguments) : (format, arguments)
    }

    private func fill(_ path: String, base: String) -> String {
        path.replacingOccurrences(of: "{S}", with: base.isEmpty ? "SELF" : String(base.dropLast()))
            .replacingOccurrences(of: "{}", with: base)
    }

    private mutating func stringConstant() -> (String, [Any]) {
        random.chance(8) ? ("nil", []) : ("%@", [random.pick(Self.strings)])
    }

    private mutating func numberConstant() -> (String, [Any]) {
        random.chance(8) ? ("nil", []) : ("%@", [random.pick(Self.numbers)])
    }

    private mutating func dateConstant() -> (String, [Any]) {
        if random.chance(8) { return ("nil", []) }
        return ("%@", [PhotoLibraryFixture.reference.addingTimeInterval(random.pick(Self.dateOffsets))])
    }

    private mutating func objectConstant(_ entity: String) -> (String, [Any]) {
        if random.chance(10) { return ("nil", []) }
        let object = random.pick(objects[entity]!)
        return ("%@", [random.chance(50) ? object : object.objectID])
    }

    private mutating func stringTest(_ operand: String) -> (String, [Any]) {
        let op = random.pick(Self.stringOperators + ["IN", "BETWEEN", "IN"])
        let options = random.pick(Self.optionSets)
        switch op {
        case "LIKE": return ("\(operand) LIKE\(options) %@", [random.pick(Self.likePatterns)])
        case "MATCHES": return ("\(operand) MATCHES\(options) %@", [random.pick(Self.regexes)])
        case "IN":
            if random.chance(40) { return ("\(operand) IN\(options) %@", ["Sunset over the café, Résumé nandu"]) }
            var members: [Any] = (0..<(1 + random.below(3))).map { _ in random.pick(Self.strings) }
            if random.chance(20) { members.append(NSNull()) }
            if random.chance(10) { members.append(5) }
            return ("\(operand) IN\(options) %@", [members])
        case "BETWEEN":
            let bounds = [random.pick(Self.strings), random.pick(Self.strings)].sorted()
            return ("\(operand) BETWEEN\(options) %@", [bounds])
        default:
            let (constant, arguments) = stringConstant()
            return ("\(operand) \(op)\(options) \(constant)", arguments)
        }
    }

    private enum ConstantKind { case number, date }

    private mutating func constant(_ kind: ConstantKind) -> (String, [Any]) {
        kind == .number ? numberConstant() : dateConstant()
    }

    private mutating func orderedTest(_ operand: String, _ kind: ConstantKind) -> (String, [Any]) {
        let op = random.pick(Self.orderOperators + ["BETWEEN", "IN"])
        switch op {
        case "BETWEEN":
            let (a, x) = constant(kind), (b, y) = constant(kind)
            return ("\(operand) BETWEEN {\(a), \(b)}", x + y)
        case "IN":
            let (a, x) = constant(kind), (b, y) = constant(kind)
            return ("\(operand) IN {\(a), \(b)}", x + y)
        default:
            let (c, arguments) = constant(kind)
            return random.chance(15) ? ("\(c) \(op) \(operand)", arguments) : ("\(operand) \(op) \(c)", arguments)
        }
    }

    private mutating func comparison(for entity: String, depth: Int, base: String) -> (String, [Any]) {
        let vocabulary = EntityVocabulary.all[entity]!
        switch random.below(15) {
        case 0, 1:
            return stringTest(fill(random.pick(vocabulary.strings), base: base))
        case 2, 3:
            let operand = fill(random.pick(vocabulary.numbers), base: base)
            return orderedTest(operand, .number)
        case 4:
            guard !vocabulary.dates.isEmpty else { fallthrough }
            let operand = fill(random.pick(vocabulary.dates), base: base)
            return orderedTest(operand, .date)
        case 5:
            // Two key paths of one kind, or (rarely) of kinds that never compare.
            let pools = [vocabulary.strings, vocabulary.numbers, vocabulary.dates].filter { !$0.isEmpty }
            let pool = random.pick(pools)
            let other = random.chance(15) ? random.pick(pools) : pool
            let op = random.pick(Self.orderOperators + ["BEGINSWITH", "CONTAINS"])
            return (
                "\(fill(random.pick(pool), base: base)) \(op)\(random.pick(Self.optionSets)) \(fill(random.pick(other), base: base))",
                []
            )
        case 6, 7:
            let quantifier = random.pick(["ANY", "ALL", "NONE", "SOME"])
            if random.chance(50) {
                let (test, arguments) = stringTest(fill(random.pick(vocabulary.stringCollections), base: base))
                return ("\(quantifier) \(test)", arguments)
            }
            let operand = fill(random.pick(vocabulary.numberCollections), base: base)
            let (test, arguments) = orderedTest(operand, .number)
            return ("\(quantifier) \(test)", arguments)
        case 8:
            let (path, target) = random.pick(vocabulary.objectCollections)
            let collection = fill(path, base: base)
            let (constant, arguments) = objectConstant(target)
            switch random.below(4) {
            case 0: return ("\(constant) IN \(collection)", arguments)
            case 1: return ("\(collection) CONTAINS \(constant)", arguments)
            case 2: return ("\(random.pick(["ANY", "ALL", "NONE"])) \(collection) == \(constant)", arguments)
            default:
                let (element, text) = (random.pick(Self.strings), random.pick(Self.optionSets))
                let names = vocabulary.stringCollections
                return ("%@ IN\(text) \(fill(random.pick(names), base: base))", [element])
            }
        case 9:
            let (path, target) = random.pick(vocabulary.objects)
            let operand = fill(path, base: base)
            if random.chance(35) {
                let members: [Any] = (0..<(1 + random.below(3))).map { _ in
                    let object = random.pick(objects[target]!)
                    return random.chance(50) ? object : object.objectID
                }
                return ("\(operand) IN %@", [members])
            }
            let (constant, arguments) = objectConstant(
                random.chance(10) ? random.pick(["Photo", "Tag", "Photographer"]) : target)
            return ("\(operand) \(random.pick(["==", "!="])) \(constant)", arguments)
        case 10, 11:
            guard depth < 2, base.count < 4 else { fallthrough }
            let (path, target) = random.pick(vocabulary.subqueries)
            let variable = base.isEmpty ? "$x" : "$y"
            let (inner, arguments) = predicate(for: target, depth: depth + 1, base: variable + ".")
            let count = random.below(3)
            return (
                "SUBQUERY(\(fill(path, base: base)), \(variable), \(inner)).@count \(random.pick(Self.orderOperators)) \(count)",
                arguments
            )
        case 12:
            if vocabulary.uuids.isEmpty { fallthrough }
            let uuid = UUID(
                uuidString: String(format: "%08X-0000-4000-8000-000000000000", random.pick([0, 3, 6, 9]) * 0x1111111))!
            return ("\(fill(vocabulary.uuids[0], base: base)) \(random.pick(Self.orderOperators)) %@", [uuid])
        case 13:
            // A single value under ANY/ALL counts as a one-element collection.
            let (test, arguments) = stringTest(fill(random.pick(vocabulary.strings), base: base))
            return ("\(random.pick(["ANY", "ALL"])) \(test)", arguments)
        default:
            let operand = fill(random.pick(vocabulary.strings + vocabulary.numbers), base: base)
            return ("\(operand) \(random.pick(["==", "!=", "<", ">="])) nil", [])
        }
    }
}
