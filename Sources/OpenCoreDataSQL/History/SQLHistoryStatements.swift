import OpenCoreDataCore

/// The statements on persistent history's tables, as Core Data keeps them:
/// `ATRANSACTION` (one row per save or batch request), `ACHANGE` (one row per changed
/// object: the changed properties as bits in `ZCOLUMNS`, the values a deletion keeps in
/// `ZTOMBSTONE<n>`) and `ATRANSACTIONSTRING` (each author, context name, bundle and
/// process identifier stored once): creating them, recording, reading and deleting
/// transactions, and carrying recorded changes through a migration.
package enum SQLHistoryStatements {
    // MARK: Tables

    /// Creates the tables, their indexes and their key counters (16001 to 16003 in
    /// `Z_PRIMARYKEY`) where missing, one statement each, in `dialect`.
    package static func install(_ dialect: SQLDialect) -> [SQLFragment] {
        let (integer, real, text, blob) = (
            dialect.columnType("INTEGER"), dialect.columnType("FLOAT"), dialect.columnType("VARCHAR"),
            dialect.columnType("BLOB")
        )
        let strings = ["ZAUTHOR", "ZBUNDLEID", "ZCONTEXTNAME", "ZPROCESSID"]
        let stringKeys = strings.map { "\($0)TS \(integer)" }.joined(separator: ", ")
        let inlineStrings = strings.map { "\($0) \(text)" }.joined(separator: ", ")
        return [
            "CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING (\(raw: dialect.keyColumn("Z_PK")), Z_ENT \(raw: integer), Z_OPT \(raw: integer), ZNAME \(raw: text) NOT NULL)",
            "CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE \(raw: dialect.binaryCollation) ASC)",
            "CREATE TABLE IF NOT EXISTS ATRANSACTION (\(raw: dialect.keyColumn("Z_PK")), Z_ENT \(raw: integer), Z_OPT \(raw: integer), \(raw: stringKeys), ZTIMESTAMP \(raw: real), \(raw: inlineStrings), ZQUERYGEN \(raw: blob))",
            "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TIMESTAMP ON ATRANSACTION (ZTIMESTAMP)",
            "CREATE TABLE IF NOT EXISTS ACHANGE (\(raw: dialect.keyColumn("Z_PK")), Z_ENT \(raw: integer), Z_OPT \(raw: integer), ZCHANGETYPE \(raw: integer), ZENTITY \(raw: integer), ZENTITYPK \(raw: integer), ZTRANSACTIONID \(raw: integer), ZCOLUMNS \(raw: blob))",
            "CREATE INDEX IF NOT EXISTS ACHANGE_TRANSACTIONID ON ACHANGE (ZTRANSACTIONID)",
            counters(dialect),
        ]
    }

    /// The history tables' key counters in `Z_PRIMARYKEY` (16001–16003), added where missing.
    package static func counters(_ dialect: SQLDialect) -> SQLFragment {
        let insert = dialect.insertIgnoringDuplicates(
            into: "Z_PRIMARYKEY", columns: "Z_ENT, Z_NAME, Z_SUPER, Z_MAX",
            values: "VALUES (16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0)")
        return "\(raw: insert)"
    }

    /// How many of the history tables' key counters `Z_PRIMARYKEY` holds.
    package static let counterCount: SQLFragment =
        "SELECT COUNT(*) FROM Z_PRIMARYKEY WHERE Z_ENT IN (16001, 16002, 16003)"

    /// The history tables' key counters that are missing, each started at its table's
    /// largest key, so the keys it hands out next are free.
    package static func missingCounters(_ dialect: SQLDialect) -> [SQLFragment] {
        [
            (16001, "CHANGE", "ACHANGE"), (16002, "TRANSACTION", "ATRANSACTION"),
            (16003, "TRANSACTIONSTRING", "ATRANSACTIONSTRING"),
        ].map { number, name, table in
            let insert = dialect.insertIgnoringDuplicates(
                into: "Z_PRIMARYKEY", columns: "Z_ENT, Z_NAME, Z_SUPER, Z_MAX",
                values: "SELECT \(number), '\(name)', 0, COALESCE(MAX(Z_PK), 0) FROM \(table)")
            return "\(raw: insert)"
        }
    }

    /// The name of the column holding the `index`-th value a deletion keeps.
    package static func tombstoneColumn(_ index: Int) -> String { "ZTOMBSTONE\(index)" }

    /// Adds the `index`-th tombstone column to `ACHANGE`: untyped in SQLite, as Core Data
    /// adds it (it holds values of any attribute type); text in `dialect`s with static
    /// types, holding ``SQLHistoryTombstone`` encodings.
    package static func addTombstoneColumn(_ index: Int, _ dialect: SQLDialect) -> SQLFragment {
        switch dialect {
        case .sqlite: "ALTER TABLE ACHANGE ADD COLUMN \(raw: tombstoneColumn(index))"
        case .postgreSQL: "ALTER TABLE ACHANGE ADD COLUMN \(raw: tombstoneColumn(index)) TEXT"
        }
    }

    // MARK: Recording

    /// The values a deletion keeps (`columns` of the row `key` in `table`), read before the row goes.
    package static func tombstoneValues(_ columns: [String], table: String, key: Int64) -> SQLFragment {
        "SELECT \(raw: SQLList.of(columns)) FROM \(raw: table) WHERE Z_PK = \(.bind(key.sqlScalar))"
    }

    /// A transaction row: its number, entity number, the keys of its strings in
    /// `ATRANSACTIONSTRING` (`nil` for none) and its time (seconds since 2001).
    package static func insertTransaction(
        number: Int64, entityNumber: Int, author: Int64?, bundleID: Int64?, contextName: Int64?, processID: Int64?,
        timestamp: SQLFragment
    ) -> SQLFragment {
        let values = [
            number.sqlScalar, entityNumber.sqlScalar, author.sqlScalar, bundleID.sqlScalar,
            contextName.sqlScalar, processID.sqlScalar,
        ]
        return
            "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (\(.joined(values.map(SQLFragment.bind), separator: ", ")), \(timestamp))"
    }

    /// A transaction's time: this machine's clock for an SQLite file (one machine writes
    /// it); the server's for PostgreSQL, so transactions saved by several hosts are in
    /// the order of one clock.
    package static func now(_ dialect: SQLDialect) -> SQLFragment {
        switch dialect {
        case .sqlite: .bind(Date().timeIntervalSinceReferenceDate.sqlScalar)
        case .postgreSQL: "EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION - 978307200"
        }
    }

    /// A change row, bound per change: key, change type, entity number, the object's key,
    /// transaction number, `ZCOLUMNS`, then `tombstoneColumns` kept values; the row's own
    /// entity number is `entityNumber`.
    package static func insertChange(entityNumber: Int, tombstoneColumns: Int) -> SQLTemplate {
        let tombstones = (0..<tombstoneColumns).map { ", \(tombstoneColumn($0))" }.joined()
        let placeholders = String(repeating: ", ?", count: tombstoneColumns)
        return SQLTemplate(
            sql:
                "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstones)) VALUES (?, \(entityNumber), ?, ?, ?, ?, ?\(placeholders))"
        )
    }

    /// Delete changes for every row listed in `keysTable` (columns `Z_PK` and `Z_ENT`, in
    /// the order of its column `order`), keyed from `firstKey` on: one statement for a
    /// batch delete's rows.
    package static func insertDeletions(
        from keysTable: String, orderedBy order: String, firstKey: Int64, transaction: Int64, entityNumber: Int,
        changeType: Int
    ) -> SQLFragment {
        """
        INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) \
        SELECT \(.bind((firstKey - 1).sqlScalar)) + ROW_NUMBER() OVER (ORDER BY \(raw: order)), \(.bind(entityNumber.sqlScalar)), \(.bind(changeType.sqlScalar)), Z_ENT, Z_PK, \(.bind(transaction.sqlScalar)) \
        FROM \(raw: keysTable) ORDER BY \(raw: order)
        """
    }

    /// The key of `string` in `ATRANSACTIONSTRING`.
    package static func stringKey(_ string: String) -> SQLFragment {
        "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = \(.bind(string.sqlScalar))"
    }

    /// Stores `string` under `key`.
    package static func insertString(_ string: String, key: Int64, entityNumber: Int) -> SQLFragment {
        "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (\(.bind(key.sqlScalar)), \(.bind(entityNumber.sqlScalar)), \(.bind(string.sqlScalar)))"
    }

    // MARK: Reading

    /// A row when any change is recorded.
    package static let anyChange: SQLFragment = "SELECT 1 FROM ACHANGE LIMIT 1"

    /// The number of the last transaction.
    package static let lastTransactionNumber: SQLFragment = "SELECT MAX(Z_PK) FROM ATRANSACTION"

    /// The number of the first transaction left.
    package static let firstTransactionNumber: SQLFragment = "SELECT MIN(Z_PK) FROM ATRANSACTION"

    /// The transactions in `range`, oldest first: number, time, then author, bundle
    /// identifier, context name and process identifier, each stored inline or as a key of
    /// `ATRANSACTIONSTRING`.
    package static func transactions(in range: StoreHistoryRange) -> SQLFragment {
        let text = { (column: String) in
            "COALESCE(t.Z\(column), (SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.Z\(column)TS))"
        }
        return """
            SELECT t.Z_PK, t.ZTIMESTAMP, \(raw: text("AUTHOR")), \(raw: text("BUNDLEID")), \(raw: text("CONTEXTNAME")), \(raw: text("PROCESSID"))
            FROM ATRANSACTION t WHERE \(condition(range)) ORDER BY t.Z_PK
            """
    }

    /// Every column of the changes of the transactions in `range`, in order.
    package static func changes(in range: StoreHistoryRange) -> SQLFragment {
        "SELECT c.* FROM ACHANGE c JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID WHERE \(condition(range)) ORDER BY c.Z_PK"
    }

    // MARK: Deleting

    /// Deletes the changes of the transactions in `range`.
    package static func deleteChanges(in range: StoreHistoryRange) -> SQLFragment {
        "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition(range)))"
    }

    /// Deletes the transactions in `range`.
    package static func deleteTransactions(in range: StoreHistoryRange) -> SQLFragment {
        "DELETE FROM ATRANSACTION WHERE Z_PK IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition(range)))"
    }

    /// Deletes the strings no transaction names any more.
    package static let deleteUnusedStrings: SQLFragment = """
        DELETE FROM ATRANSACTIONSTRING WHERE Z_PK NOT IN (
          SELECT ZAUTHORTS FROM ATRANSACTION WHERE ZAUTHORTS IS NOT NULL UNION SELECT ZBUNDLEIDTS FROM ATRANSACTION WHERE ZBUNDLEIDTS IS NOT NULL
          UNION SELECT ZCONTEXTNAMETS FROM ATRANSACTION WHERE ZCONTEXTNAMETS IS NOT NULL UNION SELECT ZPROCESSIDTS FROM ATRANSACTION WHERE ZPROCESSIDTS IS NOT NULL)
        """

    /// The condition on `ATRANSACTION` (aliased `t`) selecting `range`.
    private static func condition(_ range: StoreHistoryRange) -> SQLFragment {
        switch range {
        case .all: "TRUE"
        case let .afterNumber(number): "t.Z_PK > \(.bind(number.sqlScalar))"
        case let .afterDate(date): "t.ZTIMESTAMP > \(.bind(date.timeIntervalSinceReferenceDate.sqlScalar))"
        case let .throughNumber(number): "t.Z_PK <= \(.bind(number.sqlScalar))"
        case let .beforeNumber(number): "t.Z_PK < \(.bind(number.sqlScalar))"
        case let .beforeDate(date): "t.ZTIMESTAMP < \(.bind(date.timeIntervalSinceReferenceDate.sqlScalar))"
        }
    }

    // MARK: Migrating

    /// `Z_PK, ZCOLUMNS` of the updates of objects of the entity numbered `number`.
    package static func updatedColumns(ofEntity number: Int) -> SQLFragment {
        "SELECT Z_PK, ZCOLUMNS FROM ACHANGE WHERE ZENTITY = \(.bind(number.sqlScalar)) AND ZCOLUMNS IS NOT NULL"
    }

    /// Sets the changed-property bits of the change `key`.
    package static func setUpdatedColumns(_ bits: Data, key: Int64) -> SQLFragment {
        "UPDATE ACHANGE SET ZCOLUMNS = \(.bind(bits.sqlScalar)) WHERE Z_PK = \(.bind(key.sqlScalar))"
    }

    /// `Z_PK` and the first `count` tombstone columns of the deletions (change type
    /// `deleteType`) of objects of the entity numbered `number`.
    package static func tombstones(_ count: Int, ofEntity number: Int, deleteType: Int) -> SQLFragment {
        let columns = (0..<count).map(tombstoneColumn)
        return
            "SELECT Z_PK, \(raw: SQLList.of(columns)) FROM ACHANGE WHERE ZENTITY = \(.bind(number.sqlScalar)) AND ZCHANGETYPE = \(.bind(deleteType.sqlScalar))"
    }

    /// Sets the tombstone columns of the change `key` to `values`, in column order.
    package static func setTombstones(_ values: [SQLScalar], key: Int64) -> SQLFragment {
        let assignments = values.enumerated().map { index, value -> SQLFragment in
            "\(raw: tombstoneColumn(index)) = \(.bind(value))"
        }
        return "UPDATE ACHANGE SET \(.joined(assignments, separator: ", ")) WHERE Z_PK = \(.bind(key.sqlScalar))"
    }

    /// Deletes the changes of objects of the entities numbered `numbers`.
    package static func deleteChanges(ofEntities numbers: [Int]) -> SQLFragment {
        "DELETE FROM ACHANGE WHERE ZENTITY IN (\(raw: SQLList.numbers(numbers)))"
    }

    /// Gives changes the new number of their entity (`old` → `new`); others keep theirs.
    package static func renumberChanges(_ numbers: [(old: Int, new: Int)]) -> SQLFragment {
        let cases = numbers.map { "WHEN \($0.old) THEN \($0.new)" }.joined(separator: " ")
        return "UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(raw: cases) ELSE ZENTITY END"
    }
}
