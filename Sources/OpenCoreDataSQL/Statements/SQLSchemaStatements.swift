import OpenCoreDataCore

/// The DDL of a store's tables, in Core Data's style: `CREATE TABLE` for each entity
/// tree's table and each many-to-many join table, the bookkeeping tables
/// (`Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE`), the indexes (on `Z_ENT` of tables
/// shared by subentities, on foreign keys and indexed attributes, the model's fetch
/// indexes and uniqueness constraints), and the `ALTER`/`DROP` a migration uses.
package struct SQLSchemaStatements {
    /// The mapping whose tables the statements create.
    package let schema: SQLSchema

    package init(schema: SQLSchema) { self.schema = schema }

    /// The statements creating the store's tables, then its indexes; without the
    /// bookkeeping tables when `bookkeeping` is false (a migration keeps the old ones).
    package func create(bookkeeping: Bool = true) -> [SQLFragment] {
        let dialect = schema.dialect
        let integer = dialect.columnType("INTEGER")
        func declaration(_ column: SQLSchema.Column) -> String { "\(column.name) \(dialect.columnType(column.type))" }
        var statements: [SQLFragment] = []
        var indexes: [String] = []
        for table in schema.tables.sorted(by: { $0.name < $1.name }) {
            let columns =
                [dialect.keyColumn("Z_PK"), "Z_ENT \(integer)", "Z_OPT \(integer)"] + table.columns.map(declaration)
            statements.append("CREATE TABLE \(raw: table.name) ( \(raw: SQLList.of(columns)) )")
            if table.entityCount > 1 {
                indexes.append("CREATE INDEX \(table.name)_Z_ENT_INDEX ON \(table.name) (Z_ENT)")
            }
            for entity in table.root.facts.selfAndDescendants {
                for property in entity.facts.slots where property.entity === entity && property.isStored {
                    guard let column = schema.column(for: property) else { continue }
                    if property is NSRelationshipDescription || property.isIndexed {
                        indexes.append(
                            "CREATE INDEX \(table.name)_\(column)_INDEX ON \(table.name) (\(dialect.indexedColumn(column)))"
                        )
                    }
                }
                indexes += entity.indexes.compactMap { fetchIndex($0, entity: entity, table: table) }
                indexes += entity.uniquenessConstraints.compactMap { constraintIndex($0, entity: entity, table: table) }
            }
        }
        for joinTable in schema.joinTables {
            let columns =
                joinTable.columns.map(declaration) + [
                    "PRIMARY KEY (\(SQLList.of(joinTable.primaryKey)))"
                ]
            statements.append("CREATE TABLE \(raw: joinTable.name) ( \(raw: SQLList.of(columns)) )")
            indexes.append("CREATE INDEX \(joinTable.index.0) ON \(joinTable.name) (\(SQLList.of(joinTable.index.1)))")
        }
        if bookkeeping {
            let text = dialect.columnType("VARCHAR")
            let blob = dialect.columnType("BLOB")
            statements.append(
                "CREATE TABLE Z_PRIMARYKEY (\(raw: dialect.keyColumn("Z_ENT")), Z_NAME \(raw: text), Z_SUPER \(raw: integer), Z_MAX \(raw: integer))"
            )
            statements.append(
                "CREATE TABLE Z_METADATA (\(raw: dialect.keyColumn("Z_VERSION")), Z_UUID VARCHAR(255), Z_PLIST \(raw: blob))"
            )
            statements.append("CREATE TABLE Z_MODELCACHE (Z_CONTENT \(raw: blob))")
        }
        // An index can be asked for twice (a fetch index on an indexed attribute's column).
        return statements + Set(indexes).sorted().map { SQLFragment(sql: $0) }
    }

    /// The index of a model's fetch index (`CREATE INDEX "Z_Person_byName" ON ZPERSON
    /// (ZNAME COLLATE BINARY ASC)`).
    ///
    /// `nil` when an element is not a stored column of the table (an expression, a
    /// to-many) or is an R-tree element, which would need an R-tree virtual table;
    /// the partial index predicate is not applied. See docs/DEVIATIONS.md.
    private func fetchIndex(
        _ index: NSFetchIndexDescription, entity: NSEntityDescription, table: SQLSchema.Table
    ) -> String? {
        var columns: [String] = []
        for element in index.elements {
            guard element.collationType == .binary,
                let property = element.property ?? element.propertyName.flatMap({ entity.propertiesByName[$0] }),
                let column = schema.column(for: property)
            else { return nil }
            columns.append(
                "\(column) COLLATE \(schema.dialect.binaryCollation) \(schema.dialect.sortDirection(ascending: element.isAscending))"
            )
        }
        guard !columns.isEmpty else { return nil }
        return
            "CREATE INDEX \(SQLIdentifier.quoted("Z_\(entity.name ?? "")_\(index.name)")) ON \(table.name) (\(SQLList.of(columns)))"
    }

    /// An index on a uniqueness constraint's columns, so the check every save of the entity
    /// makes finds the matching rows without scanning the table. Not `UNIQUE`: rows of
    /// other entities share the table, and conflicts go to the merge policy rather than
    /// failing in SQLite. `nil` when a property has no column of this table.
    private func constraintIndex(_ constraint: [Any], entity: NSEntityDescription, table: SQLSchema.Table) -> String? {
        let names = NSEntityDescription.propertyNames(inConstraint: constraint)
        let columns = names.compactMap { entity.facts.propertiesByName[$0].flatMap(schema.column(for:)) }
        guard !columns.isEmpty, columns.count == names.count else { return nil }
        let name = "Z_\(entity.name ?? "")_CONSTRAINT_\(names.joined(separator: "_"))"
        return "CREATE INDEX \(SQLIdentifier.quoted(name)) ON \(table.name) (\(SQLList.of(columns)))"
    }

    // MARK: Changing tables

    /// Renames `table` to `newName`.
    package static func rename(_ table: String, to newName: String) -> SQLFragment {
        "ALTER TABLE \(raw: table) RENAME TO \(raw: newName)"
    }

    /// Drops `table`.
    package static func dropTable(_ table: String) -> SQLFragment {
        "DROP TABLE \(raw: table)"
    }

    /// Drops the index `name` (a name read from the database, hence quoted).
    package static func dropIndex(_ name: String) -> SQLFragment {
        "DROP INDEX \(raw: SQLIdentifier.quoted(name))"
    }
}
