/// The statements a save writes with, each prepared once and bound per row: rows
/// inserted, updated (with the `Z_OPT` optimistic-lock check) and deleted, and the
/// memberships of to-manys by how they are stored (join-table rows, the hidden column of
/// a to-many without inverse, order columns).
package enum SQLSaveStatements {
    // MARK: Rows

    /// `INSERT INTO <table> (Z_PK, Z_ENT, Z_OPT, <columns>) VALUES (?, …)`.
    package static func insertRow(into table: String, columns: [String]) -> SQLTemplate {
        let all = ["Z_PK", "Z_ENT", "Z_OPT"] + columns
        return SQLTemplate(sql: "INSERT INTO \(table) (\(SQLList.of(all))) VALUES (\(SQLList.placeholders(all.count)))")
    }

    /// `UPDATE <table> SET Z_OPT = Z_OPT + 1, <column> = ?, … WHERE Z_PK = ? AND Z_OPT = ?`:
    /// no row changes when another writer changed it since it was read.
    package static func updateRow(in table: String, columns: [String]) -> SQLTemplate {
        let assignments = ["Z_OPT = Z_OPT + 1"] + columns.map { "\($0) = ?" }
        return SQLTemplate(sql: "UPDATE \(table) SET \(SQLList.of(assignments)) WHERE Z_PK = ? AND Z_OPT = ?")
    }

    /// `DELETE FROM <table> WHERE Z_PK = ? AND Z_OPT = ?`, with the same check.
    package static func deleteRow(from table: String) -> SQLTemplate {
        SQLTemplate(sql: "DELETE FROM \(table) WHERE Z_PK = ? AND Z_OPT = ?")
    }

    // MARK: Memberships

    /// The join rows of a deleted source row (`?`: its key).
    package static func deleteJoinRows(of join: SQLSchema.JoinTable) -> SQLTemplate {
        SQLTemplate(sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?")
    }

    /// Adds a join row (source key, destination key); one already there stays.
    package static func insertJoinRow(into join: SQLSchema.JoinTable, dialect: SQLDialect) -> SQLTemplate {
        SQLTemplate(
            sql: dialect.insertIgnoringDuplicates(
                into: join.name, columns: "\(join.sourceColumn), \(join.destinationColumn)", values: "VALUES (?, ?)"))
    }

    /// Removes a join row (source key, destination key).
    package static func deleteJoinRow(from join: SQLSchema.JoinTable) -> SQLTemplate {
        SQLTemplate(sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ? AND \(join.destinationColumn) = ?")
    }

    /// Sets a destination's position in its source's ordered relationship (position,
    /// source key, destination key).
    package static func orderJoinRow(in join: SQLSchema.JoinTable, orderColumn: String) -> SQLTemplate {
        SQLTemplate(
            sql:
                "UPDATE \(join.name) SET \(orderColumn) = ? WHERE \(join.sourceColumn) = ? AND \(join.destinationColumn) = ?"
        )
    }

    /// Sets the source key a member row keeps in a hidden column or order column
    /// (value, member key): `UPDATE <table> SET <column> = ? WHERE Z_PK = ?`.
    package static func setMemberColumn(_ column: String, in table: String) -> SQLTemplate {
        SQLTemplate(sql: "UPDATE \(table) SET \(column) = ? WHERE Z_PK = ?")
    }

    /// Clears a member row's hidden column (member key).
    package static func clearMemberColumn(_ column: String, in table: String) -> SQLTemplate {
        SQLTemplate(sql: "UPDATE \(table) SET \(column) = NULL WHERE Z_PK = ?")
    }
}
