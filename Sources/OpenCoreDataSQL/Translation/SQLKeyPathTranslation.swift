import OpenCoreDataCore
/// Key paths: attributes, to-one relationships (LEFT JOINs), to-many relationships
/// (correlated subqueries) and the collection operators `@count @sum @avg @min @max`.
extension SQLTranslator {
    /// The operand at `path` (dot-separated) starting from `base`, read in `scope`.
    ///
    /// Follows `KeyPathEvaluation`: `self` keeps the value, a key of a collection
    /// maps over its elements and flattens nested collections, a key of `nil` is `nil`.
    package func keyPath(_ path: String, from base: SQLOperand, in scope: SQLScope) throws -> SQLOperand {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = base
        for (index, key) in keys.enumerated() {
            if key.hasPrefix("@") {
                return try collectionOperator(
                    key, rest: Array(keys[(index + 1)...]), on: current, path: path, in: scope)
            }
            if key == "self" || key == "SELF" { continue }
            if let special = try objectKey(key, of: current, in: scope) {
                current = special
                continue
            }
            current = try step(key, from: current, path: path, in: scope)
        }
        return current
    }

    /// The stored property `key` of `entity` (or of one of its subentities, as rows
    /// of the whole inheritance tree share one table).
    package func property(_ key: String, of entity: NSEntityDescription, path: String) throws -> NSPropertyDescription {
        let found =
            entity.facts.propertiesByName[key]
            ?? entity.facts.selfAndDescendants.lazy.compactMap { $0.facts.propertiesByName[key] }.first
        guard let property = found else {
            throw SQLTranslationError.badKeyPath(path, "not found in entity \(entity.name ?? "?")")
        }
        guard property.isStored else {
            throw SQLTranslationError.badKeyPath(path, ": '\(key)' is transient and cannot be used in a fetch")
        }
        return property
    }

    /// The alias of the row an object value designates, joining it when needed.
    package func rowAlias(of object: SQLValue, in scope: SQLScope) throws -> String {
        if let alias = object.rowAlias { return alias }
        guard let entity = object.kind.entity else { preconditionFailure("rowAlias of a non-object value") }
        return scope.joinedRow(table: try schema.table(for: entity).name, key: object.fragment)
    }

    // MARK: NSManagedObject's own keys

    /// `objectID` (the object itself, as an object is its ID in SQL), `entity` (its
    /// entity number) and `entity.name`: keys of every managed object, read as Core Data's
    /// store reads them, unless the entity has a property of that name. `nil` for other keys.
    private func objectKey(_ key: String, of base: SQLOperand, in scope: SQLScope) throws -> SQLOperand? {
        guard key == "objectID" || key == "entity" || key == "name" else { return nil }
        switch base {
        case .value(let value):
            return try objectKey(key, of: value, in: scope).map(SQLOperand.value)
        case .collection(var collection):
            guard let element = try objectKey(key, of: collection.element, in: collection.scope) else { return nil }
            collection.element = element
            return .collection(collection)
        case .constant, .list:
            return nil
        }
    }

    private func objectKey(_ key: String, of value: SQLValue, in scope: SQLScope) throws -> SQLValue? {
        switch value.kind {
        case .object(let entity) where InheritanceTreeKeys.tree(of: entity, has: key) == false:
            if key == "objectID" { return value }
            if key == "entity" {
                return SQLValue(
                    "\(raw: try rowAlias(of: value, in: scope)).Z_ENT", kind: .entity, isNullable: value.isNullable)
            }
            return nil
        case .entity where key == "name":
            let cases = schema.entitiesByNumber.sorted { $0.key < $1.key }.map { number, entity -> SQLFragment in
                "WHEN \(raw: String(number)) THEN \(SQLFragment.bind((entity.name ?? "").sqlScalar))"
            }
            return SQLValue(
                "(CASE \(value.fragment) \(SQLFragment.joined(cases, separator: " ")) END)", kind: .string,
                isNullable: value.isNullable)
        default:
            return nil
        }
    }

    // MARK: One step

    private func step(_ key: String, from base: SQLOperand, path: String, in scope: SQLScope) throws -> SQLOperand {
        switch base {
        case .constant(let value):
            return .constant(KeyPathEvaluation.value(forKeyPath: key, of: value))
        case .value(let value):
            if let length = Self.stringLength(key, of: value) { return .value(length) }
            if case .composite(let composite) = value.kind {
                return .value(try element(key, of: composite, path: path))
            }
            let property = try objectProperty(key, of: value, path: path)
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                return .collection(try collection(relationship, of: value, in: scope, path: path))
            }
            return .value(try read(property, of: value, in: scope))
        case .collection(var collection):
            if let length = Self.stringLength(key, of: collection.element) {
                collection.element = length
                return .collection(collection)
            }
            if case .composite(let composite) = collection.element.kind {
                collection.element = try element(key, of: composite, path: path)
                return .collection(collection)
            }
            let property = try objectProperty(key, of: collection.element, path: path)
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                try flatten(&collection, through: relationship, path: path)
            } else {
                collection.element = try read(property, of: collection.element, in: collection.scope)
            }
            return .collection(collection)
        case .list:
            throw SQLTranslationError.unsupported("key path '\(path)' applied to an aggregate expression")
        }
    }

    /// NSString's `length` (UTF-16 units) of a string, as `KeyPathEvaluation` reads it.
    private static func stringLength(_ key: String, of value: SQLValue) -> SQLValue? {
        guard key == "length", case .string = value.kind else { return nil }
        return SQLValue("OCD_UTF16_LENGTH(\(value.fragment))", kind: .number, isNullable: value.isNullable)
    }

    private func objectProperty(_ key: String, of value: SQLValue, path: String) throws -> NSPropertyDescription {
        guard let entity = value.kind.entity else {
            throw SQLTranslationError.badKeyPath(
                path,
                ": '\(key)' is read from a value that is not an object (\(SQLConstantEncoding.kindDescription(value.kind)))"
            )
        }
        return try property(key, of: entity, path: path)
    }

    /// The element `key` of a composite value: its column, or a nested composite.
    private func element(_ key: String, of composite: SQLCompositeReference, path: String) throws -> SQLValue {
        guard let value = composite.element(key) else {
            let known = composite.composite.elements.map(\.name).joined(separator: ", ")
            throw SQLTranslationError.badKeyPath(
                path,
                ": '\(key)' is not an element of composite attribute '\(composite.keyPath)' (its elements: \(known))")
        }
        return value
    }

    /// An attribute or to-one relationship of an object: its column, on the object's row.
    /// A composite attribute is all its elements' columns (see ``SQLCompositeReference``).
    private func read(_ property: NSPropertyDescription, of object: SQLValue, in scope: SQLScope) throws -> SQLValue {
        if let composite = property as? NSCompositeAttributeDescription {
            guard let columns = schema.compositeColumns(for: composite) else {
                throw SQLTranslationError.badKeyPath(property.name, "has no columns in the store")
            }
            return SQLCompositeReference(
                composite: composite, keyPath: composite.name, alias: try rowAlias(of: object, in: scope),
                columns: columns
            ).value
        }
        guard let column = schema.column(for: property) else {
            throw SQLTranslationError.badKeyPath(property.name, "has no column in the store")
        }
        let alias = try rowAlias(of: object, in: scope)
        if let attribute = property as? NSAttributeDescription {
            return SQLValue("\(raw: alias).\(raw: column)", kind: SQLConstantEncoding.kind(of: attribute))
        }
        guard let destination = (property as? NSRelationshipDescription)?.destinationEntity else {
            throw SQLTranslationError.badKeyPath(property.name, "is a relationship without a destination entity")
        }
        return SQLValue("\(raw: alias).\(raw: column)", kind: .object(destination))
    }

    // MARK: To-many relationships

    /// The members of a to-many relationship of `owner`, as a correlated subquery:
    /// through the join table (many-to-many), the inverse's foreign key (one-to-many)
    /// or the hidden column (no inverse).
    private func collection(
        _ relationship: NSRelationshipDescription, of owner: SQLValue, in scope: SQLScope, path: String
    ) throws -> SQLCollection {
        guard let destination = relationship.destinationEntity else {
            throw SQLTranslationError.badKeyPath(path, ": '\(relationship.name)' has no destination entity")
        }
        let table = try schema.table(for: destination).name
        let alias = scope.makeAlias()
        let key = owner.fragment
        let child: SQLScope
        var order: [String]?
        switch schema.storage(of: relationship) {
        case .joinTable(let join):
            let link = scope.makeAlias()
            child = SQLScope(
                parent: scope,
                from:
                    "\(raw: join.name) \(raw: link) JOIN \(raw: table) \(raw: alias) ON \(raw: alias).Z_PK = \(raw: link).\(raw: join.destinationColumn)"
            )
            child.addCondition("\(raw: link).\(raw: join.sourceColumn) = \(key)")
            if relationship.isOrdered, let column = join.orderColumn { order = ["\(link).\(column)"] }
        case .hiddenColumn(let hidden):
            child = SQLScope(parent: scope, from: "\(raw: table) \(raw: alias)")
            child.addCondition("\(raw: alias).\(raw: hidden) = \(key)")
        case .inverseKey(_, let column, let orderColumn):
            child = SQLScope(parent: scope, from: "\(raw: table) \(raw: alias)")
            child.addCondition("\(raw: alias).\(raw: column) = \(key)")
            if relationship.isOrdered, let orderColumn { order = ["\(alias).\(orderColumn)", "\(alias).Z_PK"] }
        case nil:
            throw SQLTranslationError.badKeyPath(path, ": the store has no mapping for to-many '\(relationship.name)'")
        }
        return SQLCollection(
            scope: child,
            element: SQLValue("\(raw: alias).Z_PK", kind: .object(destination), isNullable: false, rowAlias: alias),
            nilWhen: owner.isNullable ? "\(key) IS NULL" : nil,
            order: order,
            depth: 1
        )
    }

    /// Continues a collection through another to-many relationship, flattening as
    /// KVC does: each member contributes its members, and a `nil` element stays one
    /// `nil` element (hence the LEFT JOIN and the condition when elements can be nil).
    private func flatten(
        _ collection: inout SQLCollection, through relationship: NSRelationshipDescription, path: String
    ) throws {
        guard let destination = relationship.destinationEntity else {
            throw SQLTranslationError.badKeyPath(path, ": '\(relationship.name)' has no destination entity")
        }
        let scope = collection.scope
        let owner = collection.element
        let key = owner.fragment
        let table = try schema.table(for: destination).name
        let alias = scope.makeAlias()
        let join = owner.isNullable ? "LEFT OUTER JOIN" : "JOIN"
        switch schema.storage(of: relationship) {
        case .joinTable(let joinTable):
            let link = scope.makeAlias()
            scope.addJoin(
                "\(raw: join) \(raw: joinTable.name) \(raw: link) ON \(raw: link).\(raw: joinTable.sourceColumn) = \(key)"
            )
            scope.addJoin(
                "\(raw: join) \(raw: table) \(raw: alias) ON \(raw: alias).Z_PK = \(raw: link).\(raw: joinTable.destinationColumn)"
            )
        case .hiddenColumn(let column), .inverseKey(_, let column, _):
            scope.addJoin("\(raw: join) \(raw: table) \(raw: alias) ON \(raw: alias).\(raw: column) = \(key)")
        case nil:
            throw SQLTranslationError.badKeyPath(path, ": the store has no mapping for to-many '\(relationship.name)'")
        }
        if owner.isNullable {
            scope.addCondition("\(key) IS NULL OR \(raw: alias).Z_PK IS NOT NULL")
        }
        collection.element = SQLValue(
            "\(raw: alias).Z_PK", kind: .object(destination), isNullable: owner.isNullable, rowAlias: alias)
        collection.order = nil
        collection.depth += 1
    }

    // MARK: Collection operators

    private func collectionOperator(
        _ name: String, rest: [String], on base: SQLOperand, path: String, in scope: SQLScope
    ) throws -> SQLOperand {
        let statistics = ["@sum": "sum:", "@avg": "average:", "@min": "min:", "@max": "max:"]
        switch base {
        case .constant(let value):
            return .constant(KeyPathEvaluation.value(forKeyPath: ([name] + rest).joined(separator: "."), of: value))
        case .value:
            // A collection operator applied to a single value (not a collection) gives nil.
            return .constant(nil)
        case .list(let items):
            if name == "@count" { return .constant(items.count) }
            guard rest.isEmpty, let function = statistics[name] else {
                throw SQLTranslationError.unsupported("'\(path)': \(name) of an aggregate expression")
            }
            return try self.function(function, operands: items, in: scope)
        case .collection(var collection):
            if name == "@count" {
                guard rest.isEmpty else {
                    throw SQLTranslationError.unsupported("'\(path)': @count must end the key path")
                }
                return .value(
                    nilWhenNil(SQLValue(collection.select("COUNT(*)"), kind: .number, isNullable: false), collection))
            }
            guard statistics[name] != nil else {
                throw SQLTranslationError.unsupported("collection operator \(name) in '\(path)'")
            }
            if !rest.isEmpty {
                guard
                    case .collection(let inner) = try keyPath(
                        rest.joined(separator: "."), from: .collection(collection), in: scope),
                    inner.depth == collection.depth
                else {
                    throw SQLTranslationError.unsupported(
                        "'\(path)': \(name) must be followed by a key path of the elements, not by another to-many or operator"
                    )
                }
                collection = inner
            }
            return .value(nilWhenNil(try aggregate(name, of: collection, path: path), collection))
        }
    }

    /// `@sum`/`@avg`/`@min`/`@max` of a collection's elements, as `PredicateFunctions`
    /// computes them: nils skipped, the sum of nothing 0, the average of nothing nil,
    /// and the sum or average of non-numbers nil.
    package func aggregate(_ name: String, of collection: SQLCollection, path: String) throws -> SQLValue {
        let element = collection.element
        let x = element.fragment
        switch (name, element.kind) {
        case ("@sum", .number):
            return SQLValue(collection.select("OCD_SUM(\(x))"), kind: .number, isNullable: false)
        case ("@avg", .number):
            return SQLValue(collection.select("AVG(\(x))"), kind: .number)
        case ("@sum", .string), ("@sum", .date), ("@sum", .uuid), ("@sum", .data), ("@sum", .url):
            return SQLValue(collection.select("CASE WHEN COUNT(\(x)) = 0 THEN 0 END"), kind: .number)
        case ("@avg", .string), ("@avg", .date), ("@avg", .uuid), ("@avg", .data), ("@avg", .url):
            return SQLValue("NULL", kind: .number)
        case ("@min", _), ("@max", _):
            guard element.kind.isOrdered else { break }
            let function = name == "@min" ? "MIN" : "MAX"
            guard element.kind.isText else {
                return SQLValue(collection.select("\(raw: function)(\(x))"), kind: element.kind)
            }
            let text = schema.dialect.comparedText(x)
            return SQLValue(collection.select("\(raw: function)(\(text) COLLATE OCD_UNICODE)"), kind: element.kind)
        default:
            break
        }
        throw SQLTranslationError.unsupported(
            "'\(path)': \(name) of \(SQLConstantEncoding.kindDescription(element.kind)) values")
    }

    /// A collection-derived value that is `nil` when the collection itself is `nil`.
    package func nilWhenNil(_ value: SQLValue, _ collection: SQLCollection) -> SQLValue {
        guard let nilWhen = collection.nilWhen else { return value }
        return SQLValue("CASE WHEN \(nilWhen) THEN NULL ELSE \(value.fragment) END", kind: value.kind)
    }
}
