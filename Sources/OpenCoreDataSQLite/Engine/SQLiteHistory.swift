import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB
internal import GRDBSQLite

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

    let schema: SQLSchema
    /// Per entity number, the attributes whose values a deletion keeps, in slot order;
    /// the n-th goes to column `ZTOMBSTONE<n>`.
    let tombstoneAttributes: [Int: [NSAttributeDescription]]
    /// How many `ZTOMBSTONE<n>` columns the model needs: the most any entity keeps.
    private let tombstoneColumnCount: Int
    /// The `ACHANGE` insert, bound per change (its text depends on the tombstone columns only).
    private let changeInsert: SQLTemplate

    init(schema: SQLSchema) {
        self.schema = schema
        var attributes: [Int: [NSAttributeDescription]] = [:]
        for entity in schema.entities {
            let kept = entity.facts.slots.compactMap { $0 as? NSAttributeDescription }.filter {
                // Values in files beside the store are left out, as Core Data leaves them out.
                $0.preservesValueInHistoryOnDeletion && $0.isStored && !$0.allowsExternalBinaryDataStorage
                    && schema.column(for: $0) != nil
            }
            if !kept.isEmpty { attributes[entity.facts.entityNumber] = kept }
        }
        tombstoneAttributes = attributes
        tombstoneColumnCount = attributes.values.map(\.count).max() ?? 0
        changeInsert = SQLHistoryStatements.insertChange(
            entityNumber: Self.changeEntityNumber, tombstoneColumns: tombstoneColumnCount)
    }

    /// Whether the database has history tables (it tracked history once).
    static func exists(_ db: Database) throws -> Bool {
        try db.tableExists("ATRANSACTION")
    }

    /// Creates the history tables and their key counters if missing, and the tombstone
    /// columns the model needs.
    func install(_ db: Database) throws {
        try db.execute(SQLHistoryStatements.install)
        let present = Set(try db.columns(in: "ACHANGE").map { $0.name.uppercased() })
        for index in 0..<tombstoneColumnCount where !present.contains(SQLHistoryStatements.tombstoneColumn(index)) {
            try db.execute(SQLHistoryStatements.addTombstoneColumn(index))
        }
    }

    // MARK: Recording

    /// The tombstone values of rows about to be deleted, read before they go.
    func tombstones(
        _ db: Database, of rows: [(entity: NSEntityDescription, primaryKey: Int64)]
    ) throws -> [Int64: [SQLScalar]] {
        var values: [Int64: [SQLScalar]] = [:]
        guard !tombstoneAttributes.isEmpty else { return values }
        for row in rows {
            guard let attributes = tombstoneAttributes[row.entity.facts.entityNumber] else { continue }
            let columns = attributes.compactMap { schema.column(for: $0) }
            let table = try schema.table(for: row.entity).name
            if let found = try Row.fetchOne(
                db, SQLHistoryStatements.tombstoneValues(columns, table: table, key: row.primaryKey))
            {
                values[row.primaryKey] = found.databaseValues.map(SQLScalar.init)
            }
        }
        return values
    }

    /// Records one transaction and its changes; returns the transaction's number.
    ///
    /// A batch delete whose rows keep no values (`tombstones` empty) lists them as
    /// `deletedRows`, a table of their keys and entity numbers with `count` rows: their
    /// changes are added in one statement, before `changes`.
    @discardableResult
    func record(
        _ db: Database, origin: StoreHistoryOrigin, changes: [StoreHistoryChange], tombstones: [Int64: [SQLScalar]],
        deletedRows: (table: String, count: Int)? = nil
    ) throws -> Int64 {
        let listed = deletedRows?.count ?? 0
        // A batch request that matched nothing changed nothing worth a transaction.
        guard !changes.isEmpty || listed > 0 else { return try Self.lastTransactionNumber(db) }
        let number = try reserveKeys(db, entity: Self.transactionEntityNumber, count: 1)
        try db.execute(
            SQLHistoryStatements.insertTransaction(
                number: number, entityNumber: Self.transactionEntityNumber,
                author: try stringKey(db, origin.author), bundleID: try stringKey(db, StoreHistoryOrigin.bundleID),
                contextName: try stringKey(db, origin.contextName),
                processID: try stringKey(db, StoreHistoryOrigin.processID),
                timestamp: Date()
            ))
        var key = try reserveKeys(db, entity: Self.changeEntityNumber, count: listed + changes.count)
        if let deletedRows, listed > 0 {
            try db.execute(
                SQLHistoryStatements.insertDeletions(
                    from: deletedRows.table, firstKey: key, transaction: number,
                    entityNumber: Self.changeEntityNumber, changeType: NSPersistentHistoryChangeType.delete.rawValue
                ))
            key += Int64(listed)
        }
        guard !changes.isEmpty else { return number }
        let insert = try db.cachedStatement(sql: changeInsert.sql)
        let handle = insert.sqliteStatement
        // Bound with SQLite's C API: one row per changed object (see DirectBinding).
        for change in changes {
            sqlite3_reset(handle)
            try DirectBinding.check(sqlite3_bind_int64(handle, 1, key), insert, db)
            try DirectBinding.check(sqlite3_bind_int64(handle, 2, Int64(change.type.rawValue)), insert, db)
            try DirectBinding.check(sqlite3_bind_int64(handle, 3, Int64(change.entity.facts.entityNumber)), insert, db)
            try DirectBinding.check(sqlite3_bind_int64(handle, 4, change.primaryKey), insert, db)
            try DirectBinding.check(sqlite3_bind_int64(handle, 5, number), insert, db)
            let columns = change.type == .update ? Self.columnBits(change.updatedSlots).sqlScalar : .null
            try DirectBinding.check(DirectBinding.bind(columns, handle, 6), insert, db)
            let kept = change.type == .delete ? tombstones[change.primaryKey] ?? [] : []
            for index in 0..<tombstoneColumnCount {
                try DirectBinding.check(
                    DirectBinding.bind(index < kept.count ? kept[index] : .null, handle, Int32(7 + index)), insert, db)
            }
            try DirectBinding.step(insert, db)
            key += 1
        }
        return number
    }

    /// The first of `count` new keys for one of the history tables.
    private func reserveKeys(_ db: Database, entity: Int, count: Int) throws -> Int64 {
        let current = try Int64.fetchOne(db, SQLPrimaryKeyStatements.counter(of: entity)) ?? 0
        guard current <= Int64.max - Int64(count) else {
            throw CoreDataError.make(
                NSPersistentStoreSaveError, "The store's persistent history has used up its keys (Z_MAX is \(current))")
        }
        try db.execute(SQLPrimaryKeyStatements.setCounter(of: entity, to: current + Int64(count)))
        return current + 1
    }

    /// The key of `string` in `ATRANSACTIONSTRING`, added if new.
    private func stringKey(_ db: Database, _ string: String?) throws -> Int64? {
        guard let string else { return nil }
        if let key = try Int64.fetchOne(db, SQLHistoryStatements.stringKey(string)) { return key }
        let key = try reserveKeys(db, entity: Self.stringEntityNumber, count: 1)
        try db.execute(SQLHistoryStatements.insertString(string, key: key, entityNumber: Self.stringEntityNumber))
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
        data.enumerated().flatMap { byte, bits in (0..<8).filter { bits & (1 << UInt8($0)) != 0 }.map { byte * 8 + $0 }
        }
    }

    // MARK: Reading

    /// The number of the store's last transaction (0 when it has none yet).
    static func lastTransactionNumber(_ db: Database) throws -> Int64 {
        guard try exists(db) else { return 0 }
        return try Int64.fetchOne(db, SQLHistoryStatements.lastTransactionNumber) ?? 0
    }

    /// The number up to which history was deleted: history after a token below it is lost.
    static func deletedThrough(_ db: Database) throws -> Int64 {
        if let first = try Int64.fetchOne(db, SQLHistoryStatements.firstTransactionNumber) { return first - 1 }
        // No transaction left: all that were ever numbered are gone.
        return try Int64.fetchOne(db, SQLPrimaryKeyStatements.counter(of: transactionEntityNumber)) ?? 0
    }

    /// The transactions in `range`, oldest first, with their changes when asked for.
    /// Changes to entities the model does not know are left out.
    func transactions(
        _ db: Database, in range: StoreHistoryRange, withChanges: Bool, store: NSPersistentStore,
        decode: (SQLScalar, NSAttributeDescription) throws -> Any?
    ) throws -> [NSPersistentHistoryTransaction] {
        // A read-only store that never tracked history has no tables to read.
        guard try Self.exists(db) else { return [] }
        let rows = try Row.fetchAll(db, SQLHistoryStatements.transactions(in: range))
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
        let changeRows = try Row.fetchCursor(db, SQLHistoryStatements.changes(in: range))
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

    private func change(
        from row: Row, store: NSPersistentStore, decode: (SQLScalar, NSAttributeDescription) throws -> Any?
    ) throws -> NSPersistentHistoryChange? {
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
                let stored = SQLScalar(row[SQLHistoryStatements.tombstoneColumn(index)] as DatabaseValue? ?? .null)
                if !stored.isNull, let value = try decode(stored, attribute) { values[attribute.name] = value }
            }
            tombstone = values
        }
        let id = NSManagedObjectID(entity: entity, store: store, primaryKey: key)
        return NSPersistentHistoryChange(
            changeID: changeID, changedObjectID: id, changeType: type, tombstone: tombstone, updatedProperties: updated)
    }

    // MARK: Deleting

    /// Deletes the transactions in `range` with their changes; returns how many transactions went.
    static func delete(_ db: Database, in range: StoreHistoryRange) throws -> Int {
        guard try exists(db) else { return 0 }
        try db.execute(SQLHistoryStatements.deleteChanges(in: range))
        try db.execute(SQLHistoryStatements.deleteTransactions(in: range))
        let deleted = db.changesCount
        try db.execute(SQLHistoryStatements.deleteUnusedStrings)
        return deleted
    }
}
