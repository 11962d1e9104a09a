import OpenCoreDataCore
import GRDB

/// Persistent history in an SQLite store, in the tables Core Data keeps it in:
/// `ATRANSACTION` (one row per save or batch request), `ACHANGE` (one row per changed
/// object, with a bit set per changed property and `ZTOMBSTONE<n>` values for deleted
/// rows) and `ATRANSACTIONSTRING` (authors, context names, bundle and process
/// identifiers, each stored once). Their keys come from `Z_PRIMARYKEY` rows numbered
/// 16001 to 16003, outside the range of model entities. As in stores Core Data writes,
/// history rows carry no version (`Z_OPT` is NULL): they are never updated.
///
/// Every method runs inside the caller's database transaction, so a transaction's
/// history commits or rolls back with its data.
struct SQLiteHistory {
    static let changeEntityNumber = 16001
    static let transactionEntityNumber = 16002
    static let stringEntityNumber = 16003
    /// Entity numbers from here up belong to the store's own tables, not to the model.
    static let firstReservedEntityNumber = 16000

    let schema: SQLiteSchema
    /// Per entity number, the attributes whose values a deletion keeps, in slot order;
    /// the n-th goes to column `ZTOMBSTONE<n>`.
    let tombstoneAttributes: [Int: [NSAttributeDescription]]
    /// How many `ZTOMBSTONE<n>` columns the model needs: the most any entity keeps.
    private let tombstoneColumnCount: Int

    init(schema: SQLiteSchema) {
        self.schema = schema
        var attributes: [Int: [NSAttributeDescription]] = [:]
        for entity in schema.entities {
            let kept = entity.facts.slots.compactMap { $0 as? NSAttributeDescription }.filter {
                // Values in files beside the store are left out, as Core Data leaves them out.
                $0.preservesValueInHistoryOnDeletion && $0.isStored && !$0.allowsExternalBinaryDataStorage && schema.column(for: $0) != nil
            }
            if !kept.isEmpty { attributes[entity.facts.entityNumber] = kept }
        }
        tombstoneAttributes = attributes
        tombstoneColumnCount = attributes.values.map(\.count).max() ?? 0
    }

    /// Whether the database has history tables (it tracked history once).
    static func exists(_ db: Database) throws -> Bool {
        try db.tableExists("ATRANSACTION")
    }

    /// Creates the history tables and their key counters if missing, and the tombstone
    /// columns the model needs.
    func install(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR NOT NULL);
            CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC);
            CREATE TABLE IF NOT EXISTS ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB);
            CREATE INDEX IF NOT EXISTS Z_TRANSACTION_TIMESTAMP ON ATRANSACTION (ZTIMESTAMP);
            CREATE TABLE IF NOT EXISTS ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB);
            CREATE INDEX IF NOT EXISTS ACHANGE_TRANSACTIONID ON ACHANGE (ZTRANSACTIONID);
            INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0);
            """)
        let present = Set(try db.columns(in: "ACHANGE").map { $0.name.uppercased() })
        for index in 0..<tombstoneColumnCount where !present.contains("ZTOMBSTONE\(index)") {
            try db.execute(sql: "ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(index)")
        }
    }

    // MARK: Recording

    /// The tombstone values of rows about to be deleted, read before they go.
    func tombstones(_ db: Database, of rows: [(entity: NSEntityDescription, primaryKey: Int64)]) throws -> [Int64: [DatabaseValue]] {
        var values: [Int64: [DatabaseValue]] = [:]
        for row in rows {
            guard let attributes = tombstoneAttributes[row.entity.facts.entityNumber] else { continue }
            let columns = attributes.compactMap { schema.column(for: $0) }.joined(separator: ", ")
            let table = try schema.table(for: row.entity).name
            if let found = try Row.fetchOne(db, sql: "SELECT \(columns) FROM \(table) WHERE Z_PK = ?", arguments: [row.primaryKey]) {
                values[row.primaryKey] = Array(found.databaseValues)
            }
        }
        return values
    }

    /// Records one transaction and its changes; returns the transaction's number.
    @discardableResult
    func record(_ db: Database, origin: StoreHistoryOrigin, changes: [StoreHistoryChange], tombstones: [Int64: [DatabaseValue]]) throws -> Int64 {
        // A batch request that matched nothing changed nothing worth a transaction.
        guard !changes.isEmpty else { return try Self.lastTransactionNumber(db) }
        let number = try reserveKeys(db, entity: Self.transactionEntityNumber, count: 1)
        try db.execute(
            sql: "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                number, Self.transactionEntityNumber,
                try stringKey(db, origin.author), try stringKey(db, StoreHistoryOrigin.bundleID),
                try stringKey(db, origin.contextName), try stringKey(db, StoreHistoryOrigin.processID),
                Date().timeIntervalSinceReferenceDate,
            ]
        )
        let tombstoneColumns = (0..<tombstoneColumnCount).map { ", ZTOMBSTONE\($0)" }.joined()
        let placeholders = String(repeating: ", ?", count: tombstoneColumnCount)
        let insert = try db.cachedStatement(sql: "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneColumns)) VALUES (?, \(Self.changeEntityNumber), ?, ?, ?, ?, ?\(placeholders))")
        var key = try reserveKeys(db, entity: Self.changeEntityNumber, count: changes.count)
        for change in changes {
            var arguments: [DatabaseValue] = [
                key.databaseValue, change.type.rawValue.databaseValue, change.entity.facts.entityNumber.databaseValue,
                change.primaryKey.databaseValue, number.databaseValue,
                change.type == .update ? Self.columnBits(change.updatedSlots).databaseValue : .null,
            ]
            let kept = change.type == .delete ? tombstones[change.primaryKey] ?? [] : []
            arguments += (0..<tombstoneColumnCount).map { $0 < kept.count ? kept[$0] : .null }
            try insert.execute(arguments: StatementArguments(arguments))
            key += 1
        }
        return number
    }

    /// The first of `count` new keys for one of the history tables.
    private func reserveKeys(_ db: Database, entity: Int, count: Int) throws -> Int64 {
        let current = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity]) ?? 0
        guard current <= Int64.max - Int64(count) else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The store's persistent history has used up its keys (Z_MAX is \(current))")
        }
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [current + Int64(count), entity])
        return current + 1
    }

    /// The key of `string` in `ATRANSACTIONSTRING`, added if new.
    private func stringKey(_ db: Database, _ string: String?) throws -> Int64? {
        guard let string else { return nil }
        if let key = try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", arguments: [string]) { return key }
        let key = try reserveKeys(db, entity: Self.stringEntityNumber, count: 1)
        try db.execute(sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, ?, ?)", arguments: [key, Self.stringEntityNumber, string])
        return key
    }

    /// One bit per changed slot, lowest slot in the lowest bit of the first byte.
    static func columnBits(_ slots: [Int]) -> Data {
        var bytes = [UInt8](repeating: 0, count: (slots.max() ?? 0) / 8 + 1)
        for slot in slots { bytes[slot / 8] |= 1 << UInt8(slot % 8) }
        return Data(bytes)
    }

    /// The slots whose bits are set.
    static func slots(inColumnBits data: Data) -> [Int] {
        data.enumerated().flatMap { byte, bits in (0..<8).filter { bits & (1 << UInt8($0)) != 0 }.map { byte * 8 + $0 } }
    }

    // MARK: Reading

    /// The number of the store's last transaction (0 when it has none yet).
    static func lastTransactionNumber(_ db: Database) throws -> Int64 {
        guard try exists(db) else { return 0 }
        return try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION") ?? 0
    }

    /// The number up to which history was deleted: history after a token below it is lost.
    static func deletedThrough(_ db: Database) throws -> Int64 {
        if let first = try Int64.fetchOne(db, sql: "SELECT MIN(Z_PK) FROM ATRANSACTION") { return first - 1 }
        // No transaction left: all that were ever numbered are gone.
        return try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [transactionEntityNumber]) ?? 0
    }

    /// The SQL condition on `ATRANSACTION` (aliased `t`) selecting `range`.
    private static func condition(_ range: StoreHistoryRange) -> (sql: String, arguments: StatementArguments) {
        switch range {
        case .all: ("1", [])
        case let .afterNumber(number): ("t.Z_PK > ?", [number])
        case let .afterDate(date): ("t.ZTIMESTAMP > ?", [date.timeIntervalSinceReferenceDate])
        case let .throughNumber(number): ("t.Z_PK <= ?", [number])
        case let .beforeNumber(number): ("t.Z_PK < ?", [number])
        case let .beforeDate(date): ("t.ZTIMESTAMP < ?", [date.timeIntervalSinceReferenceDate])
        }
    }

    /// The transactions in `range`, oldest first, with their changes when asked for.
    /// Changes to entities the model does not know are left out.
    func transactions(_ db: Database, in range: StoreHistoryRange, withChanges: Bool, store: NSPersistentStore, decode: (DatabaseValue, NSAttributeDescription) throws -> Any?) throws -> [NSPersistentHistoryTransaction] {
        // A read-only store that never tracked history has no tables to read.
        guard try Self.exists(db) else { return [] }
        let (condition, arguments) = Self.condition(range)
        let text = { (column: String) in "COALESCE(t.Z\(column), (SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.Z\(column)TS))" }
        let rows = try Row.fetchAll(db, sql: """
            SELECT t.Z_PK, t.ZTIMESTAMP, \(text("AUTHOR")), \(text("BUNDLEID")), \(text("CONTEXTNAME")), \(text("PROCESSID"))
            FROM ATRANSACTION t WHERE \(condition) ORDER BY t.Z_PK
            """, arguments: arguments)
        var byNumber: [Int64: NSPersistentHistoryTransaction] = [:]
        let transactions = rows.compactMap { row -> NSPersistentHistoryTransaction? in
            // Database values, not typed subscripts: those trap on a value of another type.
            guard let number = Int64.fromDatabaseValue(row[0] as DatabaseValue) else { return nil }
            let transaction = NSPersistentHistoryTransaction(
                timestamp: Date(timeIntervalSinceReferenceDate: Double.fromDatabaseValue(row[1] as DatabaseValue) ?? 0),
                transactionNumber: number, storeID: store.identifier,
                bundleID: String.fromDatabaseValue(row[3] as DatabaseValue) ?? "",
                processID: String.fromDatabaseValue(row[5] as DatabaseValue) ?? "",
                contextName: String.fromDatabaseValue(row[4] as DatabaseValue),
                author: String.fromDatabaseValue(row[2] as DatabaseValue)
            )
            byNumber[number] = transaction
            return transaction
        }
        guard withChanges, !transactions.isEmpty else { return transactions }
        for transaction in transactions { transaction.changes = [] }
        let changeRows = try Row.fetchCursor(db, sql: """
            SELECT c.* FROM ACHANGE c JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID WHERE \(condition) ORDER BY c.Z_PK
            """, arguments: arguments)
        while let row = try changeRows.next() {
            guard let change = try change(from: row, store: store, decode: decode),
                  let number = Int64.fromDatabaseValue(row["ZTRANSACTIONID"] as DatabaseValue),
                  let transaction = byNumber[number]
            else { continue }
            change.transaction = transaction
            transaction.changes!.append(change)
        }
        return transactions
    }

    private func change(from row: Row, store: NSPersistentStore, decode: (DatabaseValue, NSAttributeDescription) throws -> Any?) throws -> NSPersistentHistoryChange? {
        guard let changeID = Int64.fromDatabaseValue(row["Z_PK"] as DatabaseValue),
              let number = Int.fromDatabaseValue(row["ZENTITY"] as DatabaseValue),
              let entity = schema.entitiesByNumber[number],
              let key = Int64.fromDatabaseValue(row["ZENTITYPK"] as DatabaseValue),
              let rawType = Int.fromDatabaseValue(row["ZCHANGETYPE"] as DatabaseValue),
              let type = NSPersistentHistoryChangeType(rawValue: rawType)
        else { return nil }
        var updated: Set<NSPropertyDescription>?
        if type == .update {
            let properties = entity.facts.slots
            // Only the bytes that can name a property: a damaged blob could be huge.
            let bits = Data.fromDatabaseValue(row["ZCOLUMNS"] as DatabaseValue)?.prefix((properties.count + 7) / 8)
            let slots = bits.map(Self.slots(inColumnBits:)) ?? []
            updated = Set(slots.filter { $0 < properties.count }.map { properties[$0] })
        }
        var tombstone: [AnyHashable: Any]?
        if type == .delete, let attributes = tombstoneAttributes[number] {
            var values: [AnyHashable: Any] = [:]
            for (index, attribute) in attributes.enumerated() {
                let stored = row["ZTOMBSTONE\(index)"] as DatabaseValue? ?? .null
                if !stored.isNull, let value = try decode(stored, attribute) { values[attribute.name] = value }
            }
            tombstone = values
        }
        let id = NSManagedObjectID(entity: entity, store: store, primaryKey: key)
        return NSPersistentHistoryChange(changeID: changeID, changedObjectID: id, changeType: type, tombstone: tombstone, updatedProperties: updated)
    }

    // MARK: Deleting

    /// Deletes the transactions in `range` with their changes; returns how many transactions went.
    static func delete(_ db: Database, in range: StoreHistoryRange) throws -> Int {
        guard try exists(db) else { return 0 }
        let (condition, arguments) = Self.condition(range)
        try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition))", arguments: arguments)
        try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition))", arguments: arguments)
        let deleted = db.changesCount
        // Strings no transaction names any more.
        try db.execute(sql: """
            DELETE FROM ATRANSACTIONSTRING WHERE Z_PK NOT IN (
              SELECT ZAUTHORTS FROM ATRANSACTION WHERE ZAUTHORTS IS NOT NULL UNION SELECT ZBUNDLEIDTS FROM ATRANSACTION WHERE ZBUNDLEIDTS IS NOT NULL
              UNION SELECT ZCONTEXTNAMETS FROM ATRANSACTION WHERE ZCONTEXTNAMETS IS NOT NULL UNION SELECT ZPROCESSIDTS FROM ATRANSACTION WHERE ZPROCESSIDTS IS NOT NULL)
            """)
        return deleted
    }
}
