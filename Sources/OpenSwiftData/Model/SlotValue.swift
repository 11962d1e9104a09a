import OpenCoreData

/// A Swift type Core Data keeps attribute values as, read and written by slot.
///
/// Each conformance calls the Core Data layer's overload for its own type, so the access is
/// specialized there rather than run through type metadata (see ``PrimitiveAccessor``).
protocol SlotValue {
    /// The value in `slot` of `object`: `.some(nil)` when it has none, `nil` when the slot holds
    /// another type (the general path then converts it).
    static func read(from object: NSManagedObject, slot: Int, key: String) -> Self??
    /// Writes `value` into `slot` of `object`.
    static func write(_ value: Self?, to object: NSManagedObject, slot: Int, key: String)
}

extension String: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> String?? {
        object.attributeValue(slot: slot, key: key, as: String.self)
    }
    static func write(_ value: String?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

extension Bool: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> Bool?? {
        object.attributeValue(slot: slot, key: key, as: Bool.self)
    }
    static func write(_ value: Bool?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

extension Int16: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> Int16?? {
        object.attributeValue(slot: slot, key: key, as: Int16.self)
    }
    static func write(_ value: Int16?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

extension Int32: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> Int32?? {
        object.attributeValue(slot: slot, key: key, as: Int32.self)
    }
    static func write(_ value: Int32?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

extension Int64: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> Int64?? {
        object.attributeValue(slot: slot, key: key, as: Int64.self)
    }
    static func write(_ value: Int64?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

extension Double: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> Double?? {
        object.attributeValue(slot: slot, key: key, as: Double.self)
    }
    static func write(_ value: Double?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

extension Float: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> Float?? {
        object.attributeValue(slot: slot, key: key, as: Float.self)
    }
    static func write(_ value: Float?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

extension Date: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> Date?? {
        object.attributeValue(slot: slot, key: key, as: Date.self)
    }
    static func write(_ value: Date?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

extension Data: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> Data?? {
        object.attributeValue(slot: slot, key: key, as: Data.self)
    }
    static func write(_ value: Data?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

extension UUID: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> UUID?? {
        object.attributeValue(slot: slot, key: key, as: UUID.self)
    }
    static func write(_ value: UUID?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

extension URL: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> URL?? {
        object.attributeValue(slot: slot, key: key, as: URL.self)
    }
    static func write(_ value: URL?, to object: NSManagedObject, slot: Int, key: String) {
        object.setAttributeValue(value, slot: slot, key: key)
    }
}

// Decimal takes the general path (see its `storesNatively`), but its `Stored` type must
// still be a SlotValue.
extension Decimal: SlotValue {
    static func read(from object: NSManagedObject, slot: Int, key: String) -> Decimal?? { nil }
    static func write(_ value: Decimal?, to object: NSManagedObject, slot: Int, key: String) {
        preconditionFailure("Decimal values are written through key-value coding, which refuses NaN")
    }
}
