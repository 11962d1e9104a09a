import Foundation
import OpenCoreData
import OpenCoreDataCore

/// Turns Foundation's `Predicate` (what `#Predicate` builds) and `SortDescriptor` into
/// OpenCoreData's `NSPredicate` and `NSSortDescriptor`, which the SQLite store runs in SQL.
///
/// SwiftData's predicates always run in the store here: a predicate that cannot be expressed
/// as an `NSPredicate` the SQL translation handles throws ``SwiftDataError/unsupportedPredicate``
/// (or ``SwiftDataError/unsupportedKeyPath``) naming the construct; nothing falls back to
/// loading every object and filtering in memory.
///
/// The tree is walked through `PredicateSQLTranslatable`, which each supported
/// `PredicateExpressions` node type adopts (`PredicateTranslation+Nodes.swift`). The closure's
/// root variable is the fetched object (`SELF`); a nested closure's variable
/// (`contains(where:)`, `allSatisfy`, `filter`) becomes a `SUBQUERY` variable, and an optional
/// chain's or `if let`'s variable stands for the optional value itself (a `nil` to-one reads
/// as `nil` in SQL, as in key-value coding). Parts built from constants alone (captured
/// values, literals, properties of captured objects) are evaluated here, once.
package struct PredicateTranslator {
    /// The Core Data key for a one-step key path (`\Trip.name` → `"name"`), `"self"` for a
    /// key path that stands for the object itself (`\Trip.persistentModelID`), or `nil` when
    /// the key path names nothing the store has. A sort descriptor's key path may have several
    /// steps (`\Trip.destination?.name`); the closure may answer those with a dotted key path.
    let keyName: (AnyKeyPath) -> String?
    /// Converts a constant (captured value or literal) to what `NSPredicate` compares.
    let constant: (Any) throws -> Any?

    /// A translator that names key paths with `keyName` and converts constants with `constant`.
    ///
    /// - Parameters:
    ///   - keyName: The Core Data key (property name) for one step key path like `\Trip.name`
    ///     or `\Location.latitude`; `nil` means unknown, and translation throws
    ///     ``SwiftDataError/unsupportedKeyPath`` naming it. `"self"` stands for the object
    ///     itself (for `persistentModelID`).
    ///   - constant: Converts a constant Swift value to what `NSPredicate` compares: models
    ///     to `NSManagedObjectID`, and so on; returns the value itself when nothing needs
    ///     converting. Before calling it the translator turns `nil` into `nil`,
    ///     `RawRepresentable` values into their raw values, and arrays and sets into arrays
    ///     of converted elements.
    package init(keyName: @escaping (AnyKeyPath) -> String?, constant: @escaping (Any) throws -> Any?) {
        self.keyName = keyName
        self.constant = constant
    }

    /// The `NSPredicate` that selects in SQL what `predicate` selects in memory.
    ///
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` naming a construct SQL cannot express,
    ///   ``SwiftDataError/unsupportedKeyPath`` naming a key path `keyName` does not know.
    package func predicate<T>(_ predicate: Predicate<T>) throws -> NSPredicate {
        let context = PredicateTranslationContext(keyName: keyName, constant: constant)
        context.bindRoot(predicate.variable.key)
        let term = try context.term(predicate.expression)
        return try context.predicate(term, for: "the predicate's result")
    }
}

/// What a translated `PredicateExpressions` node stands for.
indirect enum SQLTerm {
    /// A Swift value known now (not yet converted for `NSPredicate`).
    case constant(Any?)
    /// A value read from the store: key paths, functions of them, subqueries.
    case expression(NSExpression)
    /// A condition.
    case predicate(NSPredicate)
    /// An optional condition (`Bool?`, from an optional chain or `if let`): `nil` when
    /// `isNil` holds, else `condition`.
    case optionalPredicate(NSPredicate, isNil: NSPredicate)
    /// The `ComparisonResult` of comparing two strings (`caseInsensitiveCompare`,
    /// `localizedCompare`), to be compared with a constant result.
    case stringComparison(NSExpression, NSExpression, NSComparisonPredicate.Options, node: String)
    /// A range with its bounds (`nil`: unbounded).
    case range(lower: SQLTerm?, upper: SQLTerm?, closed: Bool)

    var isConstant: Bool {
        if case .constant = self { return true }
        return false
    }
}

/// A node type the translator understands. Conformances are unconstrained (children are
/// cast at run time), so one conformance per node type covers every specialization.
protocol PredicateSQLTranslatable {
    /// The node translated in `context`.
    func sqlTerm(in context: PredicateTranslationContext) throws -> SQLTerm
}

/// The state of one translation: the closures, the variables in scope, subquery names.
final class PredicateTranslationContext {
    let keyName: (AnyKeyPath) -> String?
    let constantConverter: (Any) throws -> Any?
    /// What each variable in scope stands for (the root object, a subquery variable, an
    /// optional's value, or an element of a constant collection), and the subquery depth
    /// it was bound at.
    private var bindings: [PredicateExpressions.VariableID: (term: SQLTerm, depth: Int)] = [:]
    /// How many `SUBQUERY`s enclose the node being translated.
    private var subqueryDepth = 0
    /// The variables bound to constants, for evaluating constant parts now.
    private var evaluationBindings = PredicateBindings()
    private var subqueryCount = 0

    init(keyName: @escaping (AnyKeyPath) -> String?, constant: @escaping (Any) throws -> Any?) {
        self.keyName = keyName
        self.constantConverter = constant
    }

    // MARK: Walking

    /// The term of a child node.
    func term(_ node: any PredicateExpression) throws -> SQLTerm {
        guard let translatable = node as? any PredicateSQLTranslatable else {
            let name = Self.nodeName(type(of: node))
            throw unsupported(name, Self.unsupportedReasons[name] ?? "this kind of expression has no SQL translation")
        }
        return try translatable.sqlTerm(in: self)
    }

    /// `node` evaluated now: for nodes whose inputs are all constants.
    func folded<E: PredicateExpression>(_ node: E) throws -> SQLTerm {
        do {
            return .constant(try node.evaluate(evaluationBindings))
        } catch {
            throw unsupported(Self.nodeName(E.self), "evaluating its constant inputs failed (\(error))")
        }
    }

    /// `node` evaluated now if it does not depend on the fetched object (a closure over a
    /// constant collection whose body reads only its own variable), else `nil`.
    func foldedIfIndependent<E: PredicateExpression>(_ node: E) -> SQLTerm? {
        (try? node.evaluate(evaluationBindings)).map { .constant($0) }
    }

    /// Binds the predicate's root variable to the fetched object (`SELF`).
    func bindRoot(_ key: PredicateExpressions.VariableID) {
        bindings[key] = (.expression(NSExpression.expressionForEvaluatedObject()), 0)
    }

    /// What the variable `key` stands for here.
    ///
    /// Inside a `SUBQUERY`, `SELF` is the collection's element, and the store's SQL cannot
    /// reach the fetched object (or values read from it) from there: a closure of
    /// `contains(where:)`, `allSatisfy` or `filter` that reads them throws.
    func value(of key: PredicateExpressions.VariableID) throws -> SQLTerm {
        guard let (term, depth) = bindings[key] else {
            throw unsupported(
                "PredicateExpressions.Variable", "the variable is not in scope (a predicate with several inputs?)")
        }
        if depth < subqueryDepth, Self.readsFetchedObject(term) {
            throw SwiftDataError.unsupportedPredicate.explained(
                "#Predicate reads the fetched object (or a value read from it) inside the closure of contains(where:), allSatisfy or filter on a to-many relationship; in SQL such a closure can read only the element and captured values"
            )
        }
        return term
    }

    /// Whether `term` reads the fetched object (`SELF` outside any `SUBQUERY`). Variables
    /// of enclosing subqueries stay readable in nested ones (the SQL is correlated).
    static func readsFetchedObject(_ term: SQLTerm) -> Bool {
        switch term {
        case .constant: return false
        case .expression(let expression): return readsFetchedObject(expression)
        default: return true
        }
    }

    static func readsFetchedObject(_ expression: NSExpression) -> Bool {
        switch expression.node {
        case .constant, .variable: return false
        case .keyPath(let operand, _): return operand.map(readsFetchedObject) ?? true
        case .function(nil, _, let arguments): return arguments.contains(where: readsFetchedObject)
        case .subquery(let collection, _, _): return readsFetchedObject(collection)
        default: return true
        }
    }

    /// Runs `body` one `SUBQUERY` deeper.
    func insideSubquery<Result>(_ body: () throws -> Result) rethrows -> Result {
        subqueryDepth += 1
        defer { subqueryDepth -= 1 }
        return try body()
    }

    /// Runs `body` with `variable` bound to `value` (a constant is also bound for evaluating
    /// constant parts now).
    func with<Value, Result>(
        _ variable: PredicateExpressions.Variable<Value>, boundTo value: SQLTerm,
        _ body: () throws -> Result
    ) rethrows -> Result {
        let previous = bindings[variable.key]
        let previousEvaluationBindings = evaluationBindings
        bindings[variable.key] = (value, subqueryDepth)
        if case .constant(let constant) = value, let typed = constant as? Value {
            evaluationBindings = evaluationBindings.binding(variable, to: typed)
        }
        defer {
            bindings[variable.key] = previous
            evaluationBindings = previousEvaluationBindings
        }
        return try body()
    }

    /// A fresh `SUBQUERY` variable name.
    func newSubqueryVariable() -> String {
        subqueryCount += 1
        return "v\(subqueryCount)"
    }

    // MARK: Errors

    /// ``SwiftDataError/unsupportedPredicate`` naming the node type and why.
    func unsupported(_ node: String, _ reason: String) -> SwiftDataError {
        SwiftDataError.unsupportedPredicate.explained(
            "#Predicate uses `\(node)` in a way SQL cannot express: \(reason)")
    }

    /// Why the node types with no translation have none.
    static let unsupportedReasons: [String: String] = [
        "PredicateExpressions.CollectionIndexSubscript":
            "to-many relationships are unordered in the store, so they have no elements by position",
        "PredicateExpressions.CollectionRangeSubscript":
            "to-many relationships are unordered in the store, so they have no elements by position",
        "PredicateExpressions.DictionaryKeySubscript": "a dictionary attribute is one opaque value in SQL",
        "PredicateExpressions.DictionaryKeyDefaultValueSubscript": "a dictionary attribute is one opaque value in SQL",
        "PredicateExpressions.TypeCheck":
            "type checks (is) are not translated; fetch the subclass's model type instead",
        "PredicateExpressions.ConditionalCast":
            "casts (as?) are not translated; fetch the subclass's model type instead",
        "PredicateExpressions.ForceCast": "casts (as!) are not translated; fetch the subclass's model type instead",
    ]

    /// Throws unless a collection read from the store with elements of `element` is a to-many
    /// relationship (elements are model classes): an array of values is an attribute, stored
    /// as one opaque value that SQL cannot look into.
    func requireRelationship(_ element: Any.Type, node: String, _ operation: String) throws {
        guard element is AnyObject.Type else {
            throw unsupported(
                node,
                "\(operation) of an array of \(element) values: an array attribute is one opaque value in SQL; only to-many relationships (arrays of models) can be searched"
            )
        }
    }

    /// A key path as a message shows it: as Swift prints it, with its root and value types
    /// (Swift cannot print the names of computed properties, which `@Model` makes).
    static func describe(_ keyPath: AnyKeyPath) -> String {
        let type = Swift.type(of: keyPath)
        return "\(keyPath) (from \(type.rootType) to \(type.valueType))"
    }

    /// `PredicateExpressions.Equal` for `PredicateExpressions.Equal<…>`.
    static func nodeName(_ type: Any.Type) -> String {
        let name = _typeName(type, qualified: false)
        let bare = name.firstIndex(of: "<").map { String(name[..<$0]) } ?? name
        return "PredicateExpressions." + bare
    }

    // MARK: Converting terms

    /// A term used as a condition.
    func predicate(_ term: SQLTerm, for what: @autoclosure () -> String) throws -> NSPredicate {
        switch term {
        case .predicate(let predicate):
            return predicate
        case .constant(let value):
            guard let flag = value as? Bool else {
                throw SwiftDataError.unsupportedPredicate.explained(
                    "#Predicate uses a constant \(String(describing: value)) as \(what()), which needs a Bool")
            }
            return NSPredicate(value: flag)
        case .expression(let expression):
            // A stored Bool read as a condition.
            return NSComparisonPredicate(
                leftExpression: expression, rightExpression: NSExpression(forConstantValue: true),
                modifier: .direct, type: .equalTo)
        case .optionalPredicate(let condition, let isNil):
            // Only `??`, `== true` and the like reach here with an optional; read nil as false.
            return and([not(isNil), condition])
        case .stringComparison(_, _, _, let node):
            throw unsupported(node, "its ComparisonResult must be compared with == or != against a constant result")
        case .range:
            throw SwiftDataError.unsupportedPredicate.explained(
                "#Predicate uses a range as \(what()); ranges are supported only in contains(_:)")
        }
    }

    /// A term used as a value.
    func expression(_ term: SQLTerm, for what: @autoclosure () -> String) throws -> NSExpression {
        switch term {
        case .expression(let expression):
            return expression
        case .constant(let value):
            return NSExpression(forConstantValue: try convert(value))
        case .predicate(let predicate):
            return NSExpression(
                forConditional: predicate, trueExpression: NSExpression(forConstantValue: true),
                falseExpression: NSExpression(forConstantValue: false))
        case .optionalPredicate(let condition, let isNil):
            let flag = NSExpression(
                forConditional: condition, trueExpression: NSExpression(forConstantValue: true),
                falseExpression: NSExpression(forConstantValue: false))
            return NSExpression(
                forConditional: isNil, trueExpression: NSExpression(forConstantValue: nil), falseExpression: flag)
        case .stringComparison(_, _, _, let node):
            throw unsupported(
                node,
                "its ComparisonResult must be compared with == or != against a constant result, not used as \(what())")
        case .range:
            throw SwiftDataError.unsupportedPredicate.explained(
                "#Predicate uses a range as \(what()); ranges are supported only in contains(_:)")
        }
    }

    /// A Swift constant as `NSPredicate` compares it: `nil` stays `nil`, raw values replace
    /// `RawRepresentable` values, collections become arrays of converted elements, and
    /// everything else goes through the caller's converter (models become object IDs).
    func convert(_ value: Any?) throws -> Any? {
        guard let value = Self.unwrapped(value) else { return nil }
        switch value {
        case let string as String: return string
        case let substring as Substring: return String(substring)
        case let character as Character: return String(character)
        case is Data, is Date, is UUID, is URL, is Decimal, is Bool, is Int, is Double:
            return try constantConverter(value)
        case let result as ComparisonResult: return result.rawValue
        default: break
        }
        if let raw = value as? any RawRepresentable {
            return try convert(raw.rawValue)
        }
        if !(value is any RangeExpression), !(value is any StringProtocol), let sequence = value as? any Sequence {
            return try Self.elements(of: sequence).map { try convert($0) ?? NSNull() }
        }
        return try constantConverter(value)
    }

    /// The elements of a sequence, as `Any`.
    static func elements(of sequence: some Sequence) -> [Any] {
        sequence.map { $0 as Any }
    }

    /// `value` with any levels of `Optional` removed; `nil` for `.none`.
    static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return unwrapped(mirror.children.first?.value)
    }

    // MARK: Building predicates

    func compare(
        _ left: NSExpression, _ type: NSComparisonPredicate.Operator, _ right: NSExpression,
        options: NSComparisonPredicate.Options = []
    ) -> NSPredicate {
        NSComparisonPredicate(
            leftExpression: left, rightExpression: right, modifier: .direct, type: type, options: options)
    }

    func isNil(_ expression: NSExpression) -> NSPredicate {
        compare(expression, .equalTo, NSExpression(forConstantValue: nil))
    }

    /// `AND` of `parts`, flattening nested `AND`s and dropping `TRUEPREDICATE`.
    func and(_ parts: [NSPredicate]) -> NSPredicate {
        compound(.and, parts)
    }

    /// `OR` of `parts`, flattening nested `OR`s and dropping `FALSEPREDICATE`.
    func or(_ parts: [NSPredicate]) -> NSPredicate {
        compound(.or, parts)
    }

    private func compound(_ type: NSCompoundPredicate.LogicalType, _ parts: [NSPredicate]) -> NSPredicate {
        let identity = type == .and
        var flat: [NSPredicate] = []
        for part in parts {
            if let value = Self.constantValue(of: part) {
                if value == identity { continue }
                return NSPredicate(value: value)
            }
            if let compound = part as? NSCompoundPredicate, compound.compoundPredicateType == type {
                flat += compound.subpredicates.compactMap { $0 as? NSPredicate }
            } else {
                flat.append(part)
            }
        }
        switch flat.count {
        case 0: return NSPredicate(value: identity)
        case 1: return flat[0]
        default: return NSCompoundPredicate(type: type, subpredicates: flat)
        }
    }

    func not(_ predicate: NSPredicate) -> NSPredicate {
        if let value = Self.constantValue(of: predicate) { return NSPredicate(value: !value) }
        if let compound = predicate as? NSCompoundPredicate, compound.compoundPredicateType == .not,
            let inner = compound.subpredicates.first as? NSPredicate
        {
            return inner
        }
        return NSCompoundPredicate(notPredicateWithSubpredicate: predicate)
    }

    /// `true`/`false` for `TRUEPREDICATE`/`FALSEPREDICATE`.
    static func constantValue(of predicate: NSPredicate) -> Bool? {
        if case .constant(let value) = predicate.node { return value }
        return nil
    }

    /// `a ⇔ b`: both hold or neither does.
    func equivalent(_ a: NSPredicate, _ b: NSPredicate) -> NSPredicate {
        or([and([a, b]), and([not(a), not(b)])])
    }

    // MARK: Key paths

    /// `name` read from `base` (`SELF`, a key path, a variable or a subquery).
    func appending(_ name: String, to base: NSExpression) -> NSExpression {
        switch base.node {
        case .evaluatedObject:
            return NSExpression(forKeyPath: name)
        case .keyPath(let operand, let path):
            return NSExpression(node: .keyPath(operand: operand, path: path + "." + name))
        default:
            return NSExpression(node: .keyPath(operand: base, path: name))
        }
    }

    /// The member `keyPath` of `base`, whose Swift type is `baseType`.
    func member(_ keyPath: AnyKeyPath, of base: SQLTerm, baseType: Any.Type) throws -> SQLTerm {
        let baseExpression = try expression(base, for: "the root of a key path")
        if let members = baseType as? any PredicateSQLCollectionMembers.Type {
            if !members.isText, keyPath == members.countKeyPath || keyPath == members.isEmptyKeyPath {
                try requireRelationship(
                    members.elementType, node: "PredicateExpressions.KeyPath",
                    keyPath == members.countKeyPath ? "count" : "isEmpty")
            }
            if keyPath == members.countKeyPath {
                if members.isText {
                    return .expression(NSExpression(forFunction: "length:", arguments: [baseExpression]))
                }
                return .expression(appending("@count", to: baseExpression))
            }
            if keyPath == members.isEmptyKeyPath {
                if members.isText {
                    return .predicate(compare(baseExpression, .equalTo, NSExpression(forConstantValue: "")))
                }
                return .predicate(
                    compare(appending("@count", to: baseExpression), .equalTo, NSExpression(forConstantValue: 0)))
            }
            if !members.isText {
                throw SwiftDataError.unsupportedKeyPath.explained(
                    "#Predicate reads \(Self.describe(keyPath)) of a collection; only count and isEmpty of a to-many relationship run in SQL"
                )
            }
        }
        guard let name = keyName(keyPath) else {
            throw SwiftDataError.unsupportedKeyPath.explained(
                "#Predicate reads \(Self.describe(keyPath)), which is not a stored property of the model (attributes and relationships only)"
            )
        }
        if name == "self" || name == "SELF" { return .expression(baseExpression) }
        return .expression(appending(name, to: baseExpression))
    }
}

/// Collections whose `count` and `isEmpty` the translator recognizes in key paths. The key
/// paths are made in extensions of the concrete types, so they equal the ones `#Predicate`
/// writes (a key path made in generic code over `Collection` names the protocol requirement
/// and compares unequal).
protocol PredicateSQLCollectionMembers {
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
    /// Strings: `count` is `length:`, `isEmpty` is `== ""`.
    static var isText: Bool { get }
    /// The type of the elements.
    static var elementType: Any.Type { get }
}

extension PredicateSQLCollectionMembers where Self: Sequence {
    static var isText: Bool { false }
    static var elementType: Any.Type { Element.self }
}

extension Array: PredicateSQLCollectionMembers {
    static var countKeyPath: AnyKeyPath { \Array.count }
    static var isEmptyKeyPath: AnyKeyPath { \Array.isEmpty }
}

extension Set: PredicateSQLCollectionMembers {
    static var countKeyPath: AnyKeyPath { \Set.count }
    static var isEmptyKeyPath: AnyKeyPath { \Set.isEmpty }
}

extension ContiguousArray: PredicateSQLCollectionMembers {
    static var countKeyPath: AnyKeyPath { \ContiguousArray.count }
    static var isEmptyKeyPath: AnyKeyPath { \ContiguousArray.isEmpty }
}

extension String: PredicateSQLCollectionMembers {
    static var countKeyPath: AnyKeyPath { \String.count }
    static var isEmptyKeyPath: AnyKeyPath { \String.isEmpty }
    static var isText: Bool { true }
}

extension Substring: PredicateSQLCollectionMembers {
    static var countKeyPath: AnyKeyPath { \Substring.count }
    static var isEmptyKeyPath: AnyKeyPath { \Substring.isEmpty }
    static var isText: Bool { true }
}
