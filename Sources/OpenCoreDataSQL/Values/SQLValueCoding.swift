import OpenCoreDataCore

/// Converts attribute values to and from the SQL values Core Data stores:
/// dates as seconds since 2001, Booleans as 0/1, UUIDs as 16 bytes, URLs as text,
/// transformable values through their value transformer.
package enum SQLValueCoding {
    package static func scalar(
        _ value: Any?, type: NSAttributeType, transformerName: String? = nil
    ) throws -> SQLScalar {
        guard let value else { return .null }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if let v = value as? Int16 { return .integer(Int64(v)) }
            if let v = value as? Int32 { return .integer(Int64(v)) }
            if let v = value as? Int64 { return v.sqlScalar }
            // A default value given as a Swift `Int` (a model built in code), which a
            // migration writes into rows as it stands.
            if let v = value as? Int { return .integer(Int64(v)) }
        case .booleanAttributeType:
            if let v = value as? Bool { return .integer(v ? 1 : 0) }
        case .doubleAttributeType:
            if let v = value as? Double { return v.sqlScalar }
        case .floatAttributeType:
            if let v = value as? Float { return Double(v).sqlScalar }
        case .decimalAttributeType:
            if let v = value as? Decimal { return NSDecimalNumber(decimal: v).doubleValue.sqlScalar }
        case .stringAttributeType:
            if let v = value as? String { return v.sqlScalar }
        case .dateAttributeType:
            if let v = value as? Date { return v.timeIntervalSinceReferenceDate.sqlScalar }
        case .binaryDataAttributeType:
            if let v = value as? Data { return v.sqlScalar }
        case .UUIDAttributeType:
            if let v = value as? UUID { return withUnsafeBytes(of: v.uuid) { Data($0) }.sqlScalar }
        case .URIAttributeType:
            if let v = value as? URL { return v.absoluteString.sqlScalar }
        case .objectIDAttributeType:
            if let v = value as? NSManagedObjectID { return v.uriRepresentation().absoluteString.sqlScalar }
        case .transformableAttributeType:
            return try ValueTransformerRegistry.encode(value, transformerName: transformerName).sqlScalar
        case .undefinedAttributeType, .compositeAttributeType:
            break
        }
        throw CoreDataError.make(
            NSManagedObjectValidationError, "Cannot store a \(Swift.type(of: value)) in a \(type.displayName) attribute"
        )
    }

    /// A REAL found in an integer column (another program's write, a batch update's
    /// arithmetic) as a 64-bit integer, as SQLite's own `CAST(… AS INTEGER)` gives it:
    /// out-of-range values and infinities saturate, NaN is 0 (`Int64(_:)` would trap).
    /// 16- and 32-bit attributes then keep the low bits, as integers stored too wide do.
    package static func saturatingInteger(_ value: Double) -> Int64 {
        if value.isNaN { return 0 }
        if value >= 0x1p63 { return .max }
        if value < -0x1p63 { return .min }
        return Int64(value)
    }

    package static func value(
        _ scalar: SQLScalar, type: NSAttributeType, transformerName: String? = nil,
        coordinator: NSPersistentStoreCoordinator? = nil
    ) -> Any? {
        switch scalar {
        case .null:
            return nil
        case let .integer(i):
            switch type {
            case .integer16AttributeType: return Int16(truncatingIfNeeded: i)
            case .integer32AttributeType: return Int32(truncatingIfNeeded: i)
            case .integer64AttributeType: return i
            case .booleanAttributeType: return i != 0
            case .doubleAttributeType: return Double(i)
            case .floatAttributeType: return Float(i)
            case .decimalAttributeType: return Decimal(i)
            case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: Double(i))
            case .stringAttributeType: return String(i)
            default: return nil
            }
        case let .real(d):
            switch type {
            case .doubleAttributeType: return d
            case .floatAttributeType: return Float(d)
            case .decimalAttributeType: return Decimal(string: String(d)) ?? NumericValue.decimal(d)
            case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: d)
            case .integer16AttributeType: return Int16(truncatingIfNeeded: saturatingInteger(d))
            case .integer32AttributeType: return Int32(truncatingIfNeeded: saturatingInteger(d))
            case .integer64AttributeType: return saturatingInteger(d)
            case .booleanAttributeType: return d != 0
            default: return nil
            }
        case let .text(s):
            switch type {
            case .stringAttributeType: return s
            case .URIAttributeType: return URL(string: s)
            case .decimalAttributeType: return Decimal(string: s)
            case .objectIDAttributeType:
                return URL(string: s).flatMap { coordinator?.managedObjectID(forURIRepresentation: $0) }
            default: return nil
            }
        case let .blob(data):
            switch type {
            case .binaryDataAttributeType: return data
            case .UUIDAttributeType:
                guard data.count == 16 else { return nil }
                return data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            case .transformableAttributeType:
                return ValueTransformerRegistry.decode(data, transformerName: transformerName)
            default: return nil
            }
        }
    }

    /// The stored value of `attribute`, as its type and value transformer say (object IDs
    /// resolved through `coordinator`).
    package static func value(
        _ scalar: SQLScalar, of attribute: NSAttributeDescription, coordinator: NSPersistentStoreCoordinator?
    ) -> Any? {
        value(
            scalar, type: attribute.attributeType, transformerName: attribute.valueTransformerName,
            coordinator: coordinator)
    }
}
