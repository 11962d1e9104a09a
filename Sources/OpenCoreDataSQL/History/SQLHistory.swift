import Foundation
import OpenCoreDataCore

/// Persistent history in Core Data's tables, for every SQL engine: `ATRANSACTION` (one
/// row per save or batch request), `ACHANGE` (one row per changed object, with a bit set
/// per changed property and `ZTOMBSTONE<n>` values for deleted rows) and
/// `ATRANSACTIONSTRING` (authors, context names, bundle and process identifiers, each
/// stored once). Their keys come from `Z_PRIMARYKEY` rows numbered 16001 to 16003,
/// outside the range of model entities. As in stores Core Data writes, history rows
/// carry no version (`Z_OPT` is NULL): they are never updated.
///
/// Every method runs inside the caller's database transaction, so a transaction's
/// history commits or rolls back with its data.
///
/// Transaction numbers follow commit order, so a reader that read through number n
/// never later meets a smaller one: in SQLite one writer at a time holds the file; in
/// PostgreSQL the transaction counter's row stays locked by the save that numbered
/// last until it commits, so the next save takes the next number after that commit.
package struct SQLHistory {
    package static let changeEntityNumber = 16001
    package static let transactionEntityNumber = 16002
    package static let stringEntityNumber = 16003
    /// Entity numbers from here up belong to the store's own tables, not to the model.
    package static let firstReservedEntityNumber = 16000

    /// A deleted row, for the values it keeps: rows of two entities may share a key.
    package struct DeletedRow: Hashable {
        package let entityNumber: Int
        package let primaryKey: Int64
    }

    /// The values deleted rows keep, as their columns held them.
    package typealias Tombstones = [DeletedRow: [SQLScalar]]

    /// How a store's history numbers an entity's properties (`ZCOLUMNS` bits, tombstone
    /// columns).
    package enum Layout: Sendable {
        /// In the order the model declares them, inherited first: how history was written
        /// before stores recorded a layout. A model built in code and its compiled copy
        /// (properties by name) disagree, so stores keep it only for the history they hold.
        case declared
        /// Inherited first, from the root down, each entity's own by name: every copy of a
        /// model agrees. Stores using it say so in their metadata (``layoutMetadataKey``).
        case byName
    }

    /// The metadata key naming a store's history layout (2: ``Layout/byName``).
    package static let layoutMetadataKey = "OpenCoreDataHistoryLayout"

    /// The layout of the history of the store open on `db`, whose metadata is `metadata`:
    /// the one its metadata names; else the declared order when it holds recorded changes
    /// (written before stores named their layout: read as they were written); else, for a
    /// store with no history yet, by name.
    package static func layout(_ db: some SQLDatabase, metadata: [String: Any]) throws -> Layout {
        if (metadata[layoutMetadataKey] as? Int) == 2 { return .byName }
        guard try db.tableExists("ACHANGE"), try db.hasRow(SQLHistoryStatements.anyChange) else { return .byName }
        return .declared
    }

    /// The history of the store open on `db` (whose metadata is `metadata`), as the store
    /// opens tracking history: its layout read, and, when the store is writable, its tables
    /// installed and a by-name layout named in the metadata. Returns the history and the
    /// store's metadata from now on.
    package static func open(
        _ db: some SQLDatabase, schema: SQLSchema, metadata: [String: Any], readOnly: Bool
    ) throws -> (history: SQLHistory, metadata: [String: Any]) {
        let history = SQLHistory(schema: schema, layout: try layout(db, metadata: metadata))
        guard !readOnly else { return (history, metadata) }
        try history.install(db)
        guard let named = Self.metadata(metadata, naming: history.layout) else { return (history, metadata) }
        try db.execute(SQLMetadataStatements.update(plist: try SQLStoreMetadata.propertyList(named)))
        return (history, named)
    }

    /// `metadata` naming `layout`, when it must say so (new history is by name).
    private static func metadata(_ metadata: [String: Any], naming layout: Layout) -> [String: Any]? {
        guard layout == .byName, (metadata[layoutMetadataKey] as? Int) != 2 else { return nil }
        var named = metadata
        named[layoutMetadataKey] = 2
        return named
    }

    package let schema: SQLSchema
    /// How this store's history numbers properties.
    package let layout: Layout
    /// Per entity number, the attributes whose values a deletion keeps, in history's
    /// order (``order(of:layout:)``); the n-th goes to column `ZTOMBSTONE<n>`.
    package let tombstoneAttributes: [Int: [NSAttributeDescription]]
    /// Per entity number, each slot's position in history's order: the bit `ZCOLUMNS` sets
    /// for it.
    private let positionsBySlot: [Int: [Int]]
    /// Per entity number, its properties in history's order.
    private let orders: [Int: [NSPropertyDescription]]
    /// How many `ZTOMBSTONE<n>` columns the model needs: the most any entity keeps.
    private let tombstoneColumnCount: Int
    /// The `ACHANGE` insert, bound per change (its text depends on the tombstone columns only).
    private let changeInsert: SQLTemplate

    private var dialect: SQLDialect { schema.dialect }

    package init(schema: SQLSchema, layout: Layout) {
        self.schema = schema
        self.layout = layout
        var attributes: [Int: [NSAttributeDescription]] = [:]
        var positions: [Int: [Int]] = [:]
        var orders: [Int: [NSPropertyDescription]] = [:]
        for entity in schema.entities {
            let number = entity.facts.entityNumber
            let order = Self.order(of: entity, layout: layout)
            orders[number] = order
            let slots = entity.facts.slots
            positions[number] = slots.map { slot in order.firstIndex { $0 === slot } ?? order.count }
            let kept = order.compactMap { $0 as? NSAttributeDescription }.filter {
                // Values in files beside the store are left out, as Core Data leaves them out.
                $0.preservesValueInHistoryOnDeletion && $0.isStored && !$0.allowsExternalBinaryDataStorage
                    && schema.column(for: $0) != nil
            }
            if !kept.isEmpty { attributes[number] = kept }
        }
        tombstoneAttributes = attributes
        positionsBySlot = positions
        self.orders = orders
        tombstoneColumnCount = attributes.values.map(\.count).max() ?? 0
        changeInsert = SQLHistoryStatements.insertChange(
            entityNumber: Self.changeEntityNumber, tombstoneColumns: tombstoneColumnCount)
    }

    /// The properties of `entity` in the order history numbers them (`ZCOLUMNS` bits,
    /// tombstone columns) in `layout`. By name, every instance of a model gives the same
    /// order, whatever order its properties were declared in (a model built in code, its
    /// compiled copy cached in the store).
    package static func order(of entity: NSEntityDescription, layout: Layout) -> [NSPropertyDescription] {
        if layout == .declared { return entity.facts.slots }
        var chain: [NSEntityDescription] = [entity]
        while let parent = chain.last?.superentity, !chain.contains(where: { $0 === parent }) { chain.append(parent) }
        let slots = entity.facts.slots
        var order = chain.reversed().flatMap { owner in
            slots.filter { $0.entity === owner }.sorted { $0.name < $1.name }
        }
        // Every slot has a place (one whose entity is not on the chain goes last), so no
        // change is ever recorded as another property's.
        if order.count < slots.count {
            order += slots.filter { slot in !order.contains { $0 === slot } }.sorted { $0.name < $1.name }
        }
        return order
    }

    /// Whether the database has history tables (it tracked history once).
    package static func exists(_ db: some SQLDatabase) throws -> Bool {
        try db.tableExists("ATRANSACTION")
    }

    /// Creates the history tables and their key counters if missing, and the tombstone
    /// columns the model needs.
    package func install(_ db: some SQLDatabase) throws {
        // Only what is missing: on PostgreSQL even `CREATE INDEX IF NOT EXISTS` locks its table
        // against writers until the opening transaction ends, which deadlocks with a writer
        // holding the history counter.
        let installed = try ["ATRANSACTIONSTRING", "ATRANSACTION", "ACHANGE"].allSatisfy { try db.tableExists($0) }
        if !installed {
            for statement in SQLHistoryStatements.install(dialect) { try db.execute(statement) }
        } else if try db.integer(SQLHistoryStatements.counterCount) != 3 {
            for statement in SQLHistoryStatements.missingCounters(dialect) { try db.execute(statement) }
        }
        let present = try db.columnNames(of: "ACHANGE")
        for index in 0..<tombstoneColumnCount where !present.contains(SQLHistoryStatements.tombstoneColumn(index)) {
            try db.execute(SQLHistoryStatements.addTombstoneColumn(index, dialect))
        }
    }

    // MARK: Recording

    /// The tombstone values of rows about to be deleted, read before they go.
    package func tombstones(
        _ db: some SQLDatabase, of rows: [(entity: NSEntityDescription, primaryKey: Int64)]
    ) throws -> Tombstones {
        var values: Tombstones = [:]
        guard !tombstoneAttributes.isEmpty else { return values }
        for row in rows {
            let number = row.entity.facts.entityNumber
            guard let attributes = tombstoneAttributes[number] else { continue }
            let columns = attributes.compactMap { schema.column(for: $0) }
            let table = try schema.table(for: row.entity).name
            try db.forEachRow(SQLHistoryStatements.tombstoneValues(columns, table: table, key: row.primaryKey)) {
                found in
                values[DeletedRow(entityNumber: number, primaryKey: row.primaryKey)] = columns.indices.map {
                    found[$0]
                }
            }
        }
        return values
    }

    /// Records one transaction and its changes; returns the transaction's number.
    ///
    /// A batch delete whose rows keep no values (`tombstones` empty) lists them as
    /// `deletedRows`, a table of their keys and entity numbers with `count` rows, in the
    /// order of its column `order`: their changes are added in one statement, before `changes`.
    @discardableResult
    package func record(
        _ db: some SQLDatabase, origin: StoreHistoryOrigin, changes: [StoreHistoryChange],
        tombstones: Tombstones, deletedRows: (table: String, order: String, count: Int)? = nil
    ) throws -> Int64 {
        let listed = deletedRows?.count ?? 0
        // A batch request that matched nothing changed nothing worth a transaction.
        guard !changes.isEmpty || listed > 0 else { return try Self.lastTransactionNumber(db) }
        // First, so in PostgreSQL the counter's lock orders this save after every earlier one.
        let number = try reserveKeys(db, entity: Self.transactionEntityNumber, count: 1)
        try db.execute(
            SQLHistoryStatements.insertTransaction(
                number: number, entityNumber: Self.transactionEntityNumber,
                author: try stringKey(db, origin.author), bundleID: try stringKey(db, StoreHistoryOrigin.bundleID),
                contextName: try stringKey(db, origin.contextName),
                processID: try stringKey(db, StoreHistoryOrigin.processID),
                timestamp: SQLHistoryStatements.now(dialect)
            ))
        var key = try reserveKeys(db, entity: Self.changeEntityNumber, count: listed + changes.count)
        if let deletedRows, listed > 0 {
            try db.execute(
                SQLHistoryStatements.insertDeletions(
                    from: deletedRows.table, orderedBy: deletedRows.order, firstKey: key, transaction: number,
                    entityNumber: Self.changeEntityNumber, changeType: NSPersistentHistoryChangeType.delete.rawValue
                ))
            key += Int64(listed)
        }
        var values: [SQLScalar] = []
        values.reserveCapacity(6 + tombstoneColumnCount)
        for change in changes {
            values.removeAll(keepingCapacity: true)
            values.append(.integer(key))
            values.append(.integer(Int64(change.type.rawValue)))
            values.append(.integer(Int64(change.entity.facts.entityNumber)))
            values.append(.integer(change.primaryKey))
            values.append(.integer(number))
            if change.type == .update, let positions = positionsBySlot[change.entity.facts.entityNumber] {
                values.append(Self.columnBits(change.updatedSlots.map { positions[$0] }).sqlScalar)
            } else {
                values.append(.null)
            }
            let kept =
                change.type == .delete
                ? tombstones[DeletedRow(entityNumber: change.entity.facts.entityNumber, primaryKey: change.primaryKey)]
                    ?? [] : []
            for index in 0..<tombstoneColumnCount {
                values.append(index < kept.count ? SQLHistoryTombstone.stored(kept[index], dialect) : .null)
            }
            try db.run(changeInsert, values)
            key += 1
        }
        return number
    }

    /// The first of `count` new keys for one of the history tables.
    private func reserveKeys(_ db: some SQLDatabase, entity: Int, count: Int) throws -> Int64 {
        if dialect == .postgreSQL {
            // One statement: it waits for the row another save holds, then reads what that one committed.
            guard let last = try db.integer(SQLPrimaryKeyStatements.advanceCounter(of: entity, by: count)) else {
                throw CoreDataError.make(
                    NSPersistentStoreSaveError, "The store's persistent history has no key counter \(entity)")
            }
            return last - Int64(count) + 1
        }
        let current = try db.integer(SQLPrimaryKeyStatements.counter(of: entity)) ?? 0
        guard current <= Int64.max - Int64(count) else {
            throw CoreDataError.make(
                NSPersistentStoreSaveError, "The store's persistent history has used up its keys (Z_MAX is \(current))")
        }
        try db.execute(SQLPrimaryKeyStatements.setCounter(of: entity, to: current + Int64(count)))
        return current + 1
    }

    /// The key of `string` in `ATRANSACTIONSTRING`, added if new.
    private func stringKey(_ db: some SQLDatabase, _ string: String?) throws -> Int64? {
        guard let string else { return nil }
        if let key = try db.integer(SQLHistoryStatements.stringKey(string)) { return key }
        let key = try reserveKeys(db, entity: Self.stringEntityNumber, count: 1)
        try db.execute(SQLHistoryStatements.insertString(string, key: key, entityNumber: Self.stringEntityNumber))
        return key
    }

    /// One bit per changed property (its position in history's order), lowest position
    /// in the lowest bit of the first byte.
    package static func columnBits(_ slots: [Int]) -> Data {
        var bytes = [UInt8](repeating: 0, count: (slots.max() ?? 0) / 8 + 1)
        for slot in slots { bytes[slot / 8] |= 1 << UInt8(slot % 8) }
        return Data(bytes)
    }

    /// The positions whose bits are set.
    package static func slots(inColumnBits data: Data) -> [Int] {
        data.enumerated().flatMap { byte, bits in (0..<8).filter { bits & (1 << UInt8($0)) != 0 }.map { byte * 8 + $0 }
        }
    }

    // MARK: Reading

    /// The number of the store's last transaction (0 when it has none yet).
    package static func lastTransactionNumber(_ db: some SQLDatabase) throws -> Int64 {
        guard try exists(db) else { return 0 }
        return try db.integer(SQLHistoryStatements.lastTransactionNumber) ?? 0
    }

    /// The number up to which history was deleted: history after a token below it is lost.
    package static func deletedThrough(_ db: some SQLDatabase) throws -> Int64 {
        if let first = try db.integer(SQLHistoryStatements.firstTransactionNumber) { return first - 1 }
        // No transaction left: all that were ever numbered are gone.
        return try db.integer(SQLPrimaryKeyStatements.counter(of: transactionEntityNumber)) ?? 0
    }

    /// The store's last transaction number and the number through which history was deleted.
    package static func bounds(_ db: some SQLDatabase) throws -> (last: Int64, deletedThrough: Int64) {
        guard try exists(db) else { return (0, 0) }
        return (try lastTransactionNumber(db), try deletedThrough(db))
    }

    /// The transactions in `range`, oldest first, with their changes when asked for.
    /// Changes to entities the model does not know are left out.
    package func transactions(
        _ db: some SQLDatabase, in range: StoreHistoryRange, withChanges: Bool, store: NSPersistentStore,
        decode: (SQLScalar, NSAttributeDescription) throws -> Any?
    ) throws -> [NSPersistentHistoryTransaction] {
        // A read-only store that never tracked history has no tables to read.
        guard try Self.exists(db) else { return [] }
        var byNumber: [Int64: NSPersistentHistoryTransaction] = [:]
        var transactions: [NSPersistentHistoryTransaction] = []
        try db.forEachRow(SQLHistoryStatements.transactions(in: range)) { row in
            guard let number = row[0].exactInteger else { return }
            let transaction = NSPersistentHistoryTransaction(
                timestamp: Date(timeIntervalSinceReferenceDate: Self.real(row[1]) ?? 0),
                transactionNumber: number, storeID: store.identifier,
                bundleID: Self.text(row[3]) ?? "", processID: Self.text(row[5]) ?? "",
                contextName: Self.text(row[4]), author: Self.text(row[2])
            )
            byNumber[number] = transaction
            transactions.append(transaction)
        }
        guard withChanges, !transactions.isEmpty else { return transactions }
        for transaction in transactions { transaction.changes = [] }
        try db.forEachRow(SQLHistoryStatements.changes(in: range)) { row in
            guard let change = try change(from: row, store: store, decode: decode),
                let number = row["ZTRANSACTIONID"].exactInteger, let transaction = byNumber[number]
            else { return }
            change.transaction = transaction
            transaction.changes!.append(change)
        }
        return transactions
    }

    private func change(
        from row: any SQLDatabaseRow, store: NSPersistentStore,
        decode: (SQLScalar, NSAttributeDescription) throws -> Any?
    ) throws -> NSPersistentHistoryChange? {
        guard let changeID = row["Z_PK"].exactInteger,
            let number = row["ZENTITY"].exactInteger.map(Int.init(truncatingIfNeeded:)),
            let entity = schema.entitiesByNumber[number],
            let key = row["ZENTITYPK"].exactInteger,
            let rawType = row["ZCHANGETYPE"].exactInteger.map(Int.init(truncatingIfNeeded:)),
            let type = NSPersistentHistoryChangeType(rawValue: rawType)
        else { return nil }
        var updated: Set<NSPropertyDescription>?
        if type == .update {
            let properties = orders[number] ?? entity.facts.slots
            var bits: Data?
            if case .blob(let data) = row["ZCOLUMNS"] { bits = data }
            // Only the bytes that can name a property: a damaged blob could be huge.
            let slots = bits.map { Self.slots(inColumnBits: $0.prefix((properties.count + 7) / 8)) } ?? []
            updated = Set(slots.filter { $0 < properties.count }.map { properties[$0] })
        }
        var tombstone: [AnyHashable: Any]?
        if type == .delete, let attributes = tombstoneAttributes[number] {
            var values: [AnyHashable: Any] = [:]
            for (index, attribute) in attributes.enumerated() {
                let stored = SQLHistoryTombstone.value(row[SQLHistoryStatements.tombstoneColumn(index)], dialect)
                if !stored.isNull, let value = try decode(stored, attribute) { values[attribute.name] = value }
            }
            tombstone = values
        }
        let id = NSManagedObjectID(entity: entity, store: store, primaryKey: key)
        return NSPersistentHistoryChange(
            changeID: changeID, changedObjectID: id, changeType: type, tombstone: tombstone, updatedProperties: updated)
    }

    /// A number column's value (an integer where another program stored one).
    private static func real(_ value: SQLScalar) -> Double? {
        switch value {
        case .real(let number): number
        case .integer(let number): Double(number)
        default: nil
        }
    }

    /// A text column's value; `nil` for NULL or a value of another kind.
    private static func text(_ value: SQLScalar) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }

    // MARK: Deleting

    /// Deletes the transactions in `range` with their changes; returns how many transactions went.
    package static func delete(_ db: some SQLDatabase, in range: StoreHistoryRange) throws -> Int {
        guard try exists(db) else { return 0 }
        // In PostgreSQL, waits for a save recording history: its transaction may name a string
        // no committed transaction names yet, which this would otherwise delete.
        if db.dialect == .postgreSQL {
            try db.execute(
                SQLPrimaryKeyStatements.advanceCounter(of: transactionEntityNumber, by: 0, returning: false))
        }
        try db.execute(SQLHistoryStatements.deleteChanges(in: range))
        let deleted = try db.execute(SQLHistoryStatements.deleteTransactions(in: range))
        try db.execute(SQLHistoryStatements.deleteUnusedStrings)
        return deleted
    }
}
