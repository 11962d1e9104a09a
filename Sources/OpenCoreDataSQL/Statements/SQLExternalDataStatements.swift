import OpenCoreDataCore

/// The statements on columns of attributes that allow external storage, whose values
/// are `0x01`+bytes inline or `0x02`+the name of a file beside the store: reading them
/// to find the files a change or deletion leaves behind, and rewriting them when values
/// move in or out of files (a copy into memory, a migration).
package enum SQLExternalDataStatements {
    /// `SELECT <columns> FROM <table> WHERE Z_PK = ?`: one row's values.
    package static func values(_ columns: [String], table: String) -> SQLTemplate {
        SQLTemplate(sql: "SELECT \(SQLList.of(columns)) FROM \(table) WHERE Z_PK = ?")
    }

    /// `Z_PK` and `column` of the rows of `table` whose value lives in a file.
    package static func valuesInFiles(_ column: String, table: String) -> SQLFragment {
        "SELECT Z_PK, \(raw: column) FROM \(raw: table) WHERE substr(\(raw: column), 1, 1) = x'02'"
    }

    /// The keys of the objects of `entity` (in `table`) with a value in `column`.
    package static func keysWithValues(_ column: String, table: String, entity: NSEntityDescription) -> SQLFragment {
        "SELECT Z_PK FROM \(raw: table) WHERE Z_ENT IN (\(raw: SQLList.entityNumbers(of: entity))) AND \(raw: column) IS NOT NULL"
    }

    /// Sets `column` of the row `key` to `value`.
    package static func setValue(_ value: SQLScalar, column: String, table: String, key: Int64) -> SQLFragment {
        "UPDATE \(raw: table) SET \(raw: column) = \(.bind(value)) WHERE Z_PK = \(.bind(key.sqlScalar))"
    }
}
