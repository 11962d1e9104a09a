import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// Decoding libpq's rows with the layout. PostgreSQL's columns are typed (`BIGINT`,
/// `DOUBLE PRECISION`, `TEXT`, `BYTEA`), so each field reads the one form its column holds.
extension SQLRowLayout {
    /// Whether `result`, in the binary format, has every column in the type its field reads:
    /// `BIGINT` for keys, integers, Booleans and to-one keys, `DOUBLE PRECISION` for reals and
    /// dates, `TEXT` for strings, and one of the store's four types for the rest. Only then
    /// are binary values what the text format would give; otherwise the text format is read.
    func readsInBinary(_ result: PostgreSQLResult, offset: Int) -> Bool {
        guard result.isBinaryFormat else { return true }
        let storeTypes: Set<UInt32> = [
            PostgreSQLType.bigint, PostgreSQLType.doublePrecision, PostgreSQLType.text, PostgreSQLType.bytea,
        ]
        guard (0..<result.columnCount).allSatisfy({ storeTypes.contains(result.columnType($0)) }) else { return false }
        func isType(_ type: UInt32, _ column: Int32) -> Bool { result.columnType(Int(column) + offset) == type }
        guard (0..<3).allSatisfy({ isType(PostgreSQLType.bigint, $0) }) else { return false }
        for plan in plans.compactMap({ $0 }) {
            for field in plan.fields {
                switch field.decoder {
                case .integer16, .integer32, .integer64, .boolean:
                    guard isType(PostgreSQLType.bigint, field.column) else { return false }
                case .double, .float, .date:
                    guard isType(PostgreSQLType.doublePrecision, field.column) else { return false }
                case .string:
                    guard isType(PostgreSQLType.text, field.column) else { return false }
                case .toOne(_, let entityColumn):
                    guard isType(PostgreSQLType.bigint, field.column),
                        entityColumn.map({ isType(PostgreSQLType.bigint, $0) }) ?? true
                    else { return false }
                case .general, .external:
                    break
                }
            }
        }
        return true
    }

    /// Row `row` of `result` (columns from `offset` on), or `nil` for a row whose key or
    /// entity number is missing or names no entity of the model.
    func decode(
        _ result: PostgreSQLResult, row: Int, offset: Int = 0, schema: SQLSchema, persistentStore: NSPersistentStore,
        timestamp: TimeInterval
    ) throws -> StoreRow? {
        guard let key = result.integer(row, offset), let number = result.integer(row, offset + 1),
            plans.indices.contains(Int(truncatingIfNeeded: number)),
            let plan = plans[Int(truncatingIfNeeded: number)]
        else { return nil }
        let version = result.integer(row, offset + 2) ?? 0
        var values = SlotValues(layout: plan.slotLayout)
        let coordinator = persistentStore.persistentStoreCoordinator
        for field in plan.fields {
            let column = Int(field.column) + offset
            if result.isNull(row, column) { continue }
            switch field.decoder {
            case .integer16:
                if let value = result.integer(row, column) {
                    values.setNative(Int16(truncatingIfNeeded: value), at: field.slot)
                }
            case .integer32:
                if let value = result.integer(row, column) {
                    values.setNative(Int32(truncatingIfNeeded: value), at: field.slot)
                }
            case .integer64:
                if let value = result.integer(row, column) { values.setNative(value, at: field.slot) }
            case .boolean:
                if let value = result.integer(row, column) { values.setNative(value != 0, at: field.slot) }
            case .double:
                if let value = result.real(row, column) { values.setNative(value, at: field.slot) }
            case .float:
                if let value = result.real(row, column) { values.setNative(Float(value), at: field.slot) }
            case .date:
                if let value = result.real(row, column) {
                    values.setNative(Date(timeIntervalSinceReferenceDate: value), at: field.slot)
                }
            case .string:
                if let value = result.text(row, column) { values.setNative(value, at: field.slot) }
            case let .toOne(destination, entityColumn):
                guard let destinationKey = result.integer(row, column) else { continue }
                let exact = entityColumn.flatMap { result.integer(row, Int($0) + offset) }.flatMap {
                    schema.entitiesByNumber[Int(truncatingIfNeeded: $0)]
                }
                values[field.slot] = NSManagedObjectID(
                    entity: exact ?? destination, store: persistentStore, primaryKey: destinationKey)
            case let .general(attribute), let .external(attribute):
                values[field.slot] = SQLValueCoding.value(
                    result.scalar(row, column), of: attribute, coordinator: coordinator)
            }
        }
        for composite in plan.composites {
            let value = composite.value(reading: { result.scalar(row, Int($0) + offset) }) {
                SQLValueCoding.value($0, of: $1, coordinator: coordinator)
            }
            if let value { values[composite.slot] = value }
        }
        return StoreRow.make(
            entity: plan.entity, store: persistentStore, primaryKey: key, version: version, values: consume values,
            timestamp: timestamp)
    }
}
