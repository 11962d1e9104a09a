import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB
internal import GRDBSQLite

/// How the columns of a row query feed the slots of each entity's snapshot.
///
/// Built once per set of entities and reused by every fetch and fault of that set:
/// the SELECT list, and per entity the column each stored slot reads with a decoder
/// chosen from the attribute type, so decoding a row is a loop over plain fields.
final class SQLiteRowLayout {
    /// How one column becomes a slot value.
    enum Decoder {
        case integer16, integer32, integer64, boolean, double, float, date, string
        /// Through `SQLValueCoding` (decimals, data, UUIDs, URLs, transformables, …).
        case general(NSAttributeDescription)
        /// A value that may live in an external file.
        case external(NSAttributeDescription)
        /// A to-one's destination key; `entityColumn` holds its entity number when the destination has subentities.
        case toOne(NSEntityDescription, entityColumn: Int32?)
    }

    struct Field {
        let slot: Int
        let column: Int32
        let decoder: Decoder
    }

    /// A composite attribute: its columns (one per leaf element), assembled into a dictionary.
    struct CompositeField {
        let slot: Int
        let columns: [(index: Int32, column: SQLSchema.CompositeColumn)]
        /// Whether all-NULL columns read as `nil` (an optional composite) rather than `[:]`.
        let isOptional: Bool
    }

    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, …`
    let selectList: String
    /// How many columns the SELECT list has.
    let columnCount: Int32
    /// How one entity's rows decode: the entity, and its fields.
    typealias Plan = (entity: NSEntityDescription, fields: [Field], composites: [CompositeField])
    /// Indexed by entity number (small and dense, from 1): an array index per row where
    /// a dictionary would hash.
    let plans: [Plan?]

    init(entities: [NSEntityDescription], schema: SQLSchema) {
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var indexByColumn: [String: Int32] = [:]
        func index(of column: String) -> Int32 {
            if let known = indexByColumn[column] { return known }
            let index = Int32(columns.count)
            columns.append(column)
            indexByColumn[column] = index
            return index
        }
        var plans: [Plan?] = []
        for entity in entities {
            var fields: [Field] = []
            var composites: [CompositeField] = []
            for property in entity.facts.slots where property.isStored {
                if let columns = schema.compositeColumns(for: property) {
                    composites.append(
                        CompositeField(
                            slot: property.slot, columns: columns.map { (index(of: $0.name), $0) },
                            isOptional: property.isOptional))
                    continue
                }
                guard let column = schema.column(for: property) else { continue }
                if let attribute = property as? NSAttributeDescription {
                    fields.append(
                        Field(
                            slot: property.slot, column: index(of: column),
                            decoder: Self.decoder(
                                for: attribute, entity.facts.slotLayout.representation(of: property.slot))))
                } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany,
                    let destination = relationship.destinationEntity
                {
                    let keyColumn = index(of: column)
                    let entityColumn = schema.entityColumn(for: relationship).map(index(of:))
                    fields.append(
                        Field(
                            slot: property.slot, column: keyColumn,
                            decoder: .toOne(destination, entityColumn: entityColumn)))
                }
            }
            let number = entity.facts.entityNumber
            guard number >= 0 else { continue }  // numbered from 1; never negative
            if number >= plans.count { plans += Array(repeating: nil, count: number - plans.count + 1) }
            plans[number] = (entity, fields, composites)
        }
        self.plans = plans
        self.selectList = SQLObjectReadStatements.selectList(columns)
        self.columnCount = Int32(columns.count)
    }

    /// The decoder producing exactly what the slot's field keeps (the layout decides which
    /// attribute types are unboxed; the decoder follows it).
    private static func decoder(for attribute: NSAttributeDescription, _ representation: SlotRepresentation) -> Decoder
    {
        if attribute.allowsExternalBinaryDataStorage { return .external(attribute) }
        switch representation {
        case .int16: return .integer16
        case .int32: return .integer32
        case .int64: return .integer64
        case .bool: return .boolean
        case .double: return .double
        case .float: return .float
        case .date: return .date
        case .string: return .string
        case .boxed: return .general(attribute)
        }
    }

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
        var values = SlotValues(layout: plan.entity.facts.slotLayout)
        for field in plan.fields {
            let column = field.column + offset
            let type = sqlite3_column_type(statement, column)
            if type == SQLITE_NULL { continue }
            switch field.decoder {
            case .integer16 where type == SQLITE_INTEGER:
                values.setNative(Int16(truncatingIfNeeded: sqlite3_column_int64(statement, column)), at: field.slot)
            case .integer32 where type == SQLITE_INTEGER:
                values.setNative(Int32(truncatingIfNeeded: sqlite3_column_int64(statement, column)), at: field.slot)
            case .integer64 where type == SQLITE_INTEGER:
                values.setNative(sqlite3_column_int64(statement, column), at: field.slot)
            case .boolean where type == SQLITE_INTEGER:
                values.setNative(sqlite3_column_int64(statement, column) != 0, at: field.slot)
            case .double where type == SQLITE_FLOAT || type == SQLITE_INTEGER:
                values.setNative(sqlite3_column_double(statement, column), at: field.slot)
            case .float where type == SQLITE_FLOAT || type == SQLITE_INTEGER:
                values.setNative(Float(sqlite3_column_double(statement, column)), at: field.slot)
            case .date where type == SQLITE_FLOAT || type == SQLITE_INTEGER:
                values.setNative(
                    Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, column)), at: field.slot)
            case .string where type == SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(statement, column))
                values.setNative(
                    sqlite3_column_text(statement, column).map {
                        String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                    } ?? "", at: field.slot)
            case let .toOne(destination, entityColumn) where type == SQLITE_INTEGER:
                let exact = entityColumn.flatMap {
                    sqlite3_column_type(statement, $0 + offset) == SQLITE_INTEGER
                        ? store.schema.entitiesByNumber[Int(sqlite3_column_int64(statement, $0 + offset))] : nil
                }
                values[field.slot] = NSManagedObjectID(
                    entity: exact ?? destination, store: persistentStore,
                    primaryKey: sqlite3_column_int64(statement, column))
            case .toOne:
                // A foreign key that is not an integer names no row: the object has no
                // destination, as the relationship readers skip such a key.
                continue
            case let .external(attribute):
                values[field.slot] = try store.decodeAttribute(
                    SQLScalar(sqliteStatement: statement, index: column), attribute)
            case let .general(attribute):
                values[field.slot] = try store.decodeAttribute(
                    SQLScalar(sqliteStatement: statement, index: column), attribute)
            default:
                // A value of another storage class than the attribute's (SQLite is dynamically typed).
                let attribute = plan.entity.facts.slots[field.slot] as! NSAttributeDescription
                values[field.slot] = try store.decodeAttribute(
                    SQLScalar(sqliteStatement: statement, index: column), attribute)
            }
        }
        for composite in plan.composites {
            var leaves: [(path: [String], value: Any)] = []
            for (index, column) in composite.columns {
                let value = SQLScalar(sqliteStatement: statement, index: index + offset)
                if value == .null { continue }
                if let decoded = try store.decodeAttribute(value, column.element) {
                    leaves.append((column.path, decoded))
                }
            }
            if leaves.isEmpty && composite.isOptional { continue }
            values[composite.slot] = CompositeValue.assemble(leaves)
        }
        return StoreRow.make(
            objectID: NSManagedObjectID(entity: plan.entity, store: persistentStore, primaryKey: key), version: version,
            values: consume values, timestamp: timestamp)
    }
}
