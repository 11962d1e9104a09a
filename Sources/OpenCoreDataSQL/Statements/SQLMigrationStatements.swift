import OpenCoreDataCore

/// The statements that copy a store's rows into a new model's tables in a lightweight
/// migration (``SQLMigration``): the source tables are renamed aside (`OCDMIG_<table>`),
/// then one `INSERT … SELECT` per destination entity reads the source row `S` and
/// computes each destination column from it, and one per join table copies links.
///
/// A source relationship's links are a query of four columns, whatever way the source
/// stored it: `o` (the owner's key), `d` (the destination's key), `pos` (the
/// destination's position in the owner's ordered relationship) and `ipos` (the owner's
/// position in the destination's ordered inverse), NULL where no order is kept. Links
/// bind nothing, so their text also names them (the temporary table holding them).
///
/// SQLite's text is Core Data's; where PostgreSQL differs (a subquery in `FROM` needs a
/// name, `INTEGER` is 32 bits, temporary tables live in `pg_temp`), the functions take
/// the dialect.
package enum SQLMigrationStatements {
    /// What source tables are renamed with while the destination's are made.
    package static let asidePrefix = "OCDMIG_"

    /// The name `table` is set aside under.
    package static func aside(_ table: String) -> String { asidePrefix + table }

    // MARK: Rows

    /// Each entity number of `table`'s rows with how many rows have it (the data-loss
    /// check before a migration). The name is quoted: the schema may come from a model
    /// the store file itself holds.
    package static func rowCountsByEntityNumber(in table: String, _ dialect: SQLDialect) -> SQLFragment {
        // PostgreSQL's tables were made with unquoted (folded) names, which a quoted name would miss.
        let name = dialect == .sqlite ? SQLIdentifier.quoted(table) : table
        return "SELECT Z_ENT, COUNT(*) FROM \(raw: name) GROUP BY Z_ENT"
    }

    /// Sets the index `name` of a table being set aside out of the way of the new
    /// tables' indexes: SQLite drops it; PostgreSQL renames it (a primary key's index
    /// cannot be dropped alone), and it goes with its table.
    package static func setIndexAside(_ name: String, _ dialect: SQLDialect) -> SQLFragment {
        switch dialect {
        case .sqlite: SQLSchemaStatements.dropIndex(name)
        case .postgreSQL: "ALTER INDEX \(raw: name) RENAME TO \(raw: aside(name))"
        }
    }

    /// Copies the rows of the source entity numbered `sourceEntity` from the set-aside
    /// `sourceTable` into `table` as objects of the entity numbered `entity`, keeping their
    /// keys and versions: `values` (read from `S`) go into `columns`.
    package static func copyRows(
        of sourceEntity: Int, from sourceTable: String, as entity: Int, into table: String, columns: [String],
        values: [SQLFragment]
    ) -> SQLFragment {
        let keys: [SQLFragment] = [source("Z_PK"), "\(raw: String(entity))", source("Z_OPT")]
        return
            "INSERT INTO \(raw: table) (\(raw: SQLList.of(["Z_PK", "Z_ENT", "Z_OPT"] + columns))) SELECT \(.joined(keys + values, separator: ", ")) FROM \(raw: aside(sourceTable)) AS S WHERE S.Z_ENT = \(raw: String(sourceEntity))"
    }

    /// `S.<column>`: a column of the source row.
    package static func source(_ column: String) -> SQLFragment { "S.\(raw: column)" }

    /// A constant, bound.
    package static func constant(_ value: SQLScalar) -> SQLFragment { .bind(value) }

    /// `NULL`.
    package static let null: SQLFragment = "NULL"

    /// `value` as an integer (a value of another type becoming an integer attribute's).
    package static func integer(_ value: SQLFragment, _ dialect: SQLDialect) -> SQLFragment {
        switch dialect {
        case .sqlite: "CAST(\(value) AS INTEGER)"
        // Truncated toward zero, as SQLite's cast of a real is; PostgreSQL's would round.
        case .postgreSQL: "CAST(TRUNC(CAST(\(value) AS DOUBLE PRECISION)) AS BIGINT)"
        }
    }

    /// `(links)` as a table of a `FROM` clause: PostgreSQL wants it named.
    private static func from(_ links: SQLFragment, _ dialect: SQLDialect) -> SQLFragment {
        dialect == .sqlite ? "(\(links))" : "(\(links)) AS L"
    }

    /// `value`, or `fallback` where it is NULL.
    package static func coalesce(_ value: SQLFragment, _ fallback: SQLFragment) -> SQLFragment {
        "COALESCE(\(value), \(fallback))"
    }

    /// `value`, or NULL where every one of the source row's `columns` is NULL (a composite
    /// attribute that was `nil` stays `nil` rather than gaining a new element's default).
    package static func unlessAllNull(_ columns: [String], _ value: SQLFragment) -> SQLFragment {
        guard !columns.isEmpty else { return value }
        return
            "(CASE WHEN \(raw: columns.map { "S.\($0) IS NULL" }.joined(separator: " AND ")) THEN NULL ELSE \(value) END)"
    }

    /// `(CASE <value> WHEN <old> THEN <new> … END)`: a source entity number as its
    /// destination number (NULL for a removed entity); `NULL` when none stays.
    package static func renumbered(_ value: SQLFragment, _ numbers: [(old: Int, new: Int)]) -> SQLFragment {
        guard !numbers.isEmpty else { return null }
        return "(CASE \(value) \(raw: numbers.map { "WHEN \($0.old) THEN \($0.new)" }.joined(separator: " ")) END)"
    }

    /// `column` (`Z_PK` or `Z_ENT`) of the set-aside row of `table` whose key is `key`,
    /// when that row is among `rows`; NULL otherwise.
    package static func target(
        _ column: String, ofKey key: SQLFragment, in table: String, among rows: SQLFragment
    ) -> SQLFragment {
        "(SELECT T.\(raw: column) FROM \(raw: aside(table)) AS T WHERE T.Z_PK = \(key) AND T.Z_PK IN (\(rows)))"
    }

    /// The keys of the set-aside rows of `table` of the source entities numbered `numbers`.
    package static func rows(in table: String, entityNumbers numbers: [Int]) -> SQLFragment {
        "SELECT Z_PK FROM \(raw: aside(table)) WHERE Z_ENT IN (\(raw: SQLList.numbers(numbers)))"
    }

    /// The first destination `links` give the source row (in the owner's order).
    package static func firstDestination(in links: SQLFragment, _ dialect: SQLDialect) -> SQLFragment {
        "(SELECT d FROM \(from(links, dialect)) WHERE o = S.Z_PK ORDER BY pos LIMIT 1)"
    }

    /// The source row's position among its first destination's owners, else its key.
    package static func positionInInverse(in links: SQLFragment, _ dialect: SQLDialect) -> SQLFragment {
        "COALESCE((SELECT ipos FROM \(from(links, dialect)) WHERE o = S.Z_PK ORDER BY pos LIMIT 1), S.Z_PK)"
    }

    /// The first owner among `owners` that `links` give the source row as a destination.
    package static func owner(
        in links: SQLFragment, among owners: SQLFragment, _ dialect: SQLDialect
    ) -> SQLFragment {
        "(SELECT o FROM \(from(links, dialect)) WHERE d = S.Z_PK AND o IN (\(owners)) LIMIT 1)"
    }

    // MARK: Links

    /// The links of a to-one of `owner` kept in `column` of its set-aside `table`, with
    /// the owner's position in the inverse in `orderColumn`.
    package static func toOneLinks(
        of owner: NSEntityDescription, table: String, column: String, orderColumn: String?,
        _ dialect: SQLDialect
    ) -> SQLFragment {
        let none = noPosition(dialect)
        return
            "SELECT Z_PK AS o, \(raw: column) AS d, \(raw: none) AS pos, \(raw: orderColumn ?? none) AS ipos FROM \(raw: aside(table)) WHERE \(raw: column) IS NOT NULL AND Z_ENT IN (\(raw: SQLList.entityNumbers(of: owner)))"
    }

    /// A position the source did not keep: PostgreSQL types a bare `NULL` column as text,
    /// which then cannot be compared with keys.
    private static func noPosition(_ dialect: SQLDialect) -> String {
        dialect == .sqlite ? "NULL" : "CAST(NULL AS BIGINT)"
    }

    /// The links of a many-to-many kept in the set-aside join table, with the inverse's
    /// order column when it keeps one.
    package static func joinTableLinks(
        _ join: SQLSchema.JoinTable, inverseOrderColumn: String?, _ dialect: SQLDialect
    ) -> SQLFragment {
        let none = noPosition(dialect)
        return
            "SELECT \(raw: join.sourceColumn) AS o, \(raw: join.destinationColumn) AS d, \(raw: join.orderColumn ?? none) AS pos, \(raw: inverseOrderColumn ?? none) AS ipos FROM \(raw: aside(join.name))"
    }

    /// The links of a to-many without inverse to `target`, kept in the hidden `column` of
    /// the target's set-aside `table`.
    package static func hiddenColumnLinks(
        to target: NSEntityDescription, table: String, column: String, _ dialect: SQLDialect
    ) -> SQLFragment {
        let none = noPosition(dialect)
        return
            "SELECT \(raw: column) AS o, Z_PK AS d, \(raw: none) AS pos, \(raw: none) AS ipos FROM \(raw: aside(table)) WHERE \(raw: column) IS NOT NULL AND Z_ENT IN (\(raw: SQLList.entityNumbers(of: target)))"
    }

    /// `links` the other way round: the inverse relationship's links.
    package static func flipped(_ links: SQLFragment, _ dialect: SQLDialect) -> SQLFragment {
        "SELECT d AS o, o AS d, ipos AS pos, pos AS ipos FROM \(from(links, dialect))"
    }

    /// All of `links`, one after the other.
    package static func union(_ links: [SQLFragment]) -> SQLFragment {
        .joined(links, separator: " UNION ALL ")
    }

    /// The name of the `index`-th temporary table of links.
    package static func linkTableName(_ index: Int) -> String { "\(asidePrefix)LINKS_\(index)" }

    /// Copies `links` into the temporary table `name`, indexed by both ends (a statement
    /// reading them once per row would otherwise scan them all each time).
    package static func createLinkTable(
        _ name: String, links: SQLFragment, _ dialect: SQLDialect
    ) -> [SQLFragment] {
        switch dialect {
        case .sqlite:
            [
                "CREATE TEMP TABLE \(raw: name) AS SELECT o, d, pos, ipos FROM (\(links))",
                "CREATE INDEX temp.\(raw: name)_O ON \(raw: name) (o, pos)",
                "CREATE INDEX temp.\(raw: name)_D ON \(raw: name) (d)",
            ]
        case .postgreSQL:
            [
                "CREATE TEMP TABLE \(raw: name) AS SELECT o, d, pos, ipos FROM \(from(links, dialect))",
                "CREATE INDEX \(raw: name)_O ON pg_temp.\(raw: name) (o, pos)",
                "CREATE INDEX \(raw: name)_D ON pg_temp.\(raw: name) (d)",
            ]
        }
    }

    /// The temporary schema of `dialect`.
    private static func temporary(_ dialect: SQLDialect) -> String { dialect == .sqlite ? "temp" : "pg_temp" }

    /// The links in the temporary table `name`.
    package static func linkTable(_ name: String, _ dialect: SQLDialect) -> SQLFragment {
        "SELECT o, d, pos, ipos FROM \(raw: temporary(dialect)).\(raw: name)"
    }

    /// Drops the temporary table `name`.
    package static func dropLinkTable(_ name: String, _ dialect: SQLDialect) -> SQLFragment {
        SQLSchemaStatements.dropTable("\(temporary(dialect)).\(name)")
    }

    // MARK: Join tables

    /// What a join table column takes from a link.
    package enum JoinValue {
        /// The owner's key (`o`).
        case owner
        /// The destination's key (`d`).
        case destination
        /// The destination's position, or its key where the source kept none.
        case position
        /// The owner's position in the inverse, or its key where the source kept none.
        case inversePosition
    }

    /// Copies `links` whose owner is among `owners` and destination among `targets` into
    /// `join`'s `columns`; a pair already there stays.
    package static func copyJoinRows(
        into join: String, columns: [(name: String, value: JoinValue)], links: SQLFragment, owners: SQLFragment,
        targets: SQLFragment, _ dialect: SQLDialect
    ) -> SQLFragment {
        let values = columns.map { column -> String in
            switch column.value {
            case .owner: "o"
            case .destination: "d"
            case .position: "COALESCE(pos, d)"
            case .inversePosition: "COALESCE(ipos, o)"
            }
        }
        let select: SQLFragment =
            "SELECT \(raw: SQLList.of(values)) FROM \(from(links, dialect)) WHERE o IN (\(owners)) AND d IN (\(targets))"
        return SQLFragment(
            sql: dialect.insertIgnoringDuplicates(
                into: join, columns: SQLList.of(columns.map(\.name)), values: select.sql),
            arguments: select.arguments)
    }

    // MARK: Checks

    /// How many objects of `entity` (in `table`) have no value in `column`.
    package static func countMissing(_ column: String, table: String, entity: NSEntityDescription) -> SQLFragment {
        "SELECT COUNT(*) FROM \(raw: table) WHERE Z_ENT IN (\(raw: SQLList.entityNumbers(of: entity))) AND \(raw: column) IS NULL"
    }

    /// The values of `columns` that two or more objects of `entity` (in `table`) share,
    /// ignoring rows with a NULL among them; at most one row.
    package static func duplicate(_ columns: [String], table: String, entity: NSEntityDescription) -> SQLFragment {
        let filled = columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
        let list = SQLList.of(columns)
        return
            "SELECT \(raw: list) FROM \(raw: table) WHERE Z_ENT IN (\(raw: SQLList.entityNumbers(of: entity))) AND \(raw: filled) GROUP BY \(raw: list) HAVING COUNT(*) > 1 LIMIT 1"
    }
}
