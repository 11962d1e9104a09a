import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB
internal import GRDBSQLite

/// Writes one `StoreSaveRequest` inside an open transaction, in the order `SQLSaveWriting`
/// gives: deletes, inserts, updates (only changed columns, with the `Z_OPT` optimistic-lock
/// check), then relationship memberships (join rows, ordering columns). Rows and
/// statements are bound with SQLite's C API.
final class SQLiteSaveWriter: SQLSaveWriting {
    private let db: Database
    let schema: SQLSchema
    private let external: ExternalBinaryStorage
    private(set) var writtenFiles: [URL] = []
    private(set) var obsoleteFiles: [URL] = []

    init(db: Database, schema: SQLSchema, external: ExternalBinaryStorage) {
        self.db = db
        self.schema = schema
        self.external = external
    }

    func deleteRow(_ row: StoreSaveRequest.RowReference, expectedVersion: Int64) throws {
        let table = try schema.table(for: row.entity)
        try collectExternalFiles(entity: row.entity, key: row.primaryKey, slots: nil)
        let delete = try statement(.deleteRow, of: row.entity.facts.root) {
            SQLSaveStatements.deleteRow(from: table.name)
        }
        try run(delete, row.primaryKey, expectedVersion, nil)
        if changedRows == 0 { throw conflict(row.entity, row.primaryKey, expectedVersion) }
    }

    /// Rows the last statement changed: SQLite's own count (GRDB's `changesCount` checks
    /// the calling queue first, which costs more than the call; this runs inside its write).
    private var changedRows: Int32 { sqlite3_changes(db.sqliteConnection) }

    /// A prepared row statement and how to bind a row's slots to it.
    private struct RowPlan {
        let statement: Statement
        /// The columns in statement order.
        let columns: [Column]
    }

    private struct Column {
        let slot: Int
        let facts: SlotFacts
        /// Whether a to-one also fills its destination-entity column.
        let hasEntityColumn: Bool
        /// A composite attribute's columns, one per leaf element; `nil` for other slots.
        var composite: [SQLSchema.CompositeColumn]? = nil
    }

    /// Plans by entity, kind and written slots: rows of one entity mostly write the
    /// same columns, so the text is built and the statement looked up once per save.
    private var plans: [PlanShape: RowPlan] = [:]

    /// The plan of the previous row: a save writes runs of rows of one shape, and
    /// comparing with it costs less than hashing the shape into `plans`.
    private var lastPlan: (shape: PlanShape, plan: RowPlan)?

    private struct PlanShape: Hashable {
        let entity: ObjectIdentifier
        let isInsert: Bool
        /// Empty for inserts (which write every row column of the entity).
        let slots: [Int]
    }

    private func plan(_ row: StoreSaveRequest.RowWrite, insert: Bool) throws -> RowPlan {
        let shape = PlanShape(entity: ObjectIdentifier(row.entity), isInsert: insert, slots: insert ? [] : row.slots)
        if let last = lastPlan, last.shape == shape { return last.plan }
        if let known = plans[shape] {
            lastPlan = (shape, known)
            return known
        }
        let table = try schema.table(for: row.entity)
        let facts = row.entity.facts
        var names: [String] = []
        var columns: [Column] = []
        for slot in row.slots {
            let property = facts.slots[slot]
            if let composite = schema.compositeColumns(for: property) {
                names += composite.map(\.name)
                columns.append(
                    Column(slot: slot, facts: facts.slotFacts[slot], hasEntityColumn: false, composite: composite))
                continue
            }
            guard let column = schema.column(for: property) else { continue }
            names.append(column)
            var hasEntityColumn = false
            if let relationship = property as? NSRelationshipDescription,
                let entityColumn = schema.entityColumn(for: relationship)
            {
                names.append(entityColumn)
                hasEntityColumn = true
            }
            columns.append(Column(slot: slot, facts: facts.slotFacts[slot], hasEntityColumn: hasEntityColumn))
        }
        let template =
            insert
            ? SQLSaveStatements.insertRow(into: table.name, columns: names)
            : SQLSaveStatements.updateRow(in: table.name, columns: names)
        let plan = RowPlan(statement: try db.cachedStatement(sql: template.sql), columns: columns)
        plans[shape] = plan
        lastPlan = (shape, plan)
        return plan
    }

    func insert(_ row: StoreSaveRequest.RowWrite) throws {
        let plan = try plan(row, insert: true)
        let handle = plan.statement.sqliteStatement
        sqlite3_reset(handle)
        try check(sqlite3_bind_int64(handle, 1, row.primaryKey), plan.statement)
        try check(sqlite3_bind_int64(handle, 2, Int64(row.entity.facts.entityNumber)), plan.statement)
        try check(sqlite3_bind_int64(handle, 3, 1), plan.statement)
        _ = try bindColumns(row, plan, from: 4)
        try step(plan.statement)
    }

    func update(_ row: StoreSaveRequest.RowWrite) throws {
        try collectExternalFiles(entity: row.entity, key: row.primaryKey, slots: row.slots)
        let plan = try plan(row, insert: false)
        let handle = plan.statement.sqliteStatement
        sqlite3_reset(handle)
        let next = try bindColumns(row, plan, from: 1)
        try check(sqlite3_bind_int64(handle, next, row.primaryKey), plan.statement)
        try check(sqlite3_bind_int64(handle, next + 1, row.expectedVersion), plan.statement)
        try step(plan.statement)
        if changedRows == 0 { throw conflict(row.entity, row.primaryKey, row.expectedVersion) }
    }

    /// Binds the row's values to the plan's columns from parameter `first` on; returns the next parameter.
    private func bindColumns(_ row: StoreSaveRequest.RowWrite, _ plan: RowPlan, from first: Int32) throws -> Int32 {
        let handle = plan.statement.sqliteStatement
        var index = first
        for column in plan.columns {
            let facts = column.facts
            if facts.kind == .toOne {
                let reference = row.values[column.slot] as? StoreSaveRequest.RowReference
                try check(
                    reference.map { sqlite3_bind_int64(handle, index, $0.primaryKey) }
                        ?? sqlite3_bind_null(handle, index), plan.statement)
                index += 1
                if column.hasEntityColumn {
                    let number = reference.map { Int64($0.entity.facts.entityNumber) }
                    try check(
                        number.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index),
                        plan.statement)
                    index += 1
                }
            } else if let composite = column.composite {
                // Each leaf element's value from the dictionary (nested ones by path), NULL when absent.
                let dictionary = row.values[column.slot] as? [String: Any]
                for leaf in composite {
                    let value = dictionary.flatMap { CompositeValue.value(at: leaf.path, in: $0) }
                    let encoded = try SQLValueCoding.scalar(
                        value, type: leaf.element.attributeType, transformerName: leaf.element.valueTransformerName)
                    try check(DirectBinding.bind(encoded, handle, index), plan.statement)
                    index += 1
                }
            } else {
                try check(try bindAttribute(row.values, column.slot, facts, handle, index), plan.statement)
                index += 1
            }
        }
        return index
    }

    /// Binds one attribute value. The common types bind straight from their stored
    /// form; the rest (external storage, transformables, UUIDs…) go through the
    /// shared column encoding.
    private func bindAttribute(
        _ values: SlotValues, _ slot: Int, _ facts: SlotFacts, _ handle: OpaquePointer?, _ index: Int32
    ) throws -> Int32 {
        // A typed field binds without unboxing; `native` answers `nil` only for a value
        // kept in another form, which takes the general encoding below.
        if !facts.allowsExternalStorage {
            func bind<V>(_ read: V??, _ body: (V) -> Int32) -> Int32? {
                read.map { $0.map(body) ?? sqlite3_bind_null(handle, index) }
            }
            let bound: Int32?
            switch facts.attributeType {
            case .integer64AttributeType:
                bound = bind(values.native(slot, as: Int64.self)) { sqlite3_bind_int64(handle, index, $0) }
            case .integer32AttributeType:
                bound = bind(values.native(slot, as: Int32.self)) { sqlite3_bind_int64(handle, index, Int64($0)) }
            case .integer16AttributeType:
                bound = bind(values.native(slot, as: Int16.self)) { sqlite3_bind_int64(handle, index, Int64($0)) }
            case .booleanAttributeType:
                bound = bind(values.native(slot, as: Bool.self)) { sqlite3_bind_int64(handle, index, $0 ? 1 : 0) }
            case .doubleAttributeType:
                bound = bind(values.native(slot, as: Double.self)) { sqlite3_bind_double(handle, index, $0) }
            case .floatAttributeType:
                bound = bind(values.native(slot, as: Float.self)) { sqlite3_bind_double(handle, index, Double($0)) }
            case .dateAttributeType:
                bound = bind(values.native(slot, as: Date.self)) {
                    sqlite3_bind_double(handle, index, $0.timeIntervalSinceReferenceDate)
                }
            case .stringAttributeType:
                bound = bind(values.native(slot, as: String.self)) { DirectBinding.bindText($0, handle, index) }
            default: bound = nil
            }
            if let bound { return bound }
        }
        guard let value = values[slot] else { return sqlite3_bind_null(handle, index) }
        guard let attribute = facts.property as? NSAttributeDescription else { return sqlite3_bind_null(handle, index) }
        let (column, file) = try external.columnValue(value, for: attribute)
        if let file { writtenFiles.append(file) }
        return DirectBinding.bind(column, handle, index)
    }

    private func check(_ code: Int32, _ statement: Statement) throws {
        try DirectBinding.check(code, statement, db)
    }

    /// The optimistic-locking failure: the row changed or vanished since it was read.
    /// Notes the external files of columns about to be overwritten or deleted, to remove after commit.
    private func collectExternalFiles(entity: NSEntityDescription, key: Int64, slots: [Int]?) throws {
        let facts = entity.facts
        guard facts.hasExternalStorage else { return }
        let table = try schema.table(for: entity)
        let candidates = (slots ?? Array(facts.slots.indices)).filter { facts.slotFacts[$0].allowsExternalStorage }
        let columns = candidates.compactMap { schema.column(for: facts.slots[$0]) }
        guard !columns.isEmpty else { return }
        guard
            let row = try Row.fetchOne(
                db, SQLExternalDataStatements.values(columns, table: table.name).binding([key.sqlScalar]))
        else { return }
        for index in columns.indices {
            if let data = Data.fromDatabaseValue(row[index]), let file = external.fileURL(forColumnValue: data) {
                obsoleteFiles.append(file)
            }
        }
    }

    // MARK: Statements by row

    private struct StatementKey: Hashable {
        let kind: SQLSaveStatementKind
        let owner: ObjectIdentifier
    }

    /// Statements by what they write and for which entity tree or relationship: found
    /// per row by two words instead of by hashing their text, as GRDB's cache would.
    private var statements: [StatementKey: Statement] = [:]

    /// The prepared statement of `kind` for `owner` (an entity tree's root or a
    /// relationship), its text from `template` the first time.
    func statement(
        _ kind: SQLSaveStatementKind, of owner: AnyObject, _ template: () throws -> SQLTemplate
    ) throws -> Statement {
        let key = StatementKey(kind: kind, owner: ObjectIdentifier(owner))
        if let known = statements[key] { return known }
        let statement = try db.cachedStatement(sql: try template().sql)
        statements[key] = statement
        return statement
    }

    /// Runs `statement` with its placeholders bound to keys and numbers, in order.
    ///
    /// Values are bound with SQLite's C API: a save runs one statement per row, and
    /// building GRDB `StatementArguments` for each cost more than the SQLite work.
    func run(_ statement: Statement, _ first: Int64, _ second: Int64?, _ third: Int64?) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        try check(sqlite3_bind_int64(handle, 1, first), statement)
        if let second { try check(sqlite3_bind_int64(handle, 2, second), statement) }
        if let third { try check(sqlite3_bind_int64(handle, 3, third), statement) }
        try step(statement)
    }

    /// Runs a bound statement to completion and resets it.
    private func step(_ statement: Statement) throws {
        try DirectBinding.step(statement, db)
    }
}
