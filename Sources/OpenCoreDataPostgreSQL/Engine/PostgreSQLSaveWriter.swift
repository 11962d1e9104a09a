import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// Writes one `StoreSaveRequest` inside an open transaction, in the order `SQLSaveWriting`
/// gives: deletes, inserts, updates (only changed columns, with the `Z_OPT` optimistic-lock
/// check), then relationship memberships, each statement sent with its values through libpq.
///
/// A save's inserts into one table with the same columns go as multi-row `INSERT`s (up to
/// ``rowsPerInsert`` rows): a round trip and a statement per row would cost more than the rows
/// themselves. Rows are held per table while the save inserts (its inserts come together, and
/// the schema has no foreign keys, so tables' rows need no order among them); any other
/// statement sends them first, and ``finish()`` sends the last.
///
/// Under READ COMMITTED an `UPDATE … WHERE Z_OPT = ?` re-reads a row another
/// transaction committed meanwhile, so a version that changed after the save's checks
/// still changes no row here, and the save fails as a conflict instead of overwriting.
final class PostgreSQLSaveWriter: SQLSaveWriting {
    let connection: PostgreSQLConnection
    let schema: SQLSchema
    /// Rows per multi-row `INSERT`; fewer when their values would pass PostgreSQL's limit of
    /// 65,535 parameters a statement.
    static let rowsPerInsert = 1_000
    private static let parameterLimit = 65_535

    /// Inserted rows not sent yet, of one table and column list, row after row.
    private struct PendingRows {
        let table: String
        let columns: [String]
        var values: [PostgreSQLValue]
        var count: Int
    }
    /// In the order of each table's first row.
    private var pending: [PendingRows] = []

    init(connection: PostgreSQLConnection, schema: SQLSchema) {
        self.connection = connection
        self.schema = schema
    }

    /// Sends the rows still held back.
    func finish() throws { try sendPendingInserts() }

    func deleteRow(_ row: StoreSaveRequest.RowReference, expectedVersion: Int64) throws {
        try sendPendingInserts()
        let table = try schema.table(for: row.entity)
        let deleted = try connection.run(
            SQLSaveStatements.deleteRow(from: table.name), [.integer(row.primaryKey), .integer(expectedVersion)])
        if deleted.affectedRowCount == 0 { throw conflict(row.entity, row.primaryKey, expectedVersion) }
    }

    func insert(_ row: StoreSaveRequest.RowWrite) throws {
        let (columns, values) = try self.columns(of: row)
        let table = try schema.table(for: row.entity).name
        let rowValues =
            [.integer(row.primaryKey), .integer(Int64(row.entity.facts.entityNumber)), .integer(1)]
            + values.map(PostgreSQLValue.init)
        guard let index = pending.firstIndex(where: { $0.table == table && $0.columns == columns }) else {
            pending.append(PendingRows(table: table, columns: columns, values: rowValues, count: 1))
            return
        }
        if pending[index].count == Self.rowsPerInsert
            || pending[index].values.count + rowValues.count > Self.parameterLimit
        {
            try send(pending[index])
            pending[index].values = rowValues
            pending[index].count = 1
        } else {
            pending[index].values += rowValues
            pending[index].count += 1
        }
    }

    /// Sends every table's held rows.
    private func sendPendingInserts() throws {
        let batches = pending
        pending = []
        for batch in batches { try send(batch) }
    }

    /// Sends rows as one `INSERT … VALUES (…), (…)`.
    private func send(_ batch: PendingRows) throws {
        try connection.execute(
            PostgreSQLStatements.insertRows(into: batch.table, columns: batch.columns, count: batch.count),
            batch.values)
    }

    func update(_ row: StoreSaveRequest.RowWrite) throws {
        try sendPendingInserts()
        let (columns, values) = try self.columns(of: row)
        let table = try schema.table(for: row.entity)
        let updated = try connection.run(
            SQLSaveStatements.updateRow(in: table.name, columns: columns),
            values + [.integer(row.primaryKey), .integer(row.expectedVersion)])
        if updated.affectedRowCount == 0 { throw conflict(row.entity, row.primaryKey, row.expectedVersion) }
    }

    /// The columns the row's slots write, and their values: a to-one's key (and its
    /// destination's entity number where the schema keeps one), each leaf of a composite.
    private func columns(of row: StoreSaveRequest.RowWrite) throws -> (columns: [String], values: [SQLScalar]) {
        let facts = row.entity.facts
        var columns: [String] = []
        var values: [SQLScalar] = []
        for slot in row.slots {
            let property = facts.slots[slot]
            if let composite = schema.compositeColumns(for: property) {
                let dictionary = row.values[slot] as? [String: Any]
                for leaf in composite {
                    columns.append(leaf.name)
                    values.append(
                        try SQLValueCoding.scalar(
                            dictionary.flatMap { CompositeValue.value(at: leaf.path, in: $0) },
                            type: leaf.element.attributeType, transformerName: leaf.element.valueTransformerName))
                }
                continue
            }
            guard let column = schema.column(for: property) else { continue }
            columns.append(column)
            if let relationship = property as? NSRelationshipDescription {
                let reference = row.values[slot] as? StoreSaveRequest.RowReference
                values.append(reference.map { .integer($0.primaryKey) } ?? .null)
                if let entityColumn = schema.entityColumn(for: relationship) {
                    columns.append(entityColumn)
                    values.append(reference.map { .integer(Int64($0.entity.facts.entityNumber)) } ?? .null)
                }
            } else if let attribute = property as? NSAttributeDescription {
                values.append(
                    try SQLValueCoding.scalar(
                        row.values[slot], type: attribute.attributeType,
                        transformerName: attribute.valueTransformerName))
            }
        }
        return (columns, values)
    }

    /// libpq sends each statement's text; there is nothing to prepare.
    func statement(
        _ kind: SQLSaveStatementKind, of owner: AnyObject, _ template: () throws -> SQLTemplate
    ) throws -> SQLTemplate {
        try template()
    }

    func run(_ statement: SQLTemplate, _ first: Int64, _ second: Int64?, _ third: Int64?) throws {
        try sendPendingInserts()
        try connection.run(statement, [first, second, third].compactMap { $0 }.map(SQLScalar.integer))
    }
}
