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
            return ValueCodec(attributeType: primitive.attributeType,
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
        return ValueCodec(attributeType: raw.attributeType,
                          encode: { (($0 as! Value).rawValue as! any SwiftDataPrimitive).storedValue },
                          decode: { stored in (raw.fromStored(stored) as? Value.RawValue).flatMap(Value.init(rawValue:)) })
    }

    private static func codableCodec<Value: Codable>(_ type: Value.Type) -> ValueCodec {
        if let layout = CompositeLayout.of(Value.self) {
            return ValueCodec(attributeType: .compositeAttributeType,
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
        return ValueCodec(attributeType: .binaryDataAttributeType,
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
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }()
}

/// A Swift type with a Core Data attribute type of its own.
protocol SwiftDataPrimitive {
    /// The attribute type SwiftData gives properties of this type.
    static var attributeType: NSAttributeType { get }
    /// The value as Core Data stores it.
    var storedValue: Any { get }
    /// The value of a stored one, or `nil` if it does not fit.
    static func fromStored(_ stored: Any) -> Self?
    /// Some value of the type (what discovering a composite's layout answers).
    static var placeholder: Self { get }
}

extension String: SwiftDataPrimitive {
    static var placeholder: String { "" }
    static var attributeType: NSAttributeType { .stringAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> String? { stored as? String }
}

extension Bool: SwiftDataPrimitive {
    static var placeholder: Bool { false }
    static var attributeType: NSAttributeType { .booleanAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Bool? {
        if let value = stored as? Bool { return value }
        return storedInteger(stored).map { $0 != 0 }
    }
}

extension Double: SwiftDataPrimitive {
    static var placeholder: Double { 0 }
    static var attributeType: NSAttributeType { .doubleAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Double? { storedDouble(stored) }
}

extension Float: SwiftDataPrimitive {
    static var placeholder: Float { 0 }
    static var attributeType: NSAttributeType { .floatAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Float? { storedDouble(stored).map { Float($0) } }
}

extension Date: SwiftDataPrimitive {
    static var placeholder: Date { Date(timeIntervalSinceReferenceDate: 0) }
    static var attributeType: NSAttributeType { .dateAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Date? { stored as? Date }
}

extension Data: SwiftDataPrimitive {
    static var placeholder: Data { Data() }
    static var attributeType: NSAttributeType { .binaryDataAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Data? { stored as? Data }
}

extension UUID: SwiftDataPrimitive {
    static var placeholder: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    static var attributeType: NSAttributeType { .UUIDAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> UUID? { stored as? UUID }
}

extension URL: SwiftDataPrimitive {
    static var placeholder: URL { URL(fileURLWithPath: "/") }
    static var attributeType: NSAttributeType { .URIAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> URL? { stored as? URL }
}

extension Decimal: SwiftDataPrimitive {
    static var placeholder: Decimal { 0 }
    static var attributeType: NSAttributeType { .decimalAttributeType }
    var storedValue: Any { self }
    static func fromStored(_ stored: Any) -> Decimal? {
        if let value = stored as? Decimal { return value }
        return (stored as? NSNumber)?.decimalValue
    }
}

/// Swift's integer types: SwiftData stores them all as Integer 64 but the 16- and 32-bit ones.
protocol SwiftDataInteger: SwiftDataPrimitive, FixedWidthInteger {}

extension SwiftDataInteger {
    static var attributeType: NSAttributeType {
        switch bitWidth {
        case ...16: .integer16AttributeType
        case 32: .integer32AttributeType
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

extension Int: SwiftDataInteger {}
extension Int8: SwiftDataInteger {}
extension Int16: SwiftDataInteger {}
extension Int32: SwiftDataInteger {}
extension Int64: SwiftDataInteger {}
extension UInt: SwiftDataInteger {}
extension UInt8: SwiftDataInteger {}
extension UInt16: SwiftDataInteger {}
extension UInt32: SwiftDataInteger {}
extension UInt64: SwiftDataInteger {}

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
