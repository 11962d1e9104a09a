/// The SQL an engine speaks, where Core Data's statements must differ between engines.
///
/// The builders write SQLite's SQL, Core Data's own, byte for byte; for PostgreSQL they
/// change only what PostgreSQL spells or types differently. A schema carries its dialect
/// (``SQLSchema/dialect``), so every builder made from a schema speaks it.
package enum SQLDialect: Sendable {
    /// SQLite, as Core Data writes it.
    case sqlite
    /// PostgreSQL: static column types, `BYTEA` for blobs, `ON CONFLICT` instead of `OR IGNORE`.
    case postgreSQL

    /// `name`, a table or column name the store made bare (`ZBOOK`), quoted as this database
    /// keeps it, so that a name read back from a foreign or damaged store is safe in SQL text:
    /// PostgreSQL folded the bare name when it made the table, `A` to `Z` to lower case (and,
    /// in a UTF-8 database, nothing else).
    package func quotedStoredName(_ name: String) -> String {
        switch self {
        case .sqlite: SQLIdentifier.quoted(name)
        case .postgreSQL:
            SQLIdentifier.quoted(
                String(
                    String.UnicodeScalarView(
                        name.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 })))
        }
    }

    /// `column` as an index over it lists it: in the order sorts ask for
    /// (``sortDirection(ascending:)``), so that a sort by an indexed column reads the index,
    /// forwards or backwards, instead of sorting the table. PostgreSQL's own default (NULLs
    /// last ascending) matches neither of the directions sorts use here.
    package func indexedColumn(_ column: String) -> String {
        switch self {
        case .sqlite: column
        case .postgreSQL: "\(column) NULLS FIRST"
        }
    }

    /// The column type for one of the types Core Data declares in SQLite (``SQLSchema/sqlType(for:)``).
    ///
    /// PostgreSQL keeps the values Core Data stores, not its meaning of the names: dates stay
    /// seconds since 2001 (`TIMESTAMP` in SQLite holds a REAL), decimals a double as
    /// ``SQLValueCoding`` writes them, so both engines store the same values.
    package func columnType(_ sqliteType: String) -> String {
        guard self == .postgreSQL else { return sqliteType }
        switch sqliteType {
        case "INTEGER": return "BIGINT"
        case "FLOAT", "TIMESTAMP", "DECIMAL": return "DOUBLE PRECISION"
        case "BLOB": return "BYTEA"
        case "VARCHAR": return "TEXT"
        default: return sqliteType
        }
    }

    /// The declaration of a table's key column `name` (`Z_PK`, `Z_ENT` of `Z_PRIMARYKEY`, …).
    package func keyColumn(_ name: String) -> String {
        "\(name) \(columnType("INTEGER")) PRIMARY KEY"
    }

    /// The collation comparing text byte by byte, as SQLite's `BINARY` does.
    package var binaryCollation: String {
        switch self {
        case .sqlite: "BINARY"
        case .postgreSQL: "\"C\""
        }
    }

    /// The equality that holds between two NULLs (and not between NULL and a value).
    package var `is`: String {
        switch self {
        case .sqlite: "IS"
        case .postgreSQL: "IS NOT DISTINCT FROM"
        }
    }

    /// The inequality that holds between NULL and a value (and not between two NULLs).
    package var isNot: String {
        switch self {
        case .sqlite: "IS NOT"
        case .postgreSQL: "IS DISTINCT FROM"
        }
    }

    /// Text as the `OCD_UNICODE` collation must compare it to give Swift's `==` and `<`
    /// (canonical equivalence, then code points): SQLite's collation calls Swift on the text
    /// as stored; PostgreSQL's (a copy of `"C"`, code points) gets its NFC form.
    package func comparedText(_ text: SQLFragment) -> SQLFragment {
        switch self {
        case .sqlite: text
        case .postgreSQL: "normalize(\(text), NFC)"
        }
    }

    /// An ORDER BY term's direction, nil first when ascending as sorting in memory puts it
    /// (SQLite's order; PostgreSQL puts NULL last unless told).
    package func sortDirection(ascending: Bool) -> String {
        switch self {
        case .sqlite: ascending ? "ASC" : "DESC"
        case .postgreSQL: ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
        }
    }

    /// The LIMIT of a fetch with an offset and no limit.
    package var noLimit: String {
        switch self {
        case .sqlite: "-1"
        case .postgreSQL: "ALL"
        }
    }

    /// A subquery of the keys in `text` (made by ``keyListText(_:)``), one row each in a column named `value`.
    package func keyList(_ text: String) -> SQLFragment {
        switch self {
        case .sqlite: "SELECT value FROM json_each(\(.bind(text.sqlScalar)))"
        case .postgreSQL: "SELECT unnest(CAST(\(.bind(text.sqlScalar)) AS BIGINT[])) AS value"
        }
    }

    /// `column` is one of the keys in `text` (made by ``keyListText(_:)``): SQLite tests
    /// membership in ``keyList(_:)``; PostgreSQL compares with the array itself
    /// (`= ANY(…)`), which it plans as an index scan in a fraction of the time a subquery
    /// takes to plan (batch faults run it once per batch).
    package func keyMembership(_ column: String, _ text: String) -> SQLFragment {
        switch self {
        case .sqlite: "\(raw: column) IN (\(keyList(text)))"
        case .postgreSQL: "\(raw: column) = ANY(CAST(\(.bind(text.sqlScalar)) AS BIGINT[]))"
        }
    }

    /// `keys` as the text ``keyList(_:)`` binds: a JSON array for SQLite, an array literal for PostgreSQL.
    package func keyListText(_ keys: [Int64]) -> String {
        var text = self == .sqlite ? "[" : "{"
        text.reserveCapacity(keys.count * 8 + 2)
        for (index, key) in keys.enumerated() {
            if index > 0 { text += "," }
            text += String(key)
        }
        text += self == .sqlite ? "]" : "}"
        return text
    }

    /// `INSERT` of `values` into `columns` of `table` that leaves a row already there
    /// (same primary key or unique value) as it is.
    package func insertIgnoringDuplicates(into table: String, columns: String, values: String) -> String {
        switch self {
        case .sqlite: "INSERT OR IGNORE INTO \(table) (\(columns)) \(values)"
        case .postgreSQL: "INSERT INTO \(table) (\(columns)) \(values) ON CONFLICT DO NOTHING"
        }
    }
}
