import OpenCoreDataCore
/// Translates the values of one dictionary fetch (key paths, expression
/// descriptions, aggregates) and its HAVING predicate, in the fetch's root scope.
///
/// `count:`, `sum:`, `average:`, `min:` and `max:` of a single value become the SQL
/// aggregates over the matching rows (or each group); everything else is read per
/// row by `SQLTranslator`, with the semantics of predicates.
package final class SQLDictionaryTranslation {
    /// One translated entry of the select list.
    package struct Translated {
        /// The result columns, in order (two for an object whose entity varies).
        package var fragments: [SQLFragment]
        package var decoding: SQLDictionaryQuery.Decoding
        /// Whether the value aggregates rows (COUNT, SUM, …).
        package var isAggregate: Bool
        /// Whether the value is the same for every row.
        package var isConstant: Bool
        /// Whether the value is text, which groups and deduplicates with Swift's
        /// string equality (`COLLATE OCD_UNICODE`), as predicates compare it.
        package var isText = false

        /// The fragments as GROUP BY or SELECT DISTINCT must compare them.
        package var comparedFragments: [SQLFragment] {
            isText ? fragments.map { "\($0) COLLATE OCD_UNICODE" } : fragments
        }
    }

    /// The functions that aggregate rows when their argument is one value per row.
    package static let aggregateFunctions: Set<String> = ["count:", "sum:", "average:", "min:", "max:"]

    private let translator: SQLTranslator
    private let scope: SQLScope
    /// Expression description names, bound as variables for the HAVING predicate.
    private var boundNames: Set<String> = []
    private var inlineAggregates = 0

    package init(translator: SQLTranslator, scope: SQLScope) {
        self.translator = translator
        self.scope = scope
    }

    /// The select-list entry for one column of the request.
    package func translate(_ column: StoreDictionaryFetch.Column) throws -> Translated {
        switch column.content {
        case .keyPath(let path):
            return try keyPath(path).translated
        case .expression(let expression, let resultType):
            let result: (translated: Translated, value: SQLValue)
            if case .keyPath(nil, let path) = expression.node {
                result = try keyPath(path)
            } else {
                result = try computed(expression, resultType: resultType)
            }
            // The HAVING predicate may name the value (`count > 1` or `$count > 1`).
            scope.bind(column.key, to: .value(result.value))
            boundNames.insert(column.key)
            return result.translated
        }
    }

    /// The HAVING condition, or `nil` when it holds for every group.
    package func having(_ predicate: NSPredicate) throws -> SQLFragment? {
        let condition = try translator.condition(try rewrite(predicate), in: scope)
        if condition.constantValue == true { return nil }
        return condition.fragment
    }

    // MARK: Values

    /// An attribute or to-one relationship at `path`, through to-one relationships.
    private func keyPath(_ path: String) throws -> (translated: Translated, value: SQLValue) {
        let value: SQLValue
        switch try translator.keyPath(path, from: scope.selfValue, in: scope) {
        case .value(let read):
            value = read
        case .collection:
            throw SQLTranslationError.badKeyPath(
                path,
                "leads to a to-many relationship; a dictionary value needs one value per object (use an expression such as @count)"
            )
        case .constant, .list:
            throw SQLTranslationError.badKeyPath(
                path, "does not name a property of entity \(scope.selfValue.entityName)")
        }
        if let entity = value.kind.entity {
            return (try object(value, of: entity), value)
        }
        if case .composite(let composite) = value.kind {
            let fragments: [SQLFragment] = composite.columns.map { "\(raw: composite.alias).\(raw: $0.name)" }
            return (
                Translated(
                    fragments: fragments, decoding: .composite(composite), isAggregate: false, isConstant: false), value
            )
        }
        let decoding: SQLDictionaryQuery.Decoding =
            finalAttribute(path).map { .attribute($0) } ?? .value(value.kind, resultType: .undefinedAttributeType)
        return (
            Translated(
                fragments: [value.fragment], decoding: decoding, isAggregate: false, isConstant: false,
                isText: value.kind.isText), value
        )
    }

    /// A computed expression: an aggregate, arithmetic on aggregates, or a per-row value.
    private func computed(
        _ expression: NSExpression, resultType: NSAttributeType
    ) throws -> (translated: Translated, value: SQLValue) {
        let (value, isAggregate, isConstant) = try self.value(of: expression)
        if let entity = value.kind.entity, !isAggregate {
            return (try object(value, of: entity), value)
        }
        let translated = Translated(
            fragments: [value.fragment], decoding: .value(value.kind, resultType: resultType),
            isAggregate: isAggregate, isConstant: isConstant, isText: value.kind.isText)
        return (translated, value)
    }

    /// The SQL value of an expression, and whether it aggregates rows or is constant.
    private func value(of expression: NSExpression) throws -> (SQLValue, isAggregate: Bool, isConstant: Bool) {
        if case .function(nil, let name, let arguments) = expression.node {
            if Self.aggregateFunctions.contains(name), arguments.count == 1,
                let aggregate = try aggregate(name, of: arguments[0])
            {
                return (aggregate, true, false)
            }
            if arguments.contains(where: Self.containsAggregate) {
                let operands = try arguments.map { SQLOperand.value(try value(of: $0).0) }
                let result = try translator.function(name, operands: operands, in: scope)
                return (try translator.scalar(result, for: "the value of \(expression)"), true, false)
            }
        }
        let operand = try translator.operand(expression, in: scope)
        var isConstant = false
        if case .constant = operand { isConstant = true }
        return (try translator.scalar(operand, for: "the value of \(expression)"), false, isConstant)
    }

    /// `COUNT`, `SUM`, `AVG`, `MIN` or `MAX` over the rows of one value; `nil` when
    /// the argument is a constant or a literal list, which the function reads per row.
    private func aggregate(_ name: String, of argument: NSExpression) throws -> SQLValue? {
        let value: SQLValue
        switch try translator.operand(argument, in: scope) {
        case .value(let read):
            value = read
        case .collection:
            throw SQLTranslationError.unsupported(
                "\(name)(\(argument)) in a dictionary fetch: the key path is to-many; fetch the destination entity grouped by the inverse relationship instead"
            )
        case .constant, .list:
            return nil
        }
        let x = value.fragment
        switch (name, value.kind) {
        case ("count:", _):
            return SQLValue("COUNT(\(x))", kind: .number, isNullable: false)
        case ("sum:", .number):
            return SQLValue("SUM(\(x))", kind: .number)
        case ("average:", .number):
            return SQLValue("AVG(\(x))", kind: .number)
        case ("min:", let kind), ("max:", let kind):
            guard kind.isOrdered else { break }
            let function = name == "min:" ? "MIN" : "MAX"
            // Text orders as Swift orders it, as sort descriptors do.
            let collate = kind.isText ? " COLLATE OCD_UNICODE" : ""
            return SQLValue("\(raw: function)(\(x)\(raw: collate))", kind: kind)
        default:
            break
        }
        throw SQLTranslationError.unsupported(
            "\(name) of \(SQLConstantEncoding.kindDescription(value.kind)) values in a dictionary fetch")
    }

    /// Whether an expression holds an aggregate function of a per-row value.
    private static func containsAggregate(_ expression: NSExpression) -> Bool {
        guard case .function(nil, let name, let arguments) = expression.node else { return false }
        if aggregateFunctions.contains(name), arguments.count == 1, !arguments[0].dependsOnConstantsOnly {
            if case .aggregate = arguments[0].node { return false }
            return true
        }
        return arguments.contains(where: containsAggregate)
    }

    /// An object as its primary key, plus its entity number when rows of several
    /// entities can be there (the destination has subentities).
    private func object(_ value: SQLValue, of entity: NSEntityDescription) throws -> Translated {
        if entity.facts.selfAndDescendants.count == 1 {
            return Translated(
                fragments: [value.fragment], decoding: .object(entity), isAggregate: false, isConstant: false)
        }
        let alias = try translator.rowAlias(of: value, in: scope)
        return Translated(
            fragments: ["\(raw: alias).Z_PK", "\(raw: alias).Z_ENT"], decoding: .objectOfAnyEntity, isAggregate: false,
            isConstant: false)
    }

    /// The attribute a key path ends at, when it is one (through to-one relationships).
    private func finalAttribute(_ path: String) -> NSAttributeDescription? {
        guard var entity = scope.selfValue.entity else { return nil }
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init).filter {
            $0 != "self" && $0 != "SELF"
        }
        for (index, key) in keys.enumerated() {
            guard let property = try? translator.property(key, of: entity, path: path) else { return nil }
            if index == keys.count - 1 { return property as? NSAttributeDescription }
            if var composite = property as? NSCompositeAttributeDescription {
                // An element of a composite (`location.latitude`, nested `a.b.c`).
                for elementKey in keys[(index + 1)...].dropLast() {
                    guard
                        let nested = composite.elements.first(where: { $0.name == elementKey })
                            as? NSCompositeAttributeDescription
                    else { return nil }
                    composite = nested
                }
                return composite.elements.first { $0.name == keys[keys.count - 1] }
            }
            guard let relationship = property as? NSRelationshipDescription, !relationship.isToMany,
                let destination = relationship.destinationEntity
            else { return nil }
            entity = destination
        }
        return nil
    }

    // MARK: HAVING

    /// The HAVING predicate with expression names and aggregate functions replaced
    /// by variables bound to their SQL.
    private func rewrite(_ predicate: NSPredicate) throws -> NSPredicate {
        switch predicate.node {
        case .constant, .block:
            return predicate
        case .comparison(var parts):
            parts.left = try rewrite(parts.left)
            parts.right = try rewrite(parts.right)
            return NSPredicate.make(.comparison(parts))
        case .compound(let type, let subpredicates):
            return NSPredicate.make(.compound(type, try subpredicates.map(rewrite)))
        }
    }

    private func rewrite(_ expression: NSExpression) throws -> NSExpression {
        switch expression.node {
        case .keyPath(nil, let path) where boundNames.contains(path):
            return NSExpression(forVariable: path)
        case .function(nil, let name, let arguments):
            if Self.aggregateFunctions.contains(name), arguments.count == 1, Self.containsAggregate(expression),
                let value = try aggregate(name, of: arguments[0])
            {
                inlineAggregates += 1
                // A name no format string can spell, so it never hides a user's variable.
                let variable = "having aggregate #\(inlineAggregates)"
                scope.bind(variable, to: .value(value))
                return NSExpression(forVariable: variable)
            }
            return NSExpression(node: .function(operand: nil, name: name, arguments: try arguments.map(rewrite)))
        case .aggregate(let items):
            return NSExpression(node: .aggregate(try items.map(rewrite)))
        case .conditional(let predicate, let whenTrue, let whenFalse):
            return NSExpression(
                node: .conditional(try rewrite(predicate), try rewrite(whenTrue), try rewrite(whenFalse)))
        default:
            return expression
        }
    }
}

private extension SQLOperand {
    /// The entity of the evaluated object (`SELF`) of a fetch.
    var entity: NSEntityDescription? {
        if case .value(let value) = self { return value.kind.entity }
        return nil
    }

    var entityName: String { entity?.name ?? "?" }
}
