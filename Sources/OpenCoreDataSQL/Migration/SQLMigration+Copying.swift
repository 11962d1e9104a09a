import Foundation
import OpenCoreDataCore

extension SQLMigration {
    /// What a destination column holds.
    package enum ColumnRole {
        case attribute(NSAttributeDescription)
        /// One leaf element's column of a composite attribute.
        case compositeElement(NSCompositeAttributeDescription, SQLSchema.CompositeColumn)
        case foreignKey(NSRelationshipDescription)
        case entityNumber(NSRelationshipDescription)
        case order(NSRelationshipDescription)
        case owner(NSRelationshipDescription)
    }

    /// A source relationship's links as a query: one row per related pair, with columns
    /// `o` (the owner's key), `d` (the destination's key), `pos` (the destination's
    /// position in the owner's ordered relationship) and `ipos` (the owner's position in
    /// the destination's ordered inverse), `NULL` where the store keeps no order.
    ///
    /// However the source stored the relationship (a foreign key, a join table, a hidden
    /// column, or the inverse's foreign key), the destination reads the same four
    /// columns, so a to-one may become a to-many, a to-many a many-to-many, an unordered
    /// relationship an ordered one, and back.
    package struct Links {
        /// The query (`SQLMigrationStatements`); it binds nothing, so its text names it.
        let query: SQLFragment
        /// The source entities whose keys `o` and `d` are.
        let owner: NSEntityDescription
        let target: NSEntityDescription

        /// The links the other way round, in `dialect`.
        func flipped(_ dialect: SQLDialect) -> Links {
            Links(query: SQLMigrationStatements.flipped(query, dialect), owner: target, target: owner)
        }
    }

    /// Copies rows and links into the destination tables (rows keep their primary keys).
    struct Run {
        let migration: SQLMigration
        /// Temporary tables of links read once per row (see ``indexed(_:)``), by query.
        private let linkTables = LinkTables()

        private var db: Database { migration.db }
        private var source: SQLSchema { migration.source }
        private var destination: SQLSchema { migration.destination }
        private var dialect: SQLDialect { migration.destination.dialect }

        /// Runs one statement; a failure (a NULL in a required column, a duplicate under a
        /// new uniqueness constraint) names the entity mapping it belongs to.
        func execute(_ statement: SQLFragment, mapping: String?) throws {
            do {
                try db.execute(statement)
            } catch let error as NSError where error.domain == NSCocoaErrorDomain {
                throw error
            } catch {
                let place = mapping.map { " in entity mapping '\($0)'" } ?? ""
                throw CoreDataError.make(
                    NSMigrationError, "The migration failed\(place): \(db.message(of: error))",
                    [NSUnderlyingErrorKey: error as NSError])
            }
        }

        // MARK: Rows

        func copyRows(
            of sourceEntity: NSEntityDescription, into entity: NSEntityDescription, table: SQLSchema.Table
        ) throws {
            let sourceTable = try source.table(for: sourceEntity)
            var columns: [String] = []
            var values: [SQLFragment] = []
            let roles = roles(in: table)
            for column in table.columns.map(\.name) {
                guard let role = roles[column], let value = try value(for: role, of: entity) else { continue }
                columns.append(column)
                values.append(value)
            }
            try execute(
                SQLMigrationStatements.copyRows(
                    of: sourceEntity.facts.entityNumber, from: sourceTable.name, as: entity.facts.entityNumber,
                    into: table.name,
                    columns: columns, values: values),
                mapping: migration.entityMapping(for: entity)?.name)
        }

        /// The destination table's columns with what each holds.
        private func roles(in table: SQLSchema.Table) -> [String: ColumnRole] {
            var roles: [String: ColumnRole] = [:]
            for entity in table.root.facts.selfAndDescendants {
                for property in entity.facts.slots where property.entity === entity && property.isStored {
                    if let composite = property as? NSCompositeAttributeDescription,
                        let columns = destination.compositeColumns(for: composite)
                    {
                        for column in columns { roles[column.name] = .compositeElement(composite, column) }
                    } else if let attribute = property as? NSAttributeDescription,
                        let column = destination.column(for: attribute)
                    {
                        roles[column] = .attribute(attribute)
                    } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany {
                        if let column = destination.column(for: relationship) {
                            roles[column] = .foreignKey(relationship)
                        }
                        if let column = destination.entityColumn(for: relationship) {
                            roles[column] = .entityNumber(relationship)
                        }
                        if let column = destination.orderColumn(for: relationship) {
                            roles[column] = .order(relationship)
                        }
                    }
                }
            }
            for entity in destination.entities {
                for relationship in entity.relationshipsByName.values
                where relationship.entity === entity && relationship.isToMany {
                    if case .hiddenColumn(let column)? = destination.storage(of: relationship),
                        relationship.destinationEntity?.facts.root === table.root
                    {
                        roles[column] = .owner(relationship)
                    }
                }
            }
            return roles
        }

        /// The value of one destination column of `entity`'s rows, read from the source
        /// row `S`; `nil` when the column stays NULL for them.
        private func value(for role: ColumnRole, of entity: NSEntityDescription) throws -> SQLFragment? {
            func owns(_ property: NSPropertyDescription) -> Bool { entity.facts.slots.contains { $0 === property } }
            switch role {
            case .attribute(let attribute):
                guard owns(attribute) else { return nil }
                return try attributeValue(attribute, of: entity)
            case .compositeElement(let composite, let column):
                guard owns(composite) else { return nil }
                return try elementValue(column, of: composite, entity: entity)
            case .foreignKey(let relationship):
                guard owns(relationship), let (key, target) = try sourceKey(for: relationship, of: entity) else {
                    return nil
                }
                return try validTarget(key, in: target, for: relationship, column: "Z_PK")
            case .entityNumber(let relationship):
                guard owns(relationship), let (key, target) = try sourceKey(for: relationship, of: entity) else {
                    return nil
                }
                return SQLMigrationStatements.renumbered(
                    try validTarget(key, in: target, for: relationship, column: "Z_ENT"), migration.renumbering)
            case .order(let relationship):
                guard owns(relationship) else { return nil }
                if let match = sameToOne(relationship, of: entity) {
                    let key = SQLMigrationStatements.source("Z_PK")
                    return source.orderColumn(for: match).map {
                        SQLMigrationStatements.coalesce(SQLMigrationStatements.source($0), key)
                    } ?? key
                }
                guard let links = try links(into: relationship, of: entity).map(indexed) else { return nil }
                return SQLMigrationStatements.positionInInverse(in: links.query, dialect)
            case .owner(let relationship):
                guard let owner = relationship.entity as NSEntityDescription?,
                    let target = relationship.destinationEntity,
                    entity.isKindOf(entity: target), let links = try links(into: relationship, of: owner).map(indexed),
                    let owners = try rows(of: links.owner, becoming: owner)
                else { return nil }
                return SQLMigrationStatements.owner(in: links.query, among: owners, dialect)
            }
        }

        private func attributeValue(
            _ attribute: NSAttributeDescription, of entity: NSEntityDescription
        ) throws -> SQLFragment? {
            let match = migration.sourceProperty(for: attribute, of: entity) as? NSAttributeDescription
            let fallback = try attribute.defaultValue.map {
                try SQLValueCoding.scalar(
                    $0, type: attribute.attributeType, transformerName: attribute.valueTransformerName)
            }
            guard let match, let column = source.column(for: match) else {
                return fallback.map(SQLMigrationStatements.constant)
            }
            let integers: Set<NSAttributeType> = [
                .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
            ]
            var expression = SQLMigrationStatements.source(column)
            if integers.contains(attribute.attributeType), !integers.contains(match.attributeType) {
                expression = SQLMigrationStatements.integer(expression, dialect)
            }
            if !attribute.isOptional, let fallback {
                return SQLMigrationStatements.coalesce(expression, SQLMigrationStatements.constant(fallback))
            }
            return expression
        }

        /// The value of one element column of a composite: the source composite's column of
        /// the same element (matched by name or renaming identifier along the path), else
        /// the element's default, given only to rows whose composite was not `nil` (or to
        /// every row when the composite itself is new or required).
        private func elementValue(
            _ column: SQLSchema.CompositeColumn, of composite: NSCompositeAttributeDescription,
            entity: NSEntityDescription
        ) throws -> SQLFragment? {
            let defaults = CompositeValue.defaultValue(of: composite)
            let fallback = try defaults.flatMap { CompositeValue.value(at: column.path, in: $0) }.map {
                SQLMigrationStatements.constant(
                    try SQLValueCoding.scalar(
                        $0, type: column.element.attributeType, transformerName: column.element.valueTransformerName))
            }
            guard let match = migration.sourceProperty(for: composite, of: entity) as? NSCompositeAttributeDescription,
                let sourceColumns = source.compositeColumns(for: match)
            else {
                return fallback
            }
            let sourcePath = Self.sourcePath(of: column.path, in: composite, from: match)
            guard let sourceColumn = sourceColumns.first(where: { $0.path == sourcePath }) else {
                guard let fallback else { return nil }
                return composite.isOptional
                    ? SQLMigrationStatements.unlessAllNull(sourceColumns.map(\.name), fallback) : fallback
            }
            let integers: Set<NSAttributeType> = [
                .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
            ]
            var expression = SQLMigrationStatements.source(sourceColumn.name)
            if integers.contains(column.element.attributeType), !integers.contains(sourceColumn.element.attributeType) {
                expression = SQLMigrationStatements.integer(expression, dialect)
            }
            if !column.element.isOptional, let fallback {
                let filled = SQLMigrationStatements.coalesce(expression, fallback)
                return composite.isOptional
                    ? SQLMigrationStatements.unlessAllNull(sourceColumns.map(\.name), filled) : filled
            }
            return expression
        }

        /// The element names the source composite used for the element at `path` of the
        /// destination one: each element's renaming identifier when it has one.
        private static func sourcePath(
            of path: [String], in composite: NSCompositeAttributeDescription,
            from source: NSCompositeAttributeDescription
        ) -> [String] {
            var result: [String] = []
            var current: NSCompositeAttributeDescription? = composite
            for name in path {
                let element = current?.elements.first { $0.name == name }
                result.append(element?.renamingIdentifier ?? name)
                current = element as? NSCompositeAttributeDescription
            }
            return result
        }

        /// The source row a destination to-one of the row `S` points at (SQL giving its key),
        /// and the source entity that key belongs to: the same row's column when the source
        /// was a to-one too, else the first of the source links.
        private func sourceKey(
            for relationship: NSRelationshipDescription, of entity: NSEntityDescription
        ) throws -> (SQLFragment, NSEntityDescription)? {
            if let match = sameToOne(relationship, of: entity), let column = source.column(for: match),
                let target = match.destinationEntity
            {
                return (SQLMigrationStatements.source(column), target)
            }
            guard let links = try links(into: relationship, of: entity).map(indexed) else { return nil }
            return (SQLMigrationStatements.firstDestination(in: links.query, dialect), links.target)
        }

        /// `column` (`Z_PK` or `Z_ENT`) of the source row `key` names, when that row becomes
        /// an object the destination relationship may hold; NULL otherwise (the target was
        /// removed, or became an entity outside the relationship's destination), so no
        /// link points at a row that is gone or of the wrong entity.
        private func validTarget(
            _ key: SQLFragment, in target: NSEntityDescription, for relationship: NSRelationshipDescription,
            column: String
        ) throws -> SQLFragment {
            guard let destinationTarget = relationship.destinationEntity,
                let rows = try rows(of: target, becoming: destinationTarget)
            else { return SQLMigrationStatements.null }
            return SQLMigrationStatements.target(
                column, ofKey: key, in: try source.table(for: target).name, among: rows)
        }

        /// A query of the keys of the rows in `sourceEntity`'s table that become objects of
        /// `destinationEntity` (or its subentities); `nil` when none do.
        private func rows(
            of sourceEntity: NSEntityDescription, becoming destinationEntity: NSEntityDescription
        ) throws -> SQLFragment? {
            let numbers = migration.sourceNumbers(becoming: destinationEntity)
            guard !numbers.isEmpty else { return nil }
            return SQLMigrationStatements.rows(in: try source.table(for: sourceEntity).name, entityNumbers: numbers)
        }

        /// The source to-one stored in a column of the same row that a destination to-one
        /// copies as it is (the common case, with no subquery).
        private func sameToOne(
            _ relationship: NSRelationshipDescription, of entity: NSEntityDescription
        ) -> NSRelationshipDescription? {
            guard let match = migration.sourceProperty(for: relationship, of: entity) as? NSRelationshipDescription,
                !match.isToMany, source.column(for: match) != nil
            else { return nil }
            return match
        }

        /// The source links a destination relationship takes: those of the source
        /// relationship it matches, else those of the source relationship its inverse
        /// matches, turned around; `nil` when neither existed.
        /// Links a statement reads once per destination row, copied into a temporary table
        /// indexed by both ends: read in place, each row would scan every link, which is
        /// quadratic on a large store.
        private func indexed(_ links: Links) throws -> Links {
            let name: String
            if let known = linkTables.names[links.query.sql] {
                name = known
            } else {
                name = SQLMigrationStatements.linkTableName(linkTables.names.count)
                for statement in SQLMigrationStatements.createLinkTable(name, links: links.query, dialect) {
                    try db.execute(statement)
                }
                linkTables.names[links.query.sql] = name
            }
            return Links(
                query: SQLMigrationStatements.linkTable(name, dialect), owner: links.owner, target: links.target)
        }

        /// Drops the temporary link tables (they would outlive the migration on the
        /// store's connection).
        func dropLinkTables() throws {
            for name in linkTables.names.values {
                try db.execute(SQLMigrationStatements.dropLinkTable(name, dialect))
            }
            linkTables.names = [:]
        }

        private func links(into relationship: NSRelationshipDescription, of entity: NSEntityDescription) -> Links? {
            if let links = combinedLinks(of: relationship, from: entity) { return links }
            guard let inverse = relationship.inverseRelationship, let inverseOwner = inverse.entity else { return nil }
            return combinedLinks(of: inverse, from: inverseOwner)?.flipped(dialect)
        }

        /// The links of the source relationships `relationship` of `entity` comes from: the
        /// entity's own match, and its subentities' when the relationship moved up into
        /// `entity` from them. Links kept in other tables than the first's are left out (the
        /// rows they join would not be found there).
        private func combinedLinks(
            of relationship: NSRelationshipDescription, from entity: NSEntityDescription
        ) -> Links? {
            var parts: [Links] = []
            for owner in entity.facts.selfAndDescendants {
                guard let match = migration.sourceProperty(for: relationship, of: owner) as? NSRelationshipDescription,
                    let links = migration.links(of: match), !parts.contains(where: { $0.query.sql == links.query.sql })
                else { continue }
                if let first = parts.first {
                    guard (try? source.table(for: first.owner).name) == (try? source.table(for: links.owner).name),
                        (try? source.table(for: first.target).name) == (try? source.table(for: links.target).name)
                    else { continue }
                }
                parts.append(links)
            }
            guard let first = parts.first else { return nil }
            guard parts.count > 1 else { return first }
            return Links(
                query: SQLMigrationStatements.union(parts.map(\.query)), owner: first.owner, target: first.target)
        }

        // MARK: External storage, required values, constraints

        /// Values of attributes that start or stop allowing external storage change form:
        /// stored outside, a value is `0x01`+bytes inline or `0x02`+a file name, so bytes
        /// gain the inline marker, and lose it (or are read back from their file).
        func convertExternalStorage() throws {
            // An engine keeping every value in its row stores them alike either way.
            guard let externalValue = migration.externalValue else { return }
            for entity in destination.entities {
                let table = try destination.table(for: entity)
                for attribute in entity.attributesByName.values where attribute.entity === entity {
                    guard let match = migration.sourceProperty(for: attribute, of: entity) as? NSAttributeDescription,
                        match.allowsExternalBinaryDataStorage != attribute.allowsExternalBinaryDataStorage,
                        let column = destination.column(for: attribute)
                    else { continue }
                    let read = SQLExternalDataStatements.values([column], table: table.name)
                    for key in try db.integers(
                        SQLExternalDataStatements.keysWithValues(column, table: table.name, entity: entity))
                    {
                        var stored: Data?
                        try db.forEachRow(read.binding([key.sqlScalar])) { row in
                            if case .blob(let data) = row[0] { stored = data }
                        }
                        guard let stored else { continue }
                        let converted =
                            attribute.allowsExternalBinaryDataStorage
                            ? Data([0x01]) + stored : try externalValue(stored)
                        try db.execute(
                            SQLExternalDataStatements.setValue(
                                converted.sqlScalar, column: column, table: table.name, key: key))
                    }
                }
            }
        }

        /// Throws when a migrated object has no value for a required attribute (one made
        /// required without a default, or new without one), as Core Data's migration fails
        /// validation rather than leave objects no save would accept.
        func checkRequiredValues() throws {
            for entity in destination.entities {
                let table = try destination.table(for: entity)
                for attribute in entity.attributesByName.values.sorted(by: { $0.name < $1.name })
                where attribute.entity === entity && !attribute.isOptional && attribute.isStored {
                    if let composite = attribute as? NSCompositeAttributeDescription {
                        try checkRequiredElements(of: composite, entity: entity, table: table.name)
                        continue
                    }
                    guard let column = destination.column(for: attribute),
                        let missing = try db.integer(
                            SQLMigrationStatements.countMissing(column, table: table.name, entity: entity)),
                        missing > 0
                    else { continue }
                    throw CoreDataError.make(
                        NSMigrationError,
                        "The migration failed in entity mapping '\(migration.entityMapping(for: entity)?.name ?? entity.name ?? "?")': \(missing) '\(entity.name ?? "?")' object\(missing == 1 ? " has" : "s have") no value for the required attribute '\(attribute.name)' (give it a default value, or keep it optional)"
                    )
                }
            }
        }

        /// Throws when a migrated object's required composite lacks a required element.
        private func checkRequiredElements(
            of composite: NSCompositeAttributeDescription, entity: NSEntityDescription, table: String
        ) throws {
            for column in destination.compositeColumns(for: composite) ?? [] {
                var required = true
                var current: NSCompositeAttributeDescription? = composite
                for name in column.path {
                    let element = current?.elements.first { $0.name == name }
                    if element?.isOptional ?? true { required = false }
                    current = element as? NSCompositeAttributeDescription
                }
                guard required,
                    let missing = try db.integer(
                        SQLMigrationStatements.countMissing(column.name, table: table, entity: entity)), missing > 0
                else { continue }
                let key = ([composite.name] + column.path).joined(separator: ".")
                throw CoreDataError.make(
                    NSMigrationError,
                    "The migration failed in entity mapping '\(migration.entityMapping(for: entity)?.name ?? entity.name ?? "?")': \(missing) '\(entity.name ?? "?")' object\(missing == 1 ? " has" : "s have") no value for the required element '\(key)' (give it a default value, or keep it optional)"
                )
            }
        }

        // MARK: Constraints

        /// Throws `NSMigrationConstraintViolationError` when two migrated objects hold the
        /// same values under one of the destination's uniqueness constraints (a constraint
        /// new in this version, or one whose rows were merged), as Core Data refuses such a
        /// migration rather than dropping objects. Rows with a NULL among the values are not
        /// compared, as in SQL.
        func checkUniquenessConstraints() throws {
            for entity in destination.entities {
                let table = try destination.table(for: entity)
                for constraint in entity.uniquenessConstraints {
                    let names = NSEntityDescription.propertyNames(inConstraint: constraint)
                    let columns = names.compactMap { entity.propertiesByName[$0].flatMap(destination.column(for:)) }
                    guard !columns.isEmpty, columns.count == names.count else { continue }
                    var duplicate: [SQLScalar]?
                    try db.forEachRow(SQLMigrationStatements.duplicate(columns, table: table.name, entity: entity)) {
                        row in duplicate = (0..<row.count).map { row[$0] }
                    }
                    guard let duplicate else { continue }
                    let values = duplicate.map(\.sqlDescription).joined(separator: ", ")
                    throw CoreDataError.make(
                        NSMigrationConstraintViolationError,
                        "Constraint violation during the migration (entity mapping '\(migration.entityMapping(for: entity)?.name ?? entity.name ?? "?")'): more than one '\(entity.name ?? "?")' has \(names.joined(separator: ", ")) = \(values)"
                    )
                }
            }
        }

        // MARK: Join tables

        func copyJoinTables() throws {
            for entity in destination.entities {
                for relationship in entity.relationshipsByName.values
                where relationship.entity === entity && relationship.isToMany {
                    guard let join = destination.storage(of: relationship)?.joinTable, join.isWritingSide,
                        let links = links(into: relationship, of: entity),
                        let columns = destination.joinTables.first(where: { $0.name == join.name })?.columns.map(\.name)
                    else { continue }
                    // Positions the source did not keep become the keys' order.
                    let values = columns.map { column -> (name: String, value: SQLMigrationStatements.JoinValue) in
                        switch column {
                        case join.sourceColumn: (column, .owner)
                        case join.destinationColumn: (column, .destination)
                        case join.orderColumn: (column, .position)
                        default: (column, .inversePosition)
                        }
                    }
                    guard let target = relationship.destinationEntity,
                        let owners = try rows(of: links.owner, becoming: entity),
                        let targets = try rows(of: links.target, becoming: target)
                    else { continue }
                    try execute(
                        SQLMigrationStatements.copyJoinRows(
                            into: join.name, columns: values, links: links.query, owners: owners, targets: targets,
                            dialect),
                        mapping: migration.entityMapping(for: entity)?.name)
                }
            }
        }
    }

    /// The links of a source relationship, from however the source stored it.
    package func links(of relationship: NSRelationshipDescription) -> Links? {
        guard let owner = relationship.entity, let target = relationship.destinationEntity,
            let ownerTable = try? source.table(for: owner), let targetTable = try? source.table(for: target)
        else { return nil }
        if !relationship.isToMany, let key = source.column(for: relationship) {
            return Links(
                query: SQLMigrationStatements.toOneLinks(
                    of: owner, table: ownerTable.name, column: key, orderColumn: source.orderColumn(for: relationship),
                    source.dialect),
                owner: owner, target: target)
        }
        switch source.storage(of: relationship) {
        case .joinTable(let join):
            let inverseOrder = relationship.inverseRelationship.flatMap {
                $0 === relationship ? nil : source.storage(of: $0)?.joinTable?.orderColumn
            }
            return Links(
                query: SQLMigrationStatements.joinTableLinks(join, inverseOrderColumn: inverseOrder, source.dialect),
                owner: owner,
                target: target)
        case .hiddenColumn(let hidden):
            return Links(
                query: SQLMigrationStatements.hiddenColumnLinks(
                    to: target, table: targetTable.name, column: hidden, source.dialect),
                owner: owner, target: target)
        case .inverseKey(let inverse, _, _):
            // Stored by its inverse's key: the inverse's links, the other way round.
            return links(of: inverse)?.flipped(destination.dialect)
        case nil:
            return nil
        }
    }
}

/// The temporary link tables of one migration run, by the query they hold.
final class LinkTables {
    var names: [String: String] = [:]
}
