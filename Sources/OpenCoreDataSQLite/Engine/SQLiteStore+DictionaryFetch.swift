import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Dictionary fetches: one SELECT of the requested values and aggregates, decoded
/// as fetched objects' values are (dates, UUIDs, transformable and external data),
/// numbers and Booleans as `NSNumber`. A NULL leaves its key out, as in Core Data.
extension SQLiteStore {
    func fetchDictionaries(_ request: StoreDictionaryFetch) throws -> [NSDictionary] {
        guard let store else { return [] }
        let query = try SQLDictionaryQuery(request, schema: schema)
        let rows = try read { db in try Row.fetchAll(db, query.statement) }
        return try rows.map { row in
            let dictionary = NSMutableDictionary()
            var index = 0
            for column in query.columns {
                if let value = try decode(row, at: index, column.decoding, store: store) {
                    dictionary[column.key] = Self.boxed(value)
                }
                index += column.decoding.width
            }
            return dictionary
        }
    }

    private func decode(
        _ row: Row, at index: Int, _ decoding: SQLDictionaryQuery.Decoding, store: NSPersistentStore
    ) throws -> Any? {
        let value: DatabaseValue = row[index]
        switch decoding {
        case .attribute(let attribute):
            return try decodeAttribute(SQLScalar(value), attribute)
        case .object(let entity):
            guard let key = Int64.fromDatabaseValue(value) else { return nil }
            return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
        case .objectOfAnyEntity:
            guard let key = Int64.fromDatabaseValue(value), let number = Int.fromDatabaseValue(row[index + 1]),
                let entity = schema.entitiesByNumber[number]
            else { return nil }
            return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
        case .composite(let composite):
            var leaves: [(path: [String], value: Any)] = []
            for (offset, column) in composite.columns.enumerated() {
                let stored: DatabaseValue = row[index + offset]
                if let decoded = try decodeAttribute(SQLScalar(stored), column.element) {
                    leaves.append((column.path, decoded))
                }
            }
            // Like any nil value, a composite whose elements are all nil leaves its key out.
            return leaves.isEmpty ? nil : CompositeValue.publicValue(CompositeValue.assemble(leaves))
        case .value(.entity, _):
            return Int.fromDatabaseValue(value).flatMap { schema.entitiesByNumber[$0] }
        case .value(let kind, let resultType):
            if resultType != .undefinedAttributeType {
                return SQLValueCoding.value(
                    SQLScalar(value), type: resultType, coordinator: store.persistentStoreCoordinator)
            }
            return Self.natural(value, kind: kind)
        }
    }

    /// A computed value of no declared type, as the kind of value it is: numbers as
    /// computed (integer or floating point), dates, UUIDs and URLs as themselves.
    private static func natural(_ value: DatabaseValue, kind: SQLValueKind) -> Any? {
        let type: NSAttributeType?
        switch kind {
        case .date: type = .dateAttributeType
        case .uuid: type = .UUIDAttributeType
        case .url: type = .URIAttributeType
        case .string: type = .stringAttributeType
        case .data: type = .binaryDataAttributeType
        case .number, .object, .entity, .null, .opaque, .composite: type = nil
        }
        if let type { return SQLValueCoding.value(SQLScalar(value), type: type) }
        switch value.storage {
        case .null: return nil
        case .int64(let integer): return integer
        case .double(let double): return double
        case .string(let string): return string
        case .blob(let data): return data
        }
    }

    /// Numbers as `NSNumber` (decimals as `NSDecimalNumber`), as Core Data returns them.
    private static func boxed(_ value: Any) -> Any { NumberBoxing.boxed(value) }
}
