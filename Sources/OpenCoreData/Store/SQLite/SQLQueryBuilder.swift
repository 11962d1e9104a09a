import GRDB

/// Translates a fetch (predicate, sort descriptors, paging) into one SQL query over
/// Core Data's schema. Key paths through to-one relationships become LEFT JOINs.
/// SQL text and arguments only: execution is the store's job.
final class SQLQueryBuilder {
    private let schema: SQLiteSchema
    private let entity: NSEntityDescription
    private var joins: [String] = []
    private var aliasByPath: [String: String] = [:]
    private(set) var arguments: [DatabaseValue] = []

    init(schema: SQLiteSchema, entity: NSEntityDescription) {
        self.schema = schema
        self.entity = entity
    }

    /// `FROM … JOIN … WHERE …` for a fetch (after the SELECT list).
    func fromAndWhere(_ fetch: StoreFetch) throws -> String {
        var conditions: [String] = []
        let numbers = fetch.matchingEntities.map { String($0.facts.entityNumber) }
        let table = try schema.table(for: entity)
        if numbers.count != table.root.facts.selfAndDescendants.count {
            conditions.append("t0.Z_ENT IN (\(numbers.joined(separator: ", ")))")
        }
        if let keys = fetch.restrictedToKeys {
            conditions.append(keys.isEmpty ? "0" : "t0.Z_PK IN (\(keys.map(String.init).joined(separator: ", ")))")
        }
        if let predicate = fetch.predicate {
            conditions.append(try translate(predicate))
        }
        let order = try fetch.sortDescriptors.map(orderTerm)
        var sql = "FROM \(table.name) t0"
        for join in joins { sql += " " + join }
        if !conditions.isEmpty { sql += " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ") }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        return sql
    }

    // MARK: Predicates

    private func translate(_ predicate: NSPredicate) throws -> String {
        if let compound = predicate as? NSCompoundPredicate {
            let parts = try compound.subpredicates.map { try translate($0 as! NSPredicate) }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? "1" : parts.map { "(\($0))" }.joined(separator: " AND ")
            case .or: return parts.isEmpty ? "0" : parts.map { "(\($0))" }.joined(separator: " OR ")
            // SQL's NOT of NULL is NULL (row dropped); in memory a comparison with nil is
            // false, so its negation is true. COALESCE makes SQL agree.
            case .not: return "NOT COALESCE((\(parts.first ?? "1")), 0)"
            @unknown default: throw unsupported(predicate)
            }
        }
        if let comparison = predicate as? NSComparisonPredicate {
            return try translate(comparison)
        }
        switch predicate.predicateFormat {
        case "TRUEPREDICATE": return "1"
        case "FALSEPREDICATE": return "0"
        default: throw unsupported(predicate)
        }
    }

    private func translate(_ comparison: NSComparisonPredicate) throws -> String {
        guard comparison.comparisonPredicateModifier == .direct else { throw unsupported(comparison) }
        var left = comparison.leftExpression
        var right = comparison.rightExpression
        var operatorType = comparison.predicateOperatorType
        if left.expressionType == .constantValue, right.expressionType != .constantValue {
            swap(&left, &right)
            operatorType = Self.mirrored(operatorType)
        }
        let (column, attribute) = try operand(left)
        guard right.expressionType == .constantValue else { throw unsupported(comparison) }
        let constant = CollectionValue.unwrapNull(right.constantValue)
        let folding = comparison.options.intersection([.caseInsensitive, .diacriticInsensitive])
        let flags = (folding.contains(.caseInsensitive) ? 1 : 0) | (folding.contains(.diacriticInsensitive) ? 2 : 0)
        func bind(_ value: Any?) throws -> String {
            arguments.append(try databaseValue(value, attribute: attribute))
            return "?"
        }
        func folded(_ sql: String) -> String { flags == 0 ? sql : "OCD_FOLD(\(sql), \(flags))" }

        switch operatorType {
        case .equalTo, .notEqualTo:
            let equal = operatorType == .equalTo
            guard let constant else { return "\(column) IS \(equal ? "" : "NOT ")NULL" }
            let test = "\(folded(column)) \(equal ? "=" : "<>") \(folded(try bind(constant)))"
            return equal ? test : "(\(test) OR \(column) IS NULL)"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let constant else { return "0" }
            let symbol = [NSComparisonPredicate.Operator.lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">", .greaterThanOrEqualTo: ">="][operatorType]!
            return "\(folded(column)) \(symbol) \(folded(try bind(constant)))"
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard let constant else { return "0" }
            let kind = [NSComparisonPredicate.Operator.beginsWith: 0, .endsWith: 1, .contains: 2, .like: 3, .matches: 4][operatorType]!
            return "OCD_STRING_MATCH(\(column), \(try bind(constant)), \(kind), \(flags))"
        case .in:
            let values: [Any]
            switch constant {
            case let array as [Any]: values = array
            case let set as NSSet: values = set.allObjects
            case let set as Set<AnyHashable>: values = set.map(\.base)
            case let ordered as NSOrderedSet: values = ordered.array
            default: throw unsupported(comparison)
            }
            guard !values.isEmpty else { return "0" }
            return "\(folded(column)) IN (\(try values.map { folded(try bind($0)) }.joined(separator: ", ")))"
        case .between:
            guard let bounds = constant as? [Any], bounds.count == 2 else { throw unsupported(comparison) }
            return "\(column) BETWEEN \(try bind(bounds[0])) AND \(try bind(bounds[1]))"
        default:
            throw unsupported(comparison)
        }
    }

    private static func mirrored(_ type: NSComparisonPredicate.Operator) -> NSComparisonPredicate.Operator {
        switch type {
        case .lessThan: .greaterThan
        case .lessThanOrEqualTo: .greaterThanOrEqualTo
        case .greaterThan: .lessThan
        case .greaterThanOrEqualTo: .lessThanOrEqualTo
        default: type
        }
    }

    /// The SQL column a key-path expression reads, joining through to-one relationships.
    private func operand(_ expression: NSExpression) throws -> (String, NSPropertyDescription?) {
        switch expression.expressionType {
        case .evaluatedObject:
            return ("t0.Z_PK", nil)
        case .keyPath:
            return try column(forKeyPath: expression.keyPath)
        default:
            throw CoreDataError.make(NSCoreDataError, "Unsupported expression in a fetch predicate: \(expression)")
        }
    }

    func column(forKeyPath keyPath: String) throws -> (String, NSPropertyDescription?) {
        let keys = keyPath.split(separator: ".").map(String.init)
        var current = entity
        var alias = "t0"
        var path = ""
        for (index, key) in keys.enumerated() {
            guard let property = current.facts.propertiesByName[key] ?? anySubentityProperty(current, key) else {
                throw CoreDataError.make(NSCoreDataError, "keypath \(keyPath) not found in entity \(current.name ?? "?")")
            }
            guard let column = schema.column(for: property) else {
                throw CoreDataError.make(NSCoreDataError, "keypath \(keyPath): '\(key)' is \(property.isTransient ? "transient" : "a to-many relationship") and cannot be used in a fetch")
            }
            let isLast = index == keys.count - 1
            if isLast { return ("\(alias).\(column)", property) }
            guard let relationship = property as? NSRelationshipDescription, let destination = relationship.destinationEntity else {
                throw CoreDataError.make(NSCoreDataError, "keypath \(keyPath): '\(key)' is not a relationship")
            }
            path += (path.isEmpty ? "" : ".") + key
            if let existing = aliasByPath[path] {
                alias = existing
            } else {
                let next = "t\(aliasByPath.count + 1)"
                joins.append("LEFT OUTER JOIN \(try schema.table(for: destination).name) \(next) ON \(alias).\(column) = \(next).Z_PK")
                aliasByPath[path] = next
                alias = next
            }
            current = destination
        }
        return ("\(alias).Z_PK", nil)
    }

    private func anySubentityProperty(_ entity: NSEntityDescription, _ key: String) -> NSPropertyDescription? {
        entity.facts.selfAndDescendants.lazy.compactMap { $0.facts.propertiesByName[key] }.first
    }

    private func databaseValue(_ value: Any?, attribute: NSPropertyDescription?) throws -> DatabaseValue {
        guard let value else { return .null }
        if let object = value as? NSManagedObject {
            guard let key = object.objectID.primaryKey else { return (-1 as Int64).databaseValue }
            return key.databaseValue
        }
        if let id = value as? NSManagedObjectID { return (id.primaryKey ?? -1).databaseValue }
        if let attribute = attribute as? NSAttributeDescription, attribute.attributeType != .transformableAttributeType {
            if let stored = AttributeValue.coerce(value, to: attribute) {
                return try SQLiteValueCoding.databaseValue(stored, type: attribute.attributeType)
            }
        }
        switch value {
        case let v as String: return v.databaseValue
        case let v as Date: return v.timeIntervalSinceReferenceDate.databaseValue
        case let v as Bool: return (v ? 1 : 0 as Int64).databaseValue
        case let v as NSNumber:
            let double = v.doubleValue
            return double.rounded() == double && abs(double) < 9e18 ? v.int64Value.databaseValue : double.databaseValue
        case let v as Data: return v.databaseValue
        case let v as UUID: return try SQLiteValueCoding.databaseValue(v, type: .UUIDAttributeType)
        case let v as URL: return v.absoluteString.databaseValue
        default:
            throw CoreDataError.make(NSCoreDataError, "Cannot compare a stored value with a \(type(of: value)) in a fetch predicate")
        }
    }

    // MARK: Sorting

    private func orderTerm(_ descriptor: NSSortDescriptor) throws -> String {
        guard let key = descriptor.key else {
            throw CoreDataError.make(NSCoreDataError, "A sort descriptor without a key cannot run in the store")
        }
        let (column, _) = try self.column(forKeyPath: key)
        let direction = descriptor.ascending ? "ASC" : "DESC"
        switch descriptor.selector?.description {
        case nil, "compare:":
            return "\(column) \(direction)"
        case "caseInsensitiveCompare:", "localizedCaseInsensitiveCompare:":
            return "OCD_FOLD(\(column), 1) \(direction), \(column) \(direction)"
        case "localizedStandardCompare:":
            return "\(column) COLLATE OCD_STANDARD \(direction)"
        case "localizedCompare:":
            return "\(column) COLLATE OCD_LOCALIZED \(direction)"
        case let other?:
            throw CoreDataError.make(NSCoreDataError, "Sort selector '\(other)' cannot run in the store")
        }
    }

    private func unsupported(_ predicate: NSPredicate) -> NSError {
        CoreDataError.make(NSCoreDataError, "Unsupported predicate for a store fetch: \(predicate.predicateFormat)")
    }
}
