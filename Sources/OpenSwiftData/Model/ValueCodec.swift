import OpenCoreData

/// How one Swift attribute type is stored in Core Data: the attribute type, and the
/// conversions between the Swift value and the stored one.
///
/// Swift's own types map to Core Data's (`Int` to Integer 64, `Data` to Binary, ...); an enum
/// with a raw value of such a type is stored as its raw value; any other `Codable` value
/// (structs, arrays, enums with associated values) is stored as its JSON encoding in a
/// Binary attribute.
struct ValueCodec: @unchecked Sendable {
    /// The Core Data attribute type.
    let attributeType: NSAttributeType
    /// The stored form of a (non-optional) Swift value.
    let encode: (Any) -> Any
    /// The Swift value of a stored one; `nil` when the stored value is not one the type can hold.
    let decode: (Any) -> Any?
    /// The elements, when the type is stored as a composite attribute.
    var composite: CompositeLayout?

    /// The codec for `type`, or `nil` if SwiftData cannot store it as an attribute.
    static func codec(for type: Any.Type) -> ValueCodec? {
        if let primitive = type as? any SwiftDataPrimitive.Type {
            return ValueCodec(
                attributeType: primitive.attributeType,
                encode: { ($0 as! any SwiftDataPrimitive).storedValue },
                decode: { primitive.fromStored($0) })
        }
        if let raw = type as? any RawRepresentable.Type, let codec = rawValueCodec(raw) {
            return codec
        }
        if let codable = type as? any Codable.Type {
            return codableCodec(codable)
        }
        return nil
    }

    private static func rawValueCodec<Value: RawRepresentable>(_ type: Value.Type) -> ValueCodec? {
        guard let raw = Value.RawValue.self as? any SwiftDataPrimitive.Type else { return nil }
        return ValueCodec(
            attributeType: raw.attributeType,
            encode: { (($0 as! Value).rawValue as! any SwiftDataPrimitive).storedValue },
            decode: { stored in (raw.fromStored(stored) as? Value.RawValue).flatMap(Value.init(rawValue:)) })
    }

    private static func codableCodec<Value: Codable>(_ type: Value.Type) -> ValueCodec {
        if let layout = CompositeLayout.of(Value.self) {
            return ValueCodec(
                attributeType: .compositeAttributeType,
                encode: { value in
                    do {
                        return try layout.storedValue(of: value as! Value)
                    } catch {
                        preconditionFailure("A \(Value.self) value could not be encoded for storage: \(error)")
                    }
                },
                decode: { stored in (stored as? [String: Any]).flatMap { layout.value(of: $0, as: Value.self) } },
                composite: layout)
        }
        return ValueCodec(
            attributeType: .binaryDataAttributeType,
            encode: { value in
                do {
                    return try jsonEncoder.encode(value as! Value)
                } catch {
                    preconditionFailure("A \(Value.self) value could not be encoded for storage: \(error)")
                }
            },
            decode: { stored in (stored as? Data).flatMap { try? JSONDecoder().decode(Value.self, from: $0) } })
    }

    /// The encoder of stored `Codable` values and composites: deterministic output (sorted
    /// keys), and non-finite numbers kept rather than refused.
    static let jsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }()
}

/// A Swift type with a Core Data attribute type of its own.
protocol SwiftDataPrimitive {
    /// The Swift type Core Data keeps values of ``attributeType`` as (`Int64` for `Int`).
    associatedtype Stored: SlotValue
    /// The attribute type SwiftData gives properties of this type.
    static var attributeType: NSAttributeType { get }
    /// Whether values go straight into the Core Data object's slot as ``Stored`` (see
    /// ``PrimitiveAccessor``); `false` where Core Data normalizes the value on the way in.
    static var storesNatively: Bool { get }
    /// The value as Core Data keeps it.
    var nativeStored: Stored { get }
    /// The value of one Core Data keeps.
    static func fromNative(_ stored: Stored) -> Self
    /// The value as Core Data stores it.
    var storedValue: Any { get }
    /// The value of a stored one, or `nil` if it does not fit.
    static func fromStored(_ stored: Any) -> Self?
    /// Some value of the type (what discovering a composite's layout answers).
    static var placeholder: Self { get }

    // Slot access (implemented in PropertyAccessor.swift); requirements so that each type's
    // witness is specialized.
    static func readSlot(of property: ModelProperty, in object: SwiftDataManagedObject, slot: Int) -> Self
    static func readOptionalSlot(of property: ModelProperty, in object: SwiftDataManagedObject, slot: Int) -> Self?
    static func writeSlot(_ value: Self, of property: ModelProperty, in object: SwiftDataManagedObject, slot: Int)
    static func writeOptionalSlot(
        _ value: Self?, of property: ModelProperty, in object: SwiftDataManagedObject, slot: Int)
}

/// A primitive Core Data keeps as the Swift type itself (all but the integers).
protocol SwiftDataSelfStoredPrimitive: SwiftDataPrimitive where Stored == Self {}

extension SwiftDataSelfStoredPrimitive {
    static var storesNatively: Bool { true }
    var nativeStored: Self { self }
    static func fromNative(_ stored: Self) -> Self { stored }
}

extension String: SwiftDataSelfStoredPrimitive {
    static var placeholder: String { "" }
    static var attributeType: NSAttributeType { .stringAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> String? { stored as? String }
}

extension Bool: SwiftDataSelfStoredPrimitive {
    static var placeholder: Bool { false }
    static var attributeType: NSAttributeType { .booleanAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Bool? {
        if let value = stored as? Bool { return value }
        return storedInteger(stored).map { $0 != 0 }
    }
}

extension Double: SwiftDataSelfStoredPrimitive {
    static var placeholder: Double { 0 }
    static var attributeType: NSAttributeType { .doubleAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Double? { storedDouble(stored) }
}

extension Float: SwiftDataSelfStoredPrimitive {
    static var placeholder: Float { 0 }
    static var attributeType: NSAttributeType { .floatAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Float? { storedDouble(stored).map { Float($0) } }
}

extension Date: SwiftDataSelfStoredPrimitive {
    static var placeholder: Date { Date(timeIntervalSinceReferenceDate: 0) }
    static var attributeType: NSAttributeType { .dateAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Date? { stored as? Date }
}

extension Data: SwiftDataSelfStoredPrimitive {
    static var placeholder: Data { Data() }
    static var attributeType: NSAttributeType { .binaryDataAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Data? { stored as? Data }
}

extension UUID: SwiftDataSelfStoredPrimitive {
    static var placeholder: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    static var attributeType: NSAttributeType { .UUIDAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> UUID? { stored as? UUID }
}

extension URL: SwiftDataSelfStoredPrimitive {
    static var placeholder: URL { URL(fileURLWithPath: "/") }
    static var attributeType: NSAttributeType { .URIAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> URL? { stored as? URL }
}

extension Decimal: SwiftDataSelfStoredPrimitive {
    /// Core Data refuses a NaN decimal on the way in, so values take the checked path.
    static var storesNatively: Bool { false }
    static var placeholder: Decimal { 0 }
    static var attributeType: NSAttributeType { .decimalAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Decimal? {
        if let value = stored as? Decimal { return value }
        return (stored as? NSNumber)?.decimalValue
    }
}

/// Swift's integer types, each stored in the narrowest Core Data integer type that holds all
/// its values (so that stored values sort and compare in SQL as in Swift), up to Integer 64:
/// `UInt` and `UInt64` values above `Int64.max` are kept by their bits.
protocol SwiftDataInteger: SwiftDataPrimitive, FixedWidthInteger where Stored: FixedWidthInteger {}

extension SwiftDataInteger {
    static var storesNatively: Bool { true }
    var nativeStored: Stored { Stored(truncatingIfNeeded: self) }
    static func fromNative(_ stored: Stored) -> Self { Self(truncatingIfNeeded: stored) }
    static var attributeType: NSAttributeType {
        switch (isSigned, bitWidth) {
        case (true, ...16), (false, ...8): .integer16AttributeType
        case (true, 32), (false, 16): .integer32AttributeType
        default: .integer64AttributeType
        }
    }
    var storedValue: Any {
        switch Self.attributeType {
        case .integer16AttributeType: Int16(truncatingIfNeeded: self)
        case .integer32AttributeType: Int32(truncatingIfNeeded: self)
        default: Int64(truncatingIfNeeded: self)
        }
    }
    static func fromStored(_ stored: Any) -> Self? { storedInteger(stored).map { Self(truncatingIfNeeded: $0) } }
    static var placeholder: Self { 0 }
}

// `Stored` follows `attributeType`.
extension Int: SwiftDataInteger { typealias Stored = Int64 }
extension Int8: SwiftDataInteger { typealias Stored = Int16 }
extension Int16: SwiftDataInteger { typealias Stored = Int16 }
extension Int32: SwiftDataInteger { typealias Stored = Int32 }
extension Int64: SwiftDataInteger { typealias Stored = Int64 }
extension UInt: SwiftDataInteger { typealias Stored = Int64 }
extension UInt8: SwiftDataInteger { typealias Stored = Int16 }
extension UInt16: SwiftDataInteger { typealias Stored = Int32 }
extension UInt32: SwiftDataInteger { typealias Stored = Int64 }
extension UInt64: SwiftDataInteger { typealias Stored = Int64 }

/// A stored integer of any width (Core Data hands back `Int64`, `Int16`, ... or `NSNumber`).
private func storedInteger(_ stored: Any) -> Int64? {
    switch stored {
    case let value as Int64: value
    case let value as Int: Int64(value)
    case let value as Int32: Int64(value)
    case let value as Int16: Int64(value)
    case let value as Bool: value ? 1 : 0
    case let value as NSNumber: value.int64Value
    default: nil
    }
}

/// A stored floating-point number (or an integer stored where a number is read).
private func storedDouble(_ stored: Any) -> Double? {
    switch stored {
    case let value as Double: value
    case let value as Float: Double(value)
    case let value as NSNumber: value.doubleValue
    default: storedInteger(stored).map(Double.init)
    }
}
