import OpenCoreDataCore

/// The result dictionaries of a dictionary fetch, from rows any engine read: values decoded
/// as fetched objects' values are (dates, UUIDs, transformable data), numbers and Booleans
/// as `NSNumber`. A NULL leaves its key out, as in Core Data.
extension SQLDictionaryQuery {
    /// The dictionary of one result row, whose column `index` is `column(index)`.
    ///
    /// `decodeAttribute` decodes a stored attribute value as the engine's row reads do
    /// (the SQLite engine reads values kept in external files there).
    package func dictionary(
        reading column: (Int) -> SQLScalar, schema: SQLSchema, store: NSPersistentStore,
        decodeAttribute: (SQLScalar, NSAttributeDescription) throws -> Any?
    ) throws -> NSDictionary {
        let dictionary = NSMutableDictionary()
        var index = 0
        for entry in columns {
            if let value = try Self.decode(
                column, at: index, entry.decoding, schema: schema, store: store, decodeAttribute: decodeAttribute)
            {
                dictionary[entry.key] = NumberBoxing.boxed(value)
            }
            index += entry.decoding.width
        }
        return dictionary
    }

    private static func decode(
        _ column: (Int) -> SQLScalar, at index: Int, _ decoding: Decoding, schema: SQLSchema, store: NSPersistentStore,
        decodeAttribute: (SQLScalar, NSAttributeDescription) throws -> Any?
    ) throws -> Any? {
        let value = column(index)
        switch decoding {
        case .attribute(let attribute):
            return try decodeAttribute(value, attribute)
        case .object(let entity):
            guard let key = value.exactInteger else { return nil }
            return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
        case .objectOfAnyEntity:
            return schema.objectID(
                key: value.exactInteger, entityNumber: column(index + 1).exactInteger, store: store)
        case .composite(let composite):
            var leaves: [(path: [String], value: Any)] = []
            for (offset, leaf) in composite.columns.enumerated() {
                if let decoded = try decodeAttribute(column(index + offset), leaf.element) {
                    leaves.append((leaf.path, decoded))
                }
            }
            // Like any nil value, a composite whose elements are all nil leaves its key out.
            return leaves.isEmpty ? nil : CompositeValue.publicValue(CompositeValue.assemble(leaves))
        case .value(.entity, _):
            return value.exactInteger.flatMap { schema.entitiesByNumber[Int(truncatingIfNeeded: $0)] }
        case .value(let kind, let resultType):
            if resultType != .undefinedAttributeType {
                return SQLValueCoding.value(value, type: resultType, coordinator: store.persistentStoreCoordinator)
            }
            return natural(value, kind: kind)
        }
    }

    /// A computed value of no declared type, as the kind of value it is: numbers as
    /// computed (integer or floating point), dates, UUIDs and URLs as themselves.
    private static func natural(_ value: SQLScalar, kind: SQLValueKind) -> Any? {
        let type: NSAttributeType?
        switch kind {
        case .date: type = .dateAttributeType
        case .uuid: type = .UUIDAttributeType
        case .url: type = .URIAttributeType
        case .string: type = .stringAttributeType
        case .data: type = .binaryDataAttributeType
        case .number, .object, .entity, .null, .opaque, .composite: type = nil
        }
        if let type { return SQLValueCoding.value(value, type: type) }
        switch value {
        case .null: return nil
        case .integer(let integer): return integer
        case .real(let double): return double
        case .text(let string): return string
        case .blob(let data): return data
        }
    }
}
