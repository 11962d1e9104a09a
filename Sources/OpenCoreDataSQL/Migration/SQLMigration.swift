import Foundation
import OpenCoreDataCore

/// Runs an inferred mapping (lightweight migration) on a store's database with SQL,
/// inside the caller's transaction: no object is loaded, and a failure leaves nothing
/// changed once the transaction rolls back.
///
/// The source tables are renamed aside, the destination model's tables are created,
/// rows are copied with one `INSERT … SELECT` per destination entity (entity numbers,
/// renamed columns and defaults mapped in SQL), join tables likewise, then the old
/// tables go and `Z_PRIMARYKEY`, `Z_METADATA` and persistent history follow the new
/// entity numbers.
///
/// Every engine runs the same statements in its dialect: PostgreSQL's DDL is
/// transactional, so there too a failed migration leaves the old tables whole.
package struct SQLMigration<Database: SQLDatabase> {
    package let db: Database
    package let source: SQLSchema
    package let destination: SQLSchema
    package let mapping: NSMappingModel
    /// The store, for messages (its file's path, or its database's address).
    package var storeName: String
    /// Reads a value of an attribute that stops allowing external storage from its column
    /// (SQLite: inline bytes, or a file beside the store); `nil` for an engine that keeps
    /// every value in its row, whose values need no conversion.
    package var externalValue: ((Data) throws -> Data?)?
    /// Whether rows the mapping drops without saying so may go
    /// (``OpenCoreDataMigrationAllowsDataLossOption``); otherwise the migration refuses.
    package var allowsDataLoss = false

    package init(
        db: Database, source: SQLSchema, destination: SQLSchema, mapping: NSMappingModel, storeName: String,
        externalValue: ((Data) throws -> Data?)?, allowsDataLoss: Bool
    ) {
        self.db = db
        self.source = source
        self.destination = destination
        self.mapping = mapping
        self.storeName = storeName
        self.externalValue = externalValue
        self.allowsDataLoss = allowsDataLoss
    }

    private var dialect: SQLDialect { destination.dialect }

    package func run() throws {
        try checkIdentifiers()
        try checkDataLoss()
        var oldMaxima: [Int: Int64] = [:]
        try db.forEachRow(SQLPrimaryKeyStatements.counters) { row in
            let number = Int(truncatingIfNeeded: row[0].exactInteger ?? 0)
            oldMaxima[number] = max(oldMaxima[number] ?? 0, row[1].exactInteger ?? 0)
        }
        let oldTables = source.tables.map(\.name) + source.joinTables.map(\.name)
        var indexes: [String] = []
        try db.forEachRow(SQLCatalogStatements.indexNames(onTables: oldTables, dialect)) { row in
            if case .text(let name) = row[0] { indexes.append(name) }
        }
        for index in indexes { try db.execute(SQLMigrationStatements.setIndexAside(index, dialect)) }
        for table in oldTables {
            try db.execute(SQLSchemaStatements.rename(table, to: SQLMigrationStatements.aside(table)))
        }
        let run = Run(migration: self)
        // A child of the caller's current progress, if any (`cdtool migrate` draws it):
        // one unit per destination entity, one for the join tables, one for the checks.
        let progress = Progress(totalUnitCount: Int64(destination.entities.count + 2))
        // The bookkeeping tables stay: they are the same in every model.
        for statement in SQLSchemaStatements(schema: destination).create(bookkeeping: false) {
            try run.execute(statement, mapping: nil)
        }
        for table in destination.tables {
            for entity in table.root.facts.selfAndDescendants {
                if let sourceEntity = sourceEntity(for: entity) {
                    try run.copyRows(of: sourceEntity, into: entity, table: table)
                }
                progress.completedUnitCount += 1
            }
        }
        try run.copyJoinTables()
        try run.dropLinkTables()
        try run.convertExternalStorage()
        progress.completedUnitCount += 1
        try run.checkRequiredValues()
        try run.checkUniquenessConstraints()
        progress.completedUnitCount = progress.totalUnitCount
        for table in oldTables { try db.execute(SQLSchemaStatements.dropTable(SQLMigrationStatements.aside(table))) }
        try rebuildPrimaryKeys(oldMaxima: oldMaxima)
        try migrateHistory()
        // A cached model of the old version would describe tables that are gone.
        if try db.tableExists("Z_MODELCACHE") { try db.execute(SQLMetadataStatements.clearModelCache) }
    }

    /// Table and column names come from entity and property names, and a source model
    /// may come from the store file itself (its cached model): every name the statements
    /// use must be a plain SQL identifier.
    private func checkIdentifiers() throws {
        let plain = { (name: String) in
            !name.isEmpty
                && name.unicodeScalars.allSatisfy {
                    $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_")
                }
        }
        for schema in [source, destination] {
            let names =
                schema.tables.flatMap { [$0.name] + $0.columns.map(\.name) }
                + schema.joinTables.flatMap { [$0.name] + $0.columns.map(\.name) }
            if let bad = names.first(where: { !plain($0) }) {
                throw CoreDataError.make(
                    NSMigrationError,
                    "Can't migrate: the name '\(bad)' is not a plain SQL identifier (letters, digits and underscores)")
            }
        }
        // PostgreSQL cuts longer names to 63 bytes: two set-aside tables could get one name.
        if dialect == .postgreSQL,
            let long = (source.tables.map(\.name) + source.joinTables.map(\.name)).first(where: {
                SQLMigrationStatements.aside($0).utf8.count > 63
            })
        {
            throw CoreDataError.make(
                NSMigrationError,
                "Can't migrate: the table name '\(long)' is too long to be set aside in PostgreSQL (names stop at 63 bytes)"
            )
        }
    }

    // MARK: Matching

    package func entityMapping(for entity: NSEntityDescription) -> NSEntityMapping? {
        mapping.entityMappings.first {
            $0.destinationEntityName == entity.name && $0.mappingType != .removeEntityMappingType
        }
    }

    package func sourceEntity(for entity: NSEntityDescription) -> NSEntityDescription? {
        guard let name = entityMapping(for: entity)?.sourceEntityName else { return nil }
        return source.entities.first { $0.name == name }
    }

    /// The source property an inferred mapping copies into `property` of `entity`.
    package func sourceProperty(
        for property: NSPropertyDescription, of entity: NSEntityDescription
    ) -> NSPropertyDescription? {
        guard let entityMapping = entityMapping(for: entity), let sourceEntity = sourceEntity(for: entity) else {
            return nil
        }
        let mappings =
            (property is NSAttributeDescription ? entityMapping.attributeMappings : entityMapping.relationshipMappings)
            ?? []
        guard let name = mappings.first(where: { $0.name == property.name })?.sourcePropertyName else { return nil }
        return sourceEntity.facts.propertiesByName[name]
    }

    /// The numbers of the source entities whose rows become objects of `entity` or of
    /// its subentities: the rows a migrated link to `entity` may point at.
    package func sourceNumbers(becoming entity: NSEntityDescription) -> [Int] {
        source.entities.filter { sourceEntity in
            destination.entities.first { self.sourceEntity(for: $0) === sourceEntity }?.isKindOf(entity: entity)
                ?? false
        }.map(\.facts.entityNumber)
    }

    /// The destination entity number a source entity number becomes (`nil`: removed).
    package func destinationNumber(ofSource number: Int) -> Int? {
        guard let entity = source.entitiesByNumber[number] else { return nil }
        return destination.entities.first { sourceEntity(for: $0) === entity }?.facts.entityNumber
    }

    /// Each source entity number that stays, with its destination number, in order.
    package var renumbering: [(old: Int, new: Int)] {
        source.entitiesByNumber.keys.sorted().compactMap { old in destinationNumber(ofSource: old).map { (old, $0) } }
    }

    // MARK: Keys, history

    private func rebuildPrimaryKeys(oldMaxima: [Int: Int64]) throws {
        // Persistent history keeps its key counters in the same table (16001…), untouched.
        try db.execute(SQLPrimaryKeyStatements.deleteEntities(below: SQLHistory.firstReservedEntityNumber))
        for entity in destination.entities {
            let table = try destination.table(for: entity)
            let used =
                try db.integer(
                    SQLPrimaryKeyStatements.largestKey(in: table.name, entityNumber: entity.facts.entityNumber))
                ?? 0
            // Keys of deleted objects are never handed out again: the old counters of the
            // source entity and of its root (which may be the one that counted) both hold.
            let counter =
                sourceEntity(for: entity).map {
                    max(oldMaxima[$0.facts.entityNumber] ?? 0, oldMaxima[$0.facts.root.facts.entityNumber] ?? 0)
                } ?? 0
            // PostgreSQL's keys come from sequences: its counters stay 0.
            try db.execute(
                SQLPrimaryKeyStatements.insertEntity(entity, counter: dialect == .sqlite ? max(used, counter) : 0))
        }
    }

}

extension NSManagedObjectModel {
    /// The entities (of `configuration`) of the model a store is migrated from, once the
    /// model is checked valid.
    ///
    /// - Throws: `NSMigrationError` naming what makes the model invalid.
    package func migrationSourceEntities(configuration: String?) throws -> [NSEntityDescription] {
        do {
            try validateForUse()
        } catch let error as NSError {
            throw CoreDataError.make(
                NSMigrationError, "Can't migrate: the source model is not valid (\(error.localizedDescription))",
                [NSUnderlyingErrorKey: error])
        }
        return entities(forConfigurationName: configuration) ?? entities
    }
}
