import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB
internal import GRDBSQLite

/// Decoding SQLite's rows with the layout: SQLite's C API reads each column as the
/// layout's field needs it, checking its storage class (SQLite is dynamically typed).
extension SQLRowLayout {
    /// Decodes the statement's current row (columns from `offset` on), or `nil` for a row
    /// whose key or entity number is not an integer (SQLite would convert text or a real,
    /// '12abc' to 12) or names no entity of the model: skipped, not trusted, as every other
    /// reader of key columns skips it.
    func decode(
        _ statement: SQLiteStatement, offset: Int32 = 0, store: SQLiteStore, persistentStore: NSPersistentStore,
        timestamp: TimeInterval
    ) throws -> StoreRow? {
        guard sqlite3_column_type(statement, offset) == SQLITE_INTEGER,
            sqlite3_column_type(statement, offset + 1) == SQLITE_INTEGER
        else { return nil }
        let number = Int(sqlite3_column_int64(statement, offset + 1))
        guard plans.indices.contains(number), let plan = plans[number] else { return nil }
        let key = sqlite3_column_int64(statement, offset)
        let version = sqlite3_column_int64(statement, offset + 2)
        var values = SlotValues(layout: plan.slotLayout)
        // Values of another storage class than the attribute's, stored once the typed ones are in.
        var converted: [(slot: Int, value: Any?)] = []
        try values.fillingFreshSlots { slots in
            for field in plan.fields {
                let column = field.column + offset
                let type = sqlite3_column_type(statement, column)
                if type == SQLITE_NULL { continue }
                switch field.decoder {
                case .integer16 where type == SQLITE_INTEGER:
                    slots.set(Int16(truncatingIfNeeded: sqlite3_column_int64(statement, column)), at: field.slot)
                case .integer32 where type == SQLITE_INTEGER:
                    slots.set(Int32(truncatingIfNeeded: sqlite3_column_int64(statement, column)), at: field.slot)
                case .integer64 where type == SQLITE_INTEGER:
                    slots.set(sqlite3_column_int64(statement, column), at: field.slot)
                case .boolean where type == SQLITE_INTEGER:
                    slots.set(sqlite3_column_int64(statement, column) != 0, at: field.slot)
                case .double where type == SQLITE_FLOAT || type == SQLITE_INTEGER:
                    slots.set(sqlite3_column_double(statement, column), at: field.slot)
                case .float where type == SQLITE_FLOAT || type == SQLITE_INTEGER:
                    slots.set(Float(sqlite3_column_double(statement, column)), at: field.slot)
                case .date where type == SQLITE_FLOAT || type == SQLITE_INTEGER:
                    slots.set(
                        Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, column)), at: field.slot)
                case .string where type == SQLITE_TEXT:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    slots.set(
                        sqlite3_column_text(statement, column).map {
                            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                        } ?? "", at: field.slot)
                case let .toOne(destination, entityColumn) where type == SQLITE_INTEGER:
                    let exact = entityColumn.flatMap {
                        sqlite3_column_type(statement, $0 + offset) == SQLITE_INTEGER
                            ? store.schema.entitiesByNumber[Int(sqlite3_column_int64(statement, $0 + offset))] : nil
                    }
                    slots.set(
                        boxed: NSManagedObjectID(
                            entity: exact ?? destination, store: persistentStore,
                            primaryKey: sqlite3_column_int64(statement, column)), at: field.slot)
                case .toOne:
                    // A foreign key that is not an integer names no row: the object has no
                    // destination, as the relationship readers skip such a key.
                    continue
                case let .external(attribute), let .general(attribute):
                    if let value = try store.decodeAttribute(
                        SQLScalar(sqliteStatement: statement, index: column), attribute)
                    {
                        slots.set(boxed: value, at: field.slot)
                    }
                default:
                    // A value of another storage class than the attribute's (SQLite is dynamically typed).
                    let attribute = plan.entity.facts.slots[field.slot] as! NSAttributeDescription
                    converted.append(
                        (
                            field.slot,
                            try store.decodeAttribute(SQLScalar(sqliteStatement: statement, index: column), attribute)
                        ))
                }
            }
        }
        for (slot, value) in converted { values[slot] = value }
        for composite in plan.composites {
            if let value = try composite.value(
                reading: { SQLScalar(sqliteStatement: statement, index: $0 + offset) }, decode: store.decodeAttribute)
            {
                values[composite.slot] = value
            }
        }
        return StoreRow.make(
            entity: plan.entity, store: persistentStore, primaryKey: key, version: version, values: consume values,
            timestamp: timestamp)
    }
}
