import OpenCoreDataCore

/// Turns the Swift constants of a predicate into bound SQL values of a known kind,
/// encoded as the store encodes attribute values (`SQLValueCoding`).
package enum SQLConstantEncoding {
    /// The kind of a non-collection constant.
    package static func kind(of value: Any?) -> SQLValueKind {
        guard let value = CollectionValue.unwrapNull(value) else { return .null }
        if StringMatching.string(from: value) != nil { return .string }
        if NumericValue(value) != nil { return .number }
        switch value {
        case is Date: return .date
        case is UUID: return .uuid
        case is Data: return .data
        case is URL: return .url
        case let object as NSManagedObject: return .object(object.entity)
        case let id as NSManagedObjectID: return .object(id.entity)
        case is NSEntityDescription: return .entity
        default: return .opaque("a \(type(of: value)) constant")
        }
    }

    /// A constant as a bound SQL value of its kind.
    ///
    /// An object that was never saved has no row, so it gets a key no row has and
    /// still equals only itself.
    package static func value(_ constant: Any?) throws -> SQLValue {
        let kind = kind(of: constant)
        guard let constant = CollectionValue.unwrapNull(constant) else { return SQLValue("NULL", kind: .null) }
        let encoded: SQLScalar
        switch kind {
        case .string:
            encoded = StringMatching.string(from: constant)!.sqlScalar
        case .number:
            switch NumericValue(constant)! {
            case .integer(let integer): encoded = integer.sqlScalar
            case let other: encoded = other.doubleValue.sqlScalar
            }
        // Dates, UUIDs, data and URLs are encoded exactly as attributes of those types are stored.
        case .date:
            encoded = try SQLValueCoding.scalar(constant, type: .dateAttributeType)
        case .uuid:
            encoded = try SQLValueCoding.scalar(constant, type: .UUIDAttributeType)
        case .data:
            encoded = try SQLValueCoding.scalar(constant, type: .binaryDataAttributeType)
        case .url:
            encoded = try SQLValueCoding.scalar(constant, type: .URIAttributeType)
        case .object:
            let id = (constant as? NSManagedObject)?.objectID ?? (constant as! NSManagedObjectID)
            encoded = (id.primaryKey ?? -1).sqlScalar
        case .entity:
            // An entity of a model no store uses has no number, and matches no row.
            encoded = ((constant as! NSEntityDescription).frozenFacts?.entityNumber ?? -1).sqlScalar
        case .null, .opaque, .composite:
            throw SQLTranslationError.unsupported("cannot compare stored values with \(kindDescription(kind))")
        }
        var value = SQLValue(.bind(encoded), kind: kind, isNullable: false)
        value.constantText = StringMatching.string(from: constant)
        return value
    }

    /// The kind of the values an attribute stores.
    package static func kind(of attribute: NSAttributeDescription) -> SQLValueKind {
        if attribute.allowsExternalBinaryDataStorage {
            return .opaque("attribute '\(attribute.name)' (stored outside the database when large)")
        }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .doubleAttributeType, .floatAttributeType, .decimalAttributeType, .booleanAttributeType:
            return .number
        case .stringAttributeType: return .string
        case .dateAttributeType: return .date
        case .UUIDAttributeType: return .uuid
        case .binaryDataAttributeType: return .data
        case .URIAttributeType: return .url
        default: return .opaque("attribute '\(attribute.name)' (\(attribute.attributeType.displayName))")
        }
    }

    package static func kindDescription(_ kind: SQLValueKind) -> String {
        switch kind {
        case .opaque(let description): description
        case .composite(let composite): "composite attribute '\(composite.keyPath)'"
        case .null: "nil"
        default: "\(kind)"
        }
    }
}
