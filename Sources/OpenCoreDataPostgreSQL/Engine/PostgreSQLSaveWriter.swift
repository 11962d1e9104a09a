import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// Writes one `StoreSaveRequest` inside an open transaction, in the order `SQLSaveWriting`
/// gives: deletes, inserts, updates (only changed columns, with the `Z_OPT` optimistic-lock
/// check), then relationship memberships, each statement sent with its values through libpq.
///
/// Consecutive inserts into one table with the same columns go as one multi-row `INSERT`
/// (up to ``rowsPerInsert`` rows): a round trip and a statement per row would cost more than
/// the rows themselves. Any other statement sends the pending rows first, and ``writeAll(_:)``
/// sends the last, so the statements still run in the order the save gives.
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
    /// Inserted rows not sent yet: their table, columns and values, row after row.
    private var pending: (table: String, columns: [String], values: [PostgreSQLValue], rows: Int)?

    init(connection: PostgreSQLConnection, schema: SQLSchema) {
        self.connection = connection
        self.schema = schema
    }

    /// Writes `request` and sends the rows still pending.
    func writeAll(_ request: StoreSaveRequest) throws {
        try write(request)
        try sendPendingInserts()
    }

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
        if let current = pending, current.table == table, current.columns == columns,
            current.rows < Self.rowsPerInsert, current.values.count + rowValues.count <= Self.parameterLimit
        {
            pending!.values += rowValues
            pending!.rows += 1
        } else {
            try sendPendingInserts()
            pending = (table, columns, rowValues, 1)
        }
    }

    /// Sends the pending rows as one `INSERT … VALUES (…), (…)`.
    private func sendPendingInserts() throws {
        guard let batch = pending else { return }
        pending = nil
        try connection.execute(
            PostgreSQLStatements.insertRows(into: batch.table, columns: batch.columns, count: batch.rows),
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
