/// The statements about the database rather than the store's tables: SQLite's catalog
/// (`sqlite_master`) and the pragmas a connection is set up and watched with.
package enum SQLCatalogStatements {
    /// Whether the database has tables but no `Z_METADATA`: not a Core Data store (one
    /// statement, so both halves see the same moment).
    package static let hasTablesButNoMetadata: SQLFragment =
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table') AND NOT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'Z_METADATA')"

    /// The names of the tables.
    package static let tableNames: SQLFragment = "SELECT name FROM sqlite_master WHERE type = 'table'"

    /// The names of the indexes on `tables`: in SQLite those created by statements (not
    /// those it makes for primary keys); in PostgreSQL every one, primary keys' included.
    package static func indexNames(onTables tables: [String], _ dialect: SQLDialect) -> SQLFragment {
        switch dialect {
        case .sqlite:
            let names = tables.map { SQLFragment.bind($0.sqlScalar) }
            return
                "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (\(.joined(names, separator: ", ")))"
        case .postgreSQL:
            // Unquoted names are stored in lower case; primary keys' indexes are listed too.
            let names = tables.map { SQLFragment.bind($0.lowercased().sqlScalar) }
            return
                "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN (\(.joined(names, separator: ", ")))"
        }
    }

    /// A read of the catalog: the first read of a transaction, which takes its snapshot.
    package static let countSchemaEntries: SQLFragment = "SELECT COUNT(*) FROM sqlite_master"

    /// The journal mode.
    package static let journalMode: SQLFragment = "PRAGMA journal_mode"

    /// Switches to write-ahead logging.
    package static let useWriteAheadLog: SQLFragment = "PRAGMA journal_mode = WAL"

    /// A number that changes when another connection commits.
    package static let dataVersion: SQLFragment = "PRAGMA data_version"

    /// `PRAGMA <name> = <value>`; both must be plain words or numbers (checked when the
    /// store opens, since a pragma cannot take bound values).
    package static func pragma(_ name: String, _ value: String) -> SQLFragment {
        "PRAGMA \(raw: name) = \(raw: value)"
    }
}
