/// Conversions between the values apps hand to attributes and the one native Swift
/// type each attribute type is stored as.
///
/// Storage is native (`Int64` for Integer 64, `String`, `Date`, …) so reads through
/// `@Managed` properties need no boxing; key-value coding returns numbers as
/// `NSNumber`, as Core Data does, so `value(forKey:) as? Int` works for any integer.
package enum AttributeValue {
    /// The stored form of `value` for `attribute`, or `nil` when the value does not fit the type.
    package static func coerce(_ value: Any, to attribute: NSAttributeDescription) -> Any? {
        if let composite = attribute as? NSCompositeAttributeDescription {
            return CompositeValue.coerce(value, to: composite)
        }
        return coerce(value, to: attribute.attributeType)
    }

    package static func coerce(_ value: Any, to type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType:
            if let v = value as? Int16 { return v }
            return integer(value).flatMap { Int16(exactly: $0) }
        case .integer32AttributeType:
            if let v = value as? Int32 { return v }
            return integer(value).flatMap { Int32(exactly: $0) }
        case .integer64AttributeType:
            if let v = value as? Int64 { return v }
            return integer(value)
        case .doubleAttributeType:
            if let v = value as? Double { return v }
            return number(value)?.doubleValue
        case .floatAttributeType:
            if let v = value as? Float { return v }
            return number(value)?.floatValue
        case .booleanAttributeType:
            if let v = value as? Bool { return v }
            return number(value)?.boolValue
        case .decimalAttributeType:
            // NaN and infinities are refused: a decimal has no infinity (it would become
            // NaN), and SQLite stores a NaN as NULL, so it would come back as nil.
            let decimal: Decimal?
            if let v = value as? Decimal {
                decimal = v
            } else if let v = value as? NSDecimalNumber {
                decimal = v.decimalValue
            } else if let number = number(value), number.doubleValue.isFinite {
                // Not through the string for infinities: Decimal(string: "inf") is 0.
                decimal = Decimal(string: number.stringValue) ?? NumericValue.decimal(number.doubleValue)
            } else {
                decimal = nil
            }
            return decimal.flatMap { $0.isNaN ? nil : $0 }
        case .stringAttributeType:
            if let v = value as? String { return v }
            if let v = value as? NSString { return v as String }
            return nil
        case .dateAttributeType:
            if let v = value as? Date { return v }
            if let v = value as? NSDate {
                return Date(timeIntervalSinceReferenceDate: v.timeIntervalSinceReferenceDate)
            }
            return nil
        case .binaryDataAttributeType:
            if let v = value as? Data { return v }
            if let v = value as? NSData { return Data(referencing: v) }
            return nil
        case .UUIDAttributeType:
            if let v = value as? UUID { return v }
            if let v = value as? NSUUID { return UUID(uuidString: v.uuidString) }
            return nil
        case .URIAttributeType:
            if let v = value as? URL { return v }
            if let v = value as? NSURL { return v.absoluteURL }
            return nil
        case .objectIDAttributeType:
            return (value as? any StoredObjectID).map { $0 as Any }
        // A transformable holds what its transformer takes; a transient attribute without a
        // type, anything (Core Data keeps it in memory only).
        case .transformableAttributeType, .undefinedAttributeType:
            return value
        case .compositeAttributeType:
            return nil
        }
    }

    /// Whether `value` already is the stored form of `type` (what `coerce` would return
    /// unchanged). Compares metatypes, which costs far less than the casts `coerce` tries.
    package static func isStoredForm(_ value: Any, of type: NSAttributeType) -> Bool {
        let valueType = Swift.type(of: value)
        switch type {
        case .integer16AttributeType: return valueType == Int16.self
        case .integer32AttributeType: return valueType == Int32.self
        case .integer64AttributeType: return valueType == Int64.self
        case .doubleAttributeType: return valueType == Double.self
        case .floatAttributeType: return valueType == Float.self
        case .booleanAttributeType: return valueType == Bool.self
        case .decimalAttributeType: return valueType == Decimal.self
        case .stringAttributeType: return valueType == String.self
        case .dateAttributeType: return valueType == Date.self
        case .binaryDataAttributeType: return valueType == Data.self
        case .UUIDAttributeType: return valueType == UUID.self
        case .URIAttributeType: return valueType == URL.self
        case .objectIDAttributeType: return value is any StoredObjectID
        case .transformableAttributeType, .undefinedAttributeType, .compositeAttributeType: return false
        }
    }

    /// The value key-value coding reports: numbers and Booleans boxed in `NSNumber`.
    package static func publicValue(_ stored: Any, type: NSAttributeType) -> Any {
        switch type {
        case .integer16AttributeType: if let v = storedCast(stored, to: Int16.self) { return NSNumber(value: v) }
        case .integer32AttributeType: if let v = storedCast(stored, to: Int32.self) { return NSNumber(value: v) }
        case .integer64AttributeType: if let v = storedCast(stored, to: Int64.self) { return NSNumber(value: v) }
        case .doubleAttributeType: if let v = storedCast(stored, to: Double.self) { return NSNumber(value: v) }
        case .floatAttributeType: if let v = storedCast(stored, to: Float.self) { return NSNumber(value: v) }
        case .booleanAttributeType:
            if let v = storedCast(stored, to: Bool.self) { return v ? BooleanNumbers.yes : BooleanNumbers.no }
        case .decimalAttributeType: if let v = stored as? Decimal { return NSDecimalNumber(decimal: v) }
        case .compositeAttributeType: if let v = stored as? [String: Any] { return CompositeValue.publicValue(v) }
        default: break
        }
        return stored
    }

    /// Equality of two stored values of one attribute (used to skip writes that change nothing).
    package static func isEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case let (l?, r?):
            // Stored forms of the common attribute types compare directly: a cast to
            // `AnyHashable` looks up a conformance and boxes both values.
            if let equal = sameTypeEquality(l, r) {
                return equal
            }
            if let l = l as? AnyHashable, let r = r as? AnyHashable { return l == r }
            // Composite attributes' dictionaries.
            if let l = l as? [String: Any], let r = r as? [String: Any] { return CompositeValue.isEqual(l, r) }
            if let l = l as? NSObject, let r = r as? NSObject { return l.isEqual(r) }
            return false
        }
    }

    /// Whether `lhs` equals `rhs` when both are exactly one of the common stored types
    /// (the same one); `nil` when they are not, or of different types, for the general
    /// comparison. Spelled out per type, so each comparison is specialized.
    private static func sameTypeEquality(_ lhs: Any, _ rhs: Any) -> Bool? {
        /// `nil`: `lhs` is not a `T`; `.some(nil)`: `rhs` is not, so no shortcut.
        @inline(__always) func compare<T: Equatable>(_ type: T.Type) -> Bool?? {
            guard let l = exactCast(lhs, to: type) else { return nil }
            guard let r = exactCast(rhs, to: type) else { return .some(nil) }
            return .some(l == r)
        }
        return compare(String.self) ?? compare(Int64.self) ?? compare(Double.self) ?? compare(Date.self)
            ?? compare(Bool.self) ?? compare(Int32.self) ?? compare(Int16.self) ?? compare(Float.self) ?? nil
    }

    private static func number(_ value: Any) -> NSNumber? {
        if value is String || value is NSString { return nil }
        return value as? NSNumber
    }

    private static func integer(_ value: Any) -> Int64? {
        guard let number = number(value) else { return nil }
        let double = number.doubleValue
        if double.rounded(.towardZero) != double { return Int64(exactly: double.rounded(.towardZero)) }
        return number.int64Value
    }
}

/// The two Boolean `NSNumber`s, made once: Foundation on Apple platforms hands out
/// shared instances for them too, and here every read would allocate one.
private enum BooleanNumbers {
    package static let yes = NSNumber(value: true)
    package static let no = NSNumber(value: false)
}
