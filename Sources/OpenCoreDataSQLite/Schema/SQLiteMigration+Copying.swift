import OpenCoreDataCore
import GRDB

extension SQLiteMigration {
    /// What a destination column holds.
    enum ColumnRole {
        case attribute(NSAttributeDescription)
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
    struct Links {
        let sql: String
        /// The source entities whose keys `o` and `d` are.
        let owner: NSEntityDescription
        let target: NSEntityDescription

        var flipped: Links {
            Links(sql: "SELECT d AS o, o AS d, ipos AS pos, pos AS ipos FROM (\(sql))", owner: target, target: owner)
        }
    }

    /// Copies rows and links into the destination tables (rows keep their primary keys).
    struct Run {
        let migration: SQLiteMigration
        /// Temporary tables of links read once per row (see ``indexed(_:)``), by query.
        private let linkTables = LinkTables()

        private var db: Database { migration.db }
        private var source: SQLiteSchema { migration.source }
        private var destination: SQLiteSchema { migration.destination }

        /// Runs one statement; a failure (a NULL in a required column, a duplicate under a
        /// new uniqueness constraint) names the entity mapping it belongs to.
        func execute(_ sql: String, arguments: [DatabaseValue] = [], mapping: String?) throws {
            do {
                try db.execute(sql: sql, arguments: StatementArguments(arguments))
            } catch let error as DatabaseError {
                let place = mapping.map { " in entity mapping '\($0)'" } ?? ""
                throw CoreDataError.make(NSMigrationError, "The migration failed\(place): \(error.message ?? error.description)", [NSUnderlyingErrorKey: error as NSError])
            }
        }

        // MARK: Rows

        func copyRows(of sourceEntity: NSEntityDescription, into entity: NSEntityDescription, table: SQLiteSchema.Table) throws {
            let sourceTable = try source.table(for: sourceEntity)
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
            var values = ["S.Z_PK", String(entity.facts.entityNumber), "S.Z_OPT"]
            var arguments: [DatabaseValue] = []
            let roles = roles(in: table)
            for column in table.columns.map(\.name) {
                guard let role = roles[column] else { continue }
                guard let (value, bound) = try value(for: role, of: entity) else { continue }
                columns.append(column)
                values.append(value)
                arguments += bound
            }
            let name = migration.entityMapping(for: entity)?.name
            try execute(
                "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(SQLiteMigration.asidePrefix)\(sourceTable.name) AS S WHERE S.Z_ENT = \(sourceEntity.facts.entityNumber)",
                arguments: arguments, mapping: name
            )
        }

        /// The destination table's columns with what each holds.
        private func roles(in table: SQLiteSchema.Table) -> [String: ColumnRole] {
            var roles: [String: ColumnRole] = [:]
            for entity in table.root.facts.selfAndDescendants {
                for property in entity.facts.slots where property.entity === entity && property.isStored {
                    if let attribute = property as? NSAttributeDescription, let column = destination.column(for: attribute) {
                        roles[column] = .attribute(attribute)
                    } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany {
                        if let column = destination.column(for: relationship) { roles[column] = .foreignKey(relationship) }
                        if let column = destination.entityColumn(for: relationship) { roles[column] = .entityNumber(relationship) }
                        if let column = destination.orderColumn(for: relationship) { roles[column] = .order(relationship) }
                    }
                }
            }
            for entity in destination.entities {
                for relationship in entity.relationshipsByName.values where relationship.entity === entity && relationship.isToMany {
                    if let column = destination.hiddenColumn(for: relationship), relationship.destinationEntity?.facts.root === table.root {
                        roles[column] = .owner(relationship)
                    }
                }
            }
            return roles
        }

        /// The SQL (and bound values) for one destination column of `entity`'s rows, read
        /// from the source row `S`; `nil` when the column stays NULL for them.
        private func value(for role: ColumnRole, of entity: NSEntityDescription) throws -> (String, [DatabaseValue])? {
            func owns(_ property: NSPropertyDescription) -> Bool { entity.facts.slots.contains { $0 === property } }
            switch role {
            case .attribute(let attribute):
                guard owns(attribute) else { return nil }
                return try attributeValue(attribute, of: entity)
            case .foreignKey(let relationship):
                guard owns(relationship), let (key, target) = try sourceKey(for: relationship, of: entity) else { return nil }
                return (try validTarget(key, in: target, for: relationship, column: "Z_PK"), [])
            case .entityNumber(let relationship):
                guard owns(relationship), let (key, target) = try sourceKey(for: relationship, of: entity) else { return nil }
                return (migration.renumbered(try validTarget(key, in: target, for: relationship, column: "Z_ENT")), [])
            case .order(let relationship):
                guard owns(relationship) else { return nil }
                if let match = sameToOne(relationship, of: entity) {
                    return (source.orderColumn(for: match).map { "COALESCE(S.\($0), S.Z_PK)" } ?? "S.Z_PK", [])
                }
                guard let links = try links(into: relationship, of: entity).map(indexed) else { return nil }
                return ("COALESCE((SELECT ipos FROM (\(links.sql)) WHERE o = S.Z_PK ORDER BY pos LIMIT 1), S.Z_PK)", [])
            case .owner(let relationship):
                guard let owner = relationship.entity as NSEntityDescription?, let target = relationship.destinationEntity,
                      entity.isKindOf(entity: target), let links = try links(into: relationship, of: owner).map(indexed),
                      let owners = try rows(of: links.owner, becoming: owner) else { return nil }
                return ("(SELECT o FROM (\(links.sql)) WHERE d = S.Z_PK AND o IN (\(owners)) LIMIT 1)", [])
            }
        }

        private func attributeValue(_ attribute: NSAttributeDescription, of entity: NSEntityDescription) throws -> (String, [DatabaseValue])? {
            let match = migration.sourceProperty(for: attribute, of: entity) as? NSAttributeDescription
            let fallback = try attribute.defaultValue.map { try SQLiteValueCoding.databaseValue($0, type: attribute.attributeType, transformerName: attribute.valueTransformerName) }
            guard let match, let column = source.column(for: match) else {
                return fallback.map { ("?", [$0]) }
            }
            let integers: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType]
            var expression = "S.\(column)"
            if integers.contains(attribute.attributeType), !integers.contains(match.attributeType) { expression = "CAST(\(expression) AS INTEGER)" }
            if !attribute.isOptional, let fallback { return ("COALESCE(\(expression), ?)", [fallback]) }
            return (expression, [])
        }

        /// The source row a destination to-one of the row `S` points at (SQL giving its key),
        /// and the source entity that key belongs to: the same row's column when the source
        /// was a to-one too, else the first of the source links.
        private func sourceKey(for relationship: NSRelationshipDescription, of entity: NSEntityDescription) throws -> (String, NSEntityDescription)? {
            if let match = sameToOne(relationship, of: entity), let column = source.column(for: match), let target = match.destinationEntity {
                return ("S.\(column)", target)
            }
            guard let links = try links(into: relationship, of: entity).map(indexed) else { return nil }
            return ("(SELECT d FROM (\(links.sql)) WHERE o = S.Z_PK ORDER BY pos LIMIT 1)", links.target)
        }

        /// `column` (`Z_PK` or `Z_ENT`) of the source row `key` names, when that row becomes
        /// an object the destination relationship may hold; NULL otherwise (the target was
        /// removed, or became an entity outside the relationship's destination), so no
        /// link points at a row that is gone or of the wrong entity.
        private func validTarget(_ key: String, in target: NSEntityDescription, for relationship: NSRelationshipDescription, column: String) throws -> String {
            guard let destinationTarget = relationship.destinationEntity, let rows = try rows(of: target, becoming: destinationTarget) else { return "NULL" }
            let table = try source.table(for: target)
            return "(SELECT T.\(column) FROM \(SQLiteMigration.asidePrefix)\(table.name) AS T WHERE T.Z_PK = \(key) AND T.Z_PK IN (\(rows)))"
        }

        /// A query of the keys of the rows in `sourceEntity`'s table that become objects of
        /// `destinationEntity` (or its subentities); `nil` when none do.
        private func rows(of sourceEntity: NSEntityDescription, becoming destinationEntity: NSEntityDescription) throws -> String? {
            let numbers = migration.sourceNumbers(becoming: destinationEntity)
            guard !numbers.isEmpty else { return nil }
            let table = try source.table(for: sourceEntity)
            return "SELECT Z_PK FROM \(SQLiteMigration.asidePrefix)\(table.name) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))"
        }

        /// The source to-one stored in a column of the same row that a destination to-one
        /// copies as it is (the common case, with no subquery).
        private func sameToOne(_ relationship: NSRelationshipDescription, of entity: NSEntityDescription) -> NSRelationshipDescription? {
            guard let match = migration.sourceProperty(for: relationship, of: entity) as? NSRelationshipDescription,
                  !match.isToMany, source.column(for: match) != nil else { return nil }
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
            if let known = linkTables.names[links.sql] {
                name = known
            } else {
                name = "\(SQLiteMigration.asidePrefix)LINKS_\(linkTables.names.count)"
                try db.execute(sql: "CREATE TEMP TABLE \(name) AS SELECT o, d, pos, ipos FROM (\(links.sql))")
                try db.execute(sql: "CREATE INDEX temp.\(name)_O ON \(name) (o, pos); CREATE INDEX temp.\(name)_D ON \(name) (d)")
                linkTables.names[links.sql] = name
            }
            return Links(sql: "SELECT o, d, pos, ipos FROM temp.\(name)", owner: links.owner, target: links.target)
        }

        /// Drops the temporary link tables (they would outlive the migration on the
        /// store's connection).
        func dropLinkTables() throws {
            for name in linkTables.names.values { try db.execute(sql: "DROP TABLE temp.\(name)") }
            linkTables.names = [:]
        }

        private func links(into relationship: NSRelationshipDescription, of entity: NSEntityDescription) -> Links? {
            if let links = combinedLinks(of: relationship, from: entity) { return links }
            guard let inverse = relationship.inverseRelationship, let inverseOwner = inverse.entity else { return nil }
            return combinedLinks(of: inverse, from: inverseOwner)?.flipped
        }

        /// The links of the source relationships `relationship` of `entity` comes from: the
        /// entity's own match, and its subentities' when the relationship moved up into
        /// `entity` from them. Links kept in other tables than the first's are left out (the
        /// rows they join would not be found there).
        private func combinedLinks(of relationship: NSRelationshipDescription, from entity: NSEntityDescription) -> Links? {
            var parts: [Links] = []
            for owner in entity.facts.selfAndDescendants {
                guard let match = migration.sourceProperty(for: relationship, of: owner) as? NSRelationshipDescription,
                      let links = migration.links(of: match), !parts.contains(where: { $0.sql == links.sql }) else { continue }
                if let first = parts.first {
                    guard (try? source.table(for: first.owner).name) == (try? source.table(for: links.owner).name),
                          (try? source.table(for: first.target).name) == (try? source.table(for: links.target).name) else { continue }
                }
                parts.append(links)
            }
            guard let first = parts.first else { return nil }
            guard parts.count > 1 else { return first }
            return Links(sql: parts.map(\.sql).joined(separator: " UNION ALL "), owner: first.owner, target: first.target)
        }

        // MARK: External storage, required values, constraints

        /// Values of attributes that start or stop allowing external storage change form:
        /// stored outside, a value is `0x01`+bytes inline or `0x02`+a file name, so bytes
        /// gain the inline marker, and lose it (or are read back from their file).
        func convertExternalStorage() throws {
            let files = ExternalBinaryStorage(url: migration.url)
            for entity in destination.entities {
                let table = try destination.table(for: entity)
                for attribute in entity.attributesByName.values where attribute.entity === entity {
                    guard let match = migration.sourceProperty(for: attribute, of: entity) as? NSAttributeDescription,
                          match.allowsExternalBinaryDataStorage != attribute.allowsExternalBinaryDataStorage,
                          let column = destination.column(for: attribute) else { continue }
                    let numbers = entity.facts.selfAndDescendants.map { String($0.facts.entityNumber) }.joined(separator: ", ")
                    let keys = try Int64.fetchAll(db, sql: "SELECT Z_PK FROM \(table.name) WHERE Z_ENT IN (\(numbers)) AND \(column) IS NOT NULL")
                    for key in keys {
                        guard let stored = try Data.fetchOne(db, sql: "SELECT \(column) FROM \(table.name) WHERE Z_PK = ?", arguments: [key]) else { continue }
                        let converted = attribute.allowsExternalBinaryDataStorage ? Data([0x01]) + stored : try files.read(stored)
                        try db.execute(sql: "UPDATE \(table.name) SET \(column) = ? WHERE Z_PK = ?", arguments: [converted, key])
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
                let numbers = entity.facts.selfAndDescendants.map { String($0.facts.entityNumber) }.joined(separator: ", ")
                for attribute in entity.attributesByName.values.sorted(by: { $0.name < $1.name })
                    where attribute.entity === entity && !attribute.isOptional && attribute.isStored {
                    guard let column = destination.column(for: attribute),
                          let missing = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.name) WHERE Z_ENT IN (\(numbers)) AND \(column) IS NULL"), missing > 0
                    else { continue }
                    throw CoreDataError.make(
                        NSMigrationError,
                        "The migration failed in entity mapping '\(migration.entityMapping(for: entity)?.name ?? entity.name ?? "?")': \(missing) '\(entity.name ?? "?")' object\(missing == 1 ? " has" : "s have") no value for the required attribute '\(attribute.name)' (give it a default value, or keep it optional)"
                    )
                }
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
                let numbers = entity.facts.selfAndDescendants.map { String($0.facts.entityNumber) }.joined(separator: ", ")
                for constraint in entity.uniquenessConstraints {
                    let names = NSEntityDescription.propertyNames(inConstraint: constraint)
                    let columns = names.compactMap { entity.propertiesByName[$0].flatMap(destination.column(for:)) }
                    guard !columns.isEmpty, columns.count == names.count else { continue }
                    let filled = columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
                    let list = columns.joined(separator: ", ")
                    let sql = "SELECT \(list) FROM \(table.name) WHERE Z_ENT IN (\(numbers)) AND \(filled) GROUP BY \(list) HAVING COUNT(*) > 1 LIMIT 1"
                    guard let row = try Row.fetchOne(db, sql: sql) else { continue }
                    let values = row.databaseValues.map(\.description).joined(separator: ", ")
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
                for relationship in entity.relationshipsByName.values where relationship.entity === entity && relationship.isToMany {
                    guard let join = destination.joinTable(for: relationship), join.isWritingSide,
                          let links = links(into: relationship, of: entity),
                          let columns = destination.joinTables.first(where: { $0.name == join.name })?.columns.map(\.name) else { continue }
                    // Positions the source did not keep become the keys' order.
                    let values = columns.map { column -> String in
                        switch column {
                        case join.sourceColumn: "o"
                        case join.destinationColumn: "d"
                        case join.orderColumn: "COALESCE(pos, d)"
                        default: "COALESCE(ipos, o)"
                        }
                    }
                    guard let target = relationship.destinationEntity, let owners = try rows(of: links.owner, becoming: entity),
                          let targets = try rows(of: links.target, becoming: target) else { continue }
                    let mapping = migration.entityMapping(for: entity)?.name
                    try execute("INSERT OR IGNORE INTO \(join.name) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM (\(links.sql)) WHERE o IN (\(owners)) AND d IN (\(targets))",
                                mapping: mapping)
                }
            }
        }
    }

    /// The links of a source relationship, from however the source stored it.
    func links(of relationship: NSRelationshipDescription) -> Links? {
        guard let owner = relationship.entity, let target = relationship.destinationEntity,
              let ownerTable = try? source.table(for: owner), let targetTable = try? source.table(for: target) else { return nil }
        let aside = Self.asidePrefix
        func numbers(_ entity: NSEntityDescription) -> String {
            entity.facts.selfAndDescendants.map { String($0.facts.entityNumber) }.joined(separator: ", ")
        }
        if !relationship.isToMany, let key = source.column(for: relationship) {
            let ipos = source.orderColumn(for: relationship) ?? "NULL"
            return Links(sql: "SELECT Z_PK AS o, \(key) AS d, NULL AS pos, \(ipos) AS ipos FROM \(aside)\(ownerTable.name) WHERE \(key) IS NOT NULL AND Z_ENT IN (\(numbers(owner)))",
                         owner: owner, target: target)
        }
        switch source.storage(of: relationship) {
        case .joinTable(let join):
            let ipos = relationship.inverseRelationship.flatMap { $0 === relationship ? nil : source.joinTable(for: $0)?.orderColumn } ?? "NULL"
            return Links(sql: "SELECT \(join.sourceColumn) AS o, \(join.destinationColumn) AS d, \(join.orderColumn ?? "NULL") AS pos, \(ipos) AS ipos FROM \(aside)\(join.name)",
                         owner: owner, target: target)
        case .hiddenColumn(let hidden):
            return Links(sql: "SELECT \(hidden) AS o, Z_PK AS d, NULL AS pos, NULL AS ipos FROM \(aside)\(targetTable.name) WHERE \(hidden) IS NOT NULL AND Z_ENT IN (\(numbers(target)))",
                         owner: owner, target: target)
        case .inverseKey(let inverse, _, _):
            // Stored by its inverse's key: the inverse's links, the other way round.
            return links(of: inverse)?.flipped
        case nil:
            return nil
        }
    }
}

/// The temporary link tables of one migration run, by the query they hold.
final class LinkTables {
    var names: [String: String] = [:]
}
