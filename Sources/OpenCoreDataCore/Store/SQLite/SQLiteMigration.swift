import GRDB

/// Runs an inferred mapping (lightweight migration) on a store's database with SQL,
/// inside the caller's transaction: no object is loaded, and a failure leaves nothing
/// changed once the transaction rolls back.
///
/// The source tables are renamed aside, the destination model's tables are created,
/// rows are copied with one `INSERT … SELECT` per destination entity (entity numbers,
/// renamed columns and defaults mapped in SQL), join tables likewise, then the old
/// tables go and `Z_PRIMARYKEY`, `Z_METADATA` and persistent history follow the new
/// entity numbers.
struct SQLiteMigration {
    let db: Database
    let source: SQLiteSchema
    let destination: SQLiteSchema
    let mapping: NSMappingModel

    private static let asidePrefix = "OCDMIG_"

    /// What a destination column holds.
    private enum ColumnRole {
        case attribute(NSAttributeDescription)
        case foreignKey(NSRelationshipDescription)
        case entityNumber(NSRelationshipDescription)
        case order(NSRelationshipDescription)
        case owner(NSRelationshipDescription)
    }

    func run() throws {
        try checkTreesStayApart()
        let oldMaxima = try Dictionary(Row.fetchAll(db, sql: "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY").map { (($0[0] as Int?) ?? 0, ($0[1] as Int64?) ?? 0) }, uniquingKeysWith: max)
        let oldTables = source.tables.map(\.name) + source.joinTables.map(\.name)
        let quotedOld = oldTables.map { "'\($0)'" }.joined(separator: ", ")
        for index in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (\(quotedOld))") {
            try db.execute(sql: "DROP INDEX \"\(index)\"")
        }
        for table in oldTables { try db.execute(sql: "ALTER TABLE \(table) RENAME TO \(Self.asidePrefix)\(table)") }
        let bookkeeping = ["CREATE TABLE Z_PRIMARYKEY", "CREATE TABLE Z_METADATA", "CREATE TABLE Z_MODELCACHE"]
        for statement in destination.createStatements() where !bookkeeping.contains(where: statement.hasPrefix) {
            try db.execute(sql: statement)
        }
        for table in destination.tables {
            for entity in table.root.facts.selfAndDescendants {
                guard let sourceEntity = sourceEntity(for: entity) else { continue }
                try copyRows(of: sourceEntity, into: entity, table: table)
            }
        }
        try copyJoinTables()
        for table in oldTables { try db.execute(sql: "DROP TABLE \(Self.asidePrefix)\(table)") }
        try rebuildPrimaryKeys(oldMaxima: oldMaxima)
        try renumberHistory()
        // A cached model of the old version would describe tables that are gone.
        if try db.tableExists("Z_MODELCACHE") { try db.execute(sql: "DELETE FROM Z_MODELCACHE") }
    }

    /// Rows keep their primary keys, so every destination table must take its rows
    /// from one source table (keys are unique only within a table).
    private func checkTreesStayApart() throws {
        for table in destination.tables {
            let sources = Set(table.root.facts.selfAndDescendants.compactMap { sourceEntity(for: $0).map { ObjectIdentifier($0.facts.root) } })
            if sources.count > 1 {
                throw unsupported("entities of separate inheritance hierarchies moved into the hierarchy of '\(table.root.name ?? "?")'")
            }
        }
    }

    // MARK: Matching

    private func entityMapping(for entity: NSEntityDescription) -> NSEntityMapping? {
        mapping.entityMappings.first { $0.destinationEntityName == entity.name && $0.mappingType != .removeEntityMappingType }
    }

    private func sourceEntity(for entity: NSEntityDescription) -> NSEntityDescription? {
        guard let name = entityMapping(for: entity)?.sourceEntityName else { return nil }
        return source.entities.first { $0.name == name }
    }

    /// The source property an inferred mapping copies into `property` of `entity`.
    private func sourceProperty(for property: NSPropertyDescription, of entity: NSEntityDescription) -> NSPropertyDescription? {
        guard let entityMapping = entityMapping(for: entity), let sourceEntity = sourceEntity(for: entity) else { return nil }
        let mappings = (property is NSAttributeDescription ? entityMapping.attributeMappings : entityMapping.relationshipMappings) ?? []
        guard let name = mappings.first(where: { $0.name == property.name })?.sourcePropertyName else { return nil }
        return sourceEntity.facts.propertiesByName[name]
    }

    /// The destination entity number a source entity number becomes (`nil`: removed).
    private func destinationNumber(ofSource number: Int) -> Int? {
        guard let entity = source.entitiesByNumber[number] else { return nil }
        return destination.entities.first { sourceEntity(for: $0) === entity }?.facts.entityNumber
    }

    /// `CASE x WHEN old THEN new … END`: a source entity number as its destination one.
    private func renumbered(_ expression: String) -> String {
        let cases = source.entitiesByNumber.keys.sorted().compactMap { old in destinationNumber(ofSource: old).map { "WHEN \(old) THEN \($0)" } }
        return cases.isEmpty ? "NULL" : "(CASE \(expression) \(cases.joined(separator: " ")) END)"
    }

    // MARK: Rows

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

    private func copyRows(of sourceEntity: NSEntityDescription, into entity: NSEntityDescription, table: SQLiteSchema.Table) throws {
        let sourceTable = try source.table(for: sourceEntity)
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var values = ["Z_PK", String(entity.facts.entityNumber), "Z_OPT"]
        var arguments: [DatabaseValue] = []
        let roles = roles(in: table)
        for column in table.columns.map(\.name) {
            guard let role = roles[column] else { continue }
            guard let (value, bound) = try value(for: role, of: entity, from: sourceTable) else { continue }
            columns.append(column)
            values.append(value)
            arguments += bound
        }
        try db.execute(
            sql: "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(Self.asidePrefix)\(sourceTable.name) WHERE Z_ENT = \(sourceEntity.facts.entityNumber)",
            arguments: StatementArguments(arguments)
        )
    }

    /// The SQL (and bound values) for one destination column of `entity`'s rows;
    /// `nil` when the column stays NULL for them.
    private func value(for role: ColumnRole, of entity: NSEntityDescription, from sourceTable: SQLiteSchema.Table) throws -> (String, [DatabaseValue])? {
        func owns(_ property: NSPropertyDescription) -> Bool { entity.facts.slots.contains { $0 === property } }
        switch role {
        case .attribute(let attribute):
            guard owns(attribute) else { return nil }
            return try attributeValue(attribute, of: entity)
        case .foreignKey(let relationship):
            guard owns(relationship), let match = try sourceToOne(for: relationship, of: entity) else { return nil }
            return (source.column(for: match).map { "\($0)" } ?? "NULL", [])
        case .entityNumber(let relationship):
            guard owns(relationship), let match = try sourceToOne(for: relationship, of: entity), let key = source.column(for: match) else { return nil }
            if let column = source.entityColumn(for: match) { return (renumbered(column), []) }
            let number = match.destinationEntity.flatMap { destinationNumber(ofSource: $0.facts.entityNumber) }
            return ("(CASE WHEN \(key) IS NULL THEN NULL ELSE \(number.map(String.init) ?? "NULL") END)", [])
        case .order(let relationship):
            guard owns(relationship), let match = try sourceToOne(for: relationship, of: entity) else { return nil }
            return (source.orderColumn(for: match) ?? "Z_PK", [])
        case .owner(let relationship):
            guard let owner = relationship.entity as NSEntityDescription?,
                  let match = sourceProperty(for: relationship, of: owner) as? NSRelationshipDescription else { return nil }
            guard let column = source.hiddenColumn(for: match), sourceTable.columns.contains(where: { $0.name == column }) else {
                throw unsupported("the to-many relationship '\(relationship.name)' of '\(owner.name ?? "?")' changed how it is stored")
            }
            return (column, [])
        }
    }

    private func attributeValue(_ attribute: NSAttributeDescription, of entity: NSEntityDescription) throws -> (String, [DatabaseValue])? {
        let match = sourceProperty(for: attribute, of: entity) as? NSAttributeDescription
        let fallback = try attribute.defaultValue.map { try SQLiteValueCoding.databaseValue($0, type: attribute.attributeType, transformerName: attribute.valueTransformerName) }
        guard let match, let column = source.column(for: match) else {
            return fallback.map { ("?", [$0]) }
        }
        let integers: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType]
        var expression = column
        if integers.contains(attribute.attributeType), !integers.contains(match.attributeType) { expression = "CAST(\(column) AS INTEGER)" }
        if !attribute.isOptional, let fallback { return ("COALESCE(\(expression), ?)", [fallback]) }
        return (expression, [])
    }

    /// The source to-one a destination to-one copies; a to-many source is a change of storage not supported yet.
    private func sourceToOne(for relationship: NSRelationshipDescription, of entity: NSEntityDescription) throws -> NSRelationshipDescription? {
        guard let match = sourceProperty(for: relationship, of: entity) as? NSRelationshipDescription else { return nil }
        guard !match.isToMany else { throw unsupported("the relationship '\(relationship.name)' of '\(entity.name ?? "?")' changed from to-many to to-one") }
        return match
    }

    // MARK: Join tables, keys, history

    private func copyJoinTables() throws {
        for entity in destination.entities {
            for relationship in entity.relationshipsByName.values where relationship.entity === entity && relationship.isToMany {
                guard let join = destination.joinTable(for: relationship), join.isWritingSide,
                      let match = sourceProperty(for: relationship, of: entity) as? NSRelationshipDescription else { continue }
                guard match.isToMany, let sourceJoin = source.joinTable(for: match) else {
                    throw unsupported("the relationship '\(relationship.name)' of '\(entity.name ?? "?")' became many-to-many")
                }
                var columns = [join.sourceColumn, join.destinationColumn]
                var values = [sourceJoin.sourceColumn, sourceJoin.destinationColumn]
                if let order = join.orderColumn {
                    columns.append(order)
                    values.append(sourceJoin.orderColumn ?? "rowid")
                }
                let sourceName = source.joinTables.first { $0.name == sourceJoin.name }.map(\.name) ?? sourceJoin.name
                try db.execute(sql: "INSERT INTO \(join.name) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(Self.asidePrefix)\(sourceName)")
            }
        }
        // A many-to-many whose source was stored otherwise is caught above; one whose
        // destination is no longer many-to-many loses nothing it could keep.
        for entity in destination.entities {
            for relationship in entity.relationshipsByName.values where relationship.entity === entity && relationship.isToMany && destination.joinTable(for: relationship) == nil {
                if let match = sourceProperty(for: relationship, of: entity) as? NSRelationshipDescription, source.joinTable(for: match) != nil {
                    throw unsupported("the many-to-many relationship '\(relationship.name)' of '\(entity.name ?? "?")' changed how it is stored")
                }
            }
        }
    }

    private func rebuildPrimaryKeys(oldMaxima: [Int: Int64]) throws {
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY")
        for entity in destination.entities {
            let table = try destination.table(for: entity)
            let number = entity.facts.entityNumber
            let used = try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(table.name) WHERE Z_ENT = ?", arguments: [number]) ?? 0
            let counter = sourceEntity(for: entity).flatMap { oldMaxima[$0.facts.entityNumber] } ?? 0
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                           arguments: [number, entity.name, entity.superentity?.facts.entityNumber ?? 0, max(used, counter)])
        }
    }

    /// History rows name entities by number; they follow the renumbering (removed entities keep theirs).
    private func renumberHistory() throws {
        guard try db.tableExists("ACHANGE") else { return }
        let cases = source.entitiesByNumber.keys.sorted().compactMap { old in destinationNumber(ofSource: old).map { "WHEN \(old) THEN \($0)" } }
        guard !cases.isEmpty else { return }
        try db.execute(sql: "UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(cases.joined(separator: " ")) ELSE ZENTITY END")
    }

    private func unsupported(_ change: String) -> NSError {
        CoreDataError.make(NSMigrationError, "Lightweight migration in OpenCoreData does not handle this change yet: \(change)")
    }
}
