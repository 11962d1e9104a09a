import OpenCoreDataCore
import OpenCoreDataSQL

/// The statements only the PostgreSQL engine runs, which Core Data's SQLite schema has no
/// counterpart for: the schema the store lives in, the lock that lets one opener create
/// the tables, the key sequences, the collation translated comparisons name.
enum PostgreSQLStatements {
    /// Whether schema `name` exists.
    static func schemaExists(_ name: String) -> SQLFragment {
        "SELECT 1 FROM pg_namespace WHERE nspname = \(.bind(name.sqlScalar))"
    }

    /// Creates schema `name` unless another opener just did.
    static func createSchema(_ name: String) -> SQLFragment {
        "CREATE SCHEMA IF NOT EXISTS \(raw: PostgreSQLIdentifier.quoted(name))"
    }

    /// Waits for, then holds until the transaction ends, the lock of the store in the
    /// session's schema: of several processes opening one new store, one creates its tables;
    /// of several saves checking uniqueness constraints, one checks and writes at a time.
    static let lockStore: SQLFragment = "SELECT pg_advisory_xact_lock(hashtext('OpenCoreData:' || current_schema()))"

    /// Whether the session's schema has a table named `name`.
    static func tableExists(_ name: String) -> SQLFragment {
        "SELECT to_regclass(\(.bind(name.lowercased().sqlScalar))) IS NOT NULL"
    }

    /// The names of the columns of `table` in the session's schema.
    static func columnNames(of table: String) -> SQLFragment {
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(.bind(table.lowercased().sqlScalar))"
    }

    /// The names of the tables in the session's schema, sorted.
    static let tableNames: SQLFragment =
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"

    /// The bytes the tables of the session's schema take, with their indexes and TOAST.
    static let storageSize: SQLFragment =
        "SELECT CAST(COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS BIGINT) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'"

    /// Starts the read-only transaction a query generation reads in: every statement in it
    /// sees the database as its first statement did.
    static let beginSnapshot: SQLFragment = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// Makes the transaction it starts read one snapshot of the database, for reads of
    /// several statements that must agree (a transaction and its changes).
    static let readSnapshot: SQLFragment = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"

    /// The collation the translation names for Swift's string comparison: PostgreSQL's
    /// `"C"` (code point order, the order Swift gives text in NFC; see docs/DEVIATIONS.md).
    static let createUnicodeCollation: SQLFragment = "CREATE COLLATION OCD_UNICODE FROM \"C\""

    /// The sequence numbering the rows of `table`.
    static func sequence(of table: String) -> String { "\(table)_Z_PK_SEQ" }

    /// Creates the key sequence of `table` (unless it has one, when `ifMissing`).
    static func createSequence(of table: String, ifMissing: Bool = false) -> SQLFragment {
        "CREATE SEQUENCE \(raw: ifMissing ? "IF NOT EXISTS " : "")\(raw: sequence(of: table))"
    }

    /// The last key the sequence of `table` handed out (or would start after).
    static func lastKey(of table: String) -> SQLFragment {
        "SELECT last_value FROM \(raw: sequence(of: table))"
    }

    /// Moves the key sequence of `table` past the largest key in it and past `handedOut`
    /// (keys of deleted rows are never handed out again), never back.
    static func advanceSequencePastKeys(of table: String, handedOut: Int64) -> SQLFragment {
        let sequence = sequence(of: table)
        return
            "SELECT setval('\(raw: sequence)', GREATEST((SELECT COALESCE(MAX(Z_PK), 0) FROM \(raw: table)), (SELECT last_value FROM \(raw: sequence)), \(.bind(handedOut.sqlScalar)), 1))"
    }

    /// `count` new keys of `table`, from its sequence.
    static func nextKeys(of table: String, count: Int) -> SQLFragment {
        "SELECT nextval('\(raw: sequence(of: table))') FROM generate_series(1, \(.bind(count.sqlScalar)))"
    }

    /// `INSERT INTO <table> (Z_PK, Z_ENT, Z_OPT, <columns>) VALUES ($1, …), ($n, …), …` for
    /// `count` rows, numbered as PostgreSQL's placeholders are (a save's inserts of one table).
    static func insertRows(into table: String, columns: [String], count: Int) -> String {
        let width = columns.count + 3
        var sql = "INSERT INTO \(table) (\(SQLList.of(["Z_PK", "Z_ENT", "Z_OPT"] + columns))) VALUES "
        sql.reserveCapacity(sql.utf8.count + count * width * 8)
        for row in 0..<count {
            sql += row == 0 ? "(" : ", ("
            for column in 0..<width {
                if column > 0 { sql += ", " }
                sql += "$\(row * width + column + 1)"
            }
            sql += ")"
        }
        return sql
    }

    /// The tables every store has besides its entities' (and history's, when it keeps history).
    static let bookkeepingTables = [
        "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING",
    ]

    /// Drops one of the store's objects (a table, sequence or collation), if it is there.
    static func drop(kind: String, name: String) -> SQLFragment {
        "DROP \(raw: kind) IF EXISTS \(raw: name)"
    }
}
