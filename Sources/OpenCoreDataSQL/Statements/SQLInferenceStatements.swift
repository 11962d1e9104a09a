/// The queries that recover a model from a store's tables (`SQLiteModelInference`):
/// which rows fill a column, and whether a column's values are keys of another table.
/// Table and column names here are read from the file, so they are quoted.
package enum SQLInferenceStatements {
    /// The entity numbers of the rows of `table` whose `column` is not NULL.
    package static func entitiesFilling(_ column: String, table: String) -> SQLFragment {
        "SELECT DISTINCT Z_ENT FROM \(raw: SQLIdentifier.quoted(table)) WHERE \(raw: SQLIdentifier.quoted(column)) IS NOT NULL"
    }

    /// Whether any row of `table` has a value in `column`.
    package static func hasValues(_ column: String, table: String) -> SQLFragment {
        "SELECT EXISTS (SELECT 1 FROM \(raw: SQLIdentifier.quoted(table)) WHERE \(raw: SQLIdentifier.quoted(column)) IS NOT NULL)"
    }

    /// Whether some value of `column` in `table` is no `Z_PK` of `rootTable`.
    package static func hasValuesMissing(_ column: String, table: String, from rootTable: String) -> SQLFragment {
        let (column, table, rootTable) = (
            SQLIdentifier.quoted(column), SQLIdentifier.quoted(table), SQLIdentifier.quoted(rootTable)
        )
        return
            "SELECT EXISTS (SELECT 1 FROM \(raw: table) WHERE \(raw: column) IS NOT NULL AND \(raw: column) NOT IN (SELECT Z_PK FROM \(raw: rootTable)))"
    }

    /// The entity numbers of the rows of `rootTable` whose keys `column` of `table` holds.
    package static func entitiesReferenced(by column: String, table: String, in rootTable: String) -> SQLFragment {
        "SELECT DISTINCT Z_ENT FROM \(raw: SQLIdentifier.quoted(rootTable)) WHERE Z_PK IN (SELECT \(raw: SQLIdentifier.quoted(column)) FROM \(raw: SQLIdentifier.quoted(table)))"
    }
}
