import OpenCoreDataCore

/// The statements of a batch delete, all set-based. Entities without relationships or
/// external data are deleted by one statement (`directDelete`). Otherwise the keys of
/// every row to delete are gathered in a temporary table (`Z_BATCHKEYS`), first the rows the fetch
/// matches (wave 0), then, wave by wave, the destinations of Cascade relationships.
/// Checks (Deny, required inverses), nullifying, join-row cleanup and the deletes
/// themselves then each read that table in one statement per table or relationship,
/// however many rows are involved. SQL text and arguments only: running them and
/// deciding what their answers mean is the store's job.
package struct SQLBatchDeleteBuilder {
    /// A statement whose answer, when it has a row, refuses the delete.
    package struct Check {
        /// `SELECT d.Z_PK … LIMIT 1`: a destination that stays.
        package let statement: SQLFragment
        /// The relationship whose rule the answer breaks.
        package let relationship: NSRelationshipDescription
    }

    package let schema: SQLSchema
    /// The key table, in the connection's own temporary schema.
    package let keysTable: String
    /// The column of the key table that numbers its rows in the order they were added.
    package let insertionOrder: String

    package init(schema: SQLSchema) {
        self.schema = schema
        switch schema.dialect {
        case .sqlite: (keysTable, insertionOrder) = ("temp.Z_BATCHKEYS", "rowid")
        case .postgreSQL: (keysTable, insertionOrder) = ("pg_temp.Z_BATCHKEYS", "Z_ORDER")
        }
    }

    /// Drops a leftover table and creates the empty key table.
    package var setUp: [SQLFragment] {
        let integer = schema.dialect.columnType("INTEGER")
        // PostgreSQL's tables have no rowid: the order rows were added in is a column of its own.
        let order = schema.dialect == .sqlite ? "" : ", Z_ORDER \(integer) GENERATED ALWAYS AS IDENTITY"
        return [
            tearDown,
            "CREATE TEMP TABLE Z_BATCHKEYS (Z_ROOT \(raw: integer), Z_PK \(raw: integer), Z_ENT \(raw: integer), Z_WAVE \(raw: integer)\(raw: order), PRIMARY KEY (Z_ROOT, Z_PK))",
        ]
    }

    /// Removes the key table.
    package var tearDown: SQLFragment { "DROP TABLE IF EXISTS \(raw: keysTable)" }

    /// Wave 0: the rows the fetch matches (its limit and offset included).
    package func seed(_ fetch: StoreFetch) throws -> SQLFragment {
        let body = try SQLQueryBuilder(schema: schema, entity: fetch.entity).fromAndWhere(fetch)
        let root = fetch.entity.facts.root.facts.entityNumber
        return
            "INSERT INTO \(raw: keysTable) (Z_ROOT, Z_PK, Z_ENT, Z_WAVE) SELECT \(raw: String(root)), t0.Z_PK, t0.Z_ENT, 0 \(body)\(raw: SQLQueryBuilder.window(fetch, schema.dialect))\(raw: locking("t0"))"
    }

    /// Where writers run at once (PostgreSQL), every gathered row is locked as it is
    /// gathered, before the next wave reads what points at it: a save linking an object to
    /// one of them changes that row too (its inverse, its version), so it waits for the
    /// delete and then meets the deletion as a conflict, instead of leaving a link to a row
    /// that is gone. The lock also re-checks the row's conditions against what a writer
    /// committed meanwhile. SQLite has one writer at a time and needs none.
    private func locking(_ alias: String) -> String {
        schema.dialect == .postgreSQL ? " FOR UPDATE OF \(alias)" : ""
    }

    /// One `DELETE` for a fetch whose entities have no relationships and no external
    /// data: with nothing to cascade, check, nullify or clean up, the key table is not
    /// needed. `nil` when something is.
    package func directDelete(_ fetch: StoreFetch) throws -> SQLFragment? {
        guard fetch.matchingEntities.allSatisfy({ !$0.facts.hasRelationships && !$0.facts.hasExternalStorage }) else {
            return nil
        }
        let table = try schema.table(for: fetch.entity).name
        let window = SQLQueryBuilder.window(fetch, schema.dialect)
        // Without a window the order does not matter.
        var selecting = fetch
        if window.isEmpty { selecting.sortDescriptors = [] }
        let body = try SQLQueryBuilder(schema: schema, entity: fetch.entity).fromAndWhere(selecting)
        // PostgreSQL deletes through the alias the conditions name (`DELETE FROM <table> t0
        // WHERE …`) when they need no join: the key subquery's self-join takes it twice as long.
        let from = "FROM \(table) t0"
        if window.isEmpty, schema.dialect == .postgreSQL, body.sql == from || body.sql.hasPrefix(from + " WHERE ") {
            return "DELETE \(body)"
        }
        return "DELETE FROM \(raw: table) WHERE Z_PK IN (SELECT t0.Z_PK \(body)\(raw: window))"
    }

    /// The entity numbers of one wave's rows (all waves when `nil`).
    package func presentEntities(wave: Int?) -> SQLFragment {
        "SELECT DISTINCT Z_ENT FROM \(raw: keysTable)\(raw: wave.map { " WHERE Z_WAVE = \($0)" } ?? "")"
    }

    /// Adds the destinations of Cascade relationships of wave `wave` as wave `wave + 1`.
    package func cascade(wave: Int, present: Set<Int>) throws -> [SQLFragment] {
        try relationships(present: present).filter { $0.deleteRule == .cascadeDeleteRule }.compactMap { relationship in
            guard let destination = relationship.destinationEntity,
                let condition = try destinations(relationship, of: keys(of: relationship.entity, wave: wave))
            else { return nil }
            let table = try schema.table(for: destination).name
            let root = destination.facts.root.facts.entityNumber
            return SQLFragment(
                sql: schema.dialect.insertIgnoringDuplicates(
                    into: keysTable, columns: "Z_ROOT, Z_PK, Z_ENT, Z_WAVE",
                    values:
                        "SELECT \(root), d.Z_PK, d.Z_ENT, \(wave + 1) FROM \(table) d WHERE \(condition)\(locking("d"))"
                ))
        }
    }

    /// Deny relationships with destinations that stay; and Nullify relationships whose
    /// inverse is required and would be cleared on objects that stay.
    package func checks(present: Set<Int>) throws -> (deny: [Check], requiredInverse: [Check]) {
        var deny: [Check] = []
        var required: [Check] = []
        for relationship in relationships(present: present) {
            let isDeny = relationship.deleteRule == .denyDeleteRule
            let clearsRequired =
                relationship.deleteRule == .nullifyDeleteRule
                && relationship.inverseRelationship.map { !$0.isOptional } == true
            guard isDeny || clearsRequired, let destination = relationship.destinationEntity,
                let condition = try destinations(relationship, of: keys(of: relationship.entity, wave: nil))
            else { continue }
            let table = try schema.table(for: destination).name
            let root = destination.facts.root.facts.entityNumber
            let check = Check(
                statement: SQLFragment(
                    sql:
                        "SELECT d.Z_PK FROM \(table) d WHERE \(condition) AND d.Z_PK NOT IN (SELECT Z_PK FROM \(keysTable) WHERE Z_ROOT = \(root)) LIMIT 1"
                ),
                relationship: relationship)
            if isDeny {
                deny.append(check)
            } else {
                required.append(check)
            }
        }
        return (deny, required)
    }

    /// Clears to-one inverses pointing at deleted rows (Nullify), and the hidden
    /// columns of to-manys without inverse owned by deleted rows; with the entities changed.
    /// One nullifying statement: the entity whose rows it changes and, when it clears a
    /// to-one property, a query for those rows' keys and entity numbers (run before it, for
    /// the persistent history) and the to-one's slot.
    package struct Nullification {
        /// The `UPDATE`.
        package let statement: SQLFragment
        /// The entity whose rows it changes.
        package let changed: NSEntityDescription
        /// `Z_PK, Z_ENT` of the rows whose to-one it clears, and that to-one's slot.
        package let clearedRows: (query: SQLFragment, slot: Int)?
    }

    package func nullify(present: Set<Int>) throws -> [Nullification] {
        var result: [Nullification] = []
        for relationship in relationships(present: present) {
            guard let destination = relationship.destinationEntity else { continue }
            let table = try schema.table(for: destination).name
            let sources = keys(of: relationship.entity, wave: nil)
            let inverse: NSRelationshipDescription, column: String, orderColumn: String?
            switch schema.storage(of: relationship) {
            case .hiddenColumn(let hidden):
                // A hidden column is no property of the destination: nothing to report.
                result.append(
                    Nullification(
                        statement: SQLFragment(
                            sql: "UPDATE \(table) SET \(hidden) = NULL WHERE \(hidden) IN (\(sources))"),
                        changed: destination, clearedRows: nil))
                continue
            case .inverseKey(let to, let key, let order) where relationship.deleteRule == .nullifyDeleteRule:
                (inverse, column, orderColumn) = (to, key, order)
            case .inverseKey, .joinTable, nil:
                continue
            }
            let cleared = [column, schema.entityColumn(for: inverse), orderColumn].compactMap { $0 }
            let assignments = SQLList.of(cleared.map { "\($0) = NULL" } + ["Z_OPT = Z_OPT + 1"])
            result.append(
                Nullification(
                    statement: SQLFragment(sql: "UPDATE \(table) SET \(assignments) WHERE \(column) IN (\(sources))"),
                    changed: destination,
                    clearedRows: (
                        SQLFragment(sql: "SELECT Z_PK, Z_ENT FROM \(table) WHERE \(column) IN (\(sources))"),
                        inverse.slot
                    )
                ))
        }
        return result
    }

    /// Deletes the many-to-many join rows of deleted rows.
    package func joinRowDeletes(present: Set<Int>) -> [SQLFragment] {
        relationships(present: present).compactMap { relationship in
            guard let join = schema.storage(of: relationship)?.joinTable else { return nil }
            let sources = keys(of: relationship.entity, wave: nil)
            var sql = "DELETE FROM \(join.name) WHERE \(join.sourceColumn) IN (\(sources))"
            // A relationship that is its own inverse stores both directions in its table.
            if relationship.inverseRelationship === relationship {
                sql += " OR \(join.destinationColumn) IN (\(sources))"
            }
            return SQLFragment(sql: sql)
        }
    }

    /// For each table with deleted rows and external-storage attributes: the
    /// `SELECT` of those columns, to find the files to remove after the commit.
    package func externalDataSelects(present: Set<Int>) throws -> [SQLFragment] {
        try tables(present: present).compactMap { table in
            let columns = Set(
                table.root.facts.selfAndDescendants.flatMap { entity in
                    entity.facts.slots.compactMap { $0 as? NSAttributeDescription }
                        .filter { $0.allowsExternalBinaryDataStorage && $0.isStored }
                        .compactMap { schema.column(for: $0) }
                }
            ).sorted()
            guard !columns.isEmpty else { return nil }
            return SQLFragment(
                sql:
                    "SELECT \(SQLList.of(columns)) FROM \(table.name) WHERE Z_PK IN (\(keys(of: table.root, wave: nil)))"
            )
        }
    }

    /// How many rows the key table lists (rows of entities the model does not know included).
    package var countKeys: SQLFragment { "SELECT COUNT(*) FROM \(raw: keysTable)" }

    /// Every deleted row: key, entity number, wave (0: matched by the request).
    package var selectKeys: SQLFragment { "SELECT Z_PK, Z_ENT, Z_WAVE FROM \(raw: keysTable)" }

    /// Deletes the rows, one statement per table.
    package func rowDeletes(present: Set<Int>) throws -> [SQLFragment] {
        try tables(present: present).map { table in
            SQLFragment(sql: "DELETE FROM \(table.name) WHERE Z_PK IN (\(keys(of: table.root, wave: nil)))")
        }
    }

    // MARK: Pieces

    /// Stored relationships declared on entities that have deleted rows (each once,
    /// on the entity that declares it, so inherited ones are not repeated).
    private func relationships(present: Set<Int>) -> [NSRelationshipDescription] {
        schema.entities.filter { entity in
            entity.facts.selfAndDescendants.contains { present.contains($0.facts.entityNumber) }
        }
        .flatMap { entity in
            entity.facts.slots.compactMap { $0 as? NSRelationshipDescription }
                .filter {
                    $0.entity === entity && $0.isStored
                        && $0.destinationEntity.map { (try? schema.table(for: $0)) != nil } == true
                }
        }
    }

    private func tables(present: Set<Int>) throws -> [SQLSchema.Table] {
        var seen = Set<String>()
        return try present.sorted().compactMap { number in
            guard let entity = schema.entitiesByNumber[number] else { return nil }
            let table = try schema.table(for: entity)
            return seen.insert(table.name).inserted ? table : nil
        }
    }

    /// `SELECT Z_PK FROM <key table> WHERE …`: deleted rows of `entity` and its subentities.
    private func keys(of entity: NSEntityDescription, wave: Int?) -> String {
        var sql = "SELECT Z_PK FROM \(keysTable) WHERE Z_ROOT = \(entity.facts.root.facts.entityNumber)"
        if entity !== entity.facts.root {
            sql += " AND Z_ENT IN (\(SQLList.entityNumbers(of: entity)))"
        }
        if let wave { sql += " AND Z_WAVE = \(wave)" }
        return sql
    }

    /// The condition on a destination row `d` of `relationship` that it is related to one of
    /// the source rows `sources`. A key held by the destination row is compared on `d` itself,
    /// so a lock on `d` re-checks it.
    private func destinations(_ relationship: NSRelationshipDescription, of sources: String) throws -> String? {
        guard let owner = relationship.entity else { return nil }
        if !relationship.isToMany {
            guard let column = schema.column(for: relationship) else { return nil }
            let table = try schema.table(for: owner).name
            return
                "d.Z_PK IN (SELECT s.\(column) FROM \(table) s WHERE s.Z_PK IN (\(sources)) AND s.\(column) IS NOT NULL)"
        }
        switch schema.storage(of: relationship) {
        case .joinTable(let join):
            return
                "d.Z_PK IN (SELECT j.\(join.destinationColumn) FROM \(join.name) j WHERE j.\(join.sourceColumn) IN (\(sources)))"
        case .hiddenColumn(let column), .inverseKey(_, let column, _):
            return "d.\(column) IN (\(sources))"
        case nil:
            return nil
        }
    }
}
