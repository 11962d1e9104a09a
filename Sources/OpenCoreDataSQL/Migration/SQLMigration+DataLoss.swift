import OpenCoreDataCore

extension SQLMigration {
    /// The rows of the store open on `db` by entity of `schema` (own rows, not
    /// subentities'), and the rows of its tables whose `Z_ENT` is no entity stored there.
    /// A table of the schema missing from the database counts no rows.
    package static func rowCounts(_ db: Database, schema: SQLSchema) throws -> StoreRowCounts {
        var counts = StoreRowCounts()
        for table in schema.tables {
            guard try db.tableExists(table.name) else { continue }
            let entities = Dictionary(
                table.root.facts.selfAndDescendants.map { ($0.facts.entityNumber, $0) },
                uniquingKeysWith: { first, _ in first })
            var found: [(number: Int?, rows: Int)] = []
            try db.forEachRow(SQLMigrationStatements.rowCountsByEntityNumber(in: table.name, schema.dialect)) { row in
                found.append((row[0].exactInteger.map { Int(truncatingIfNeeded: $0) }, Int(row[1].exactInteger ?? 0)))
            }
            for (number, rows) in found {
                if let number, let name = entities[number]?.name {
                    counts.rowsByEntityName[name, default: 0] += rows
                } else {
                    counts.orphans.append(
                        StoreRowCounts.Orphans(table: table.name, entityNumber: number ?? 0, rows: rows))
                }
            }
        }
        return counts
    }

    /// Refuses, naming what would be lost, when the migration would drop rows: those of a
    /// source entity the mapping does not take (or explicitly remove), or of no entity.
    func checkDataLoss() throws {
        guard !allowsDataLoss else { return }
        try MigrationDataLoss.check(
            try Self.rowCounts(db, schema: source), keeps: { MigrationDataLoss.accountsFor($0, in: mapping) },
            store: storeName, inferred: mapping.isInferred)
    }
}
