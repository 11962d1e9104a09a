import OpenCoreData

/// How a `Codable` struct is stored as a composite attribute: one element per stored
/// property (found by decoding the type once with a decoder that records what it asks
/// for), values carried as dictionaries of element name → stored value.
///
/// SwiftData stores `Codable` structs the same way, as Core Data composite attributes. Types
/// whose decoding asks for something an element cannot hold (arrays, dictionaries, enums with
/// associated values, unkeyed or custom single-value encodings) are not composites: they are
/// stored whole, encoded (see ``ValueCodec``).
struct CompositeLayout: @unchecked Sendable {
    /// One element: a property of the struct.
    struct Element {
        let name: String
        let kind: Kind
        let isOptional: Bool
    }

    /// What an element holds.
    indirect enum Kind {
        case value(NSAttributeType)
        case composite(CompositeLayout)
    }

    let elements: [Element]

    /// The layout of `type`, or `nil` if it is not a struct of storable properties.
    static func of(_ type: any Decodable.Type) -> CompositeLayout? {
        let recorder = LayoutRecorder()
        guard (try? type.init(from: recorder)) != nil, !recorder.elements.isEmpty else { return nil }
        return CompositeLayout(elements: recorder.elements)
    }

    /// The Core Data description of an attribute of this layout.
    func attributeDescription(named name: String) -> NSCompositeAttributeDescription {
        let composite = NSCompositeAttributeDescription()
        composite.name = name
        composite.elements = elements.map { element in
            switch element.kind {
            case .value(let type):
                let attribute = NSAttributeDescription()
                attribute.name = element.name
                attribute.attributeType = type
                attribute.isOptional = element.isOptional
                return attribute
            case .composite(let nested):
                let attribute = nested.attributeDescription(named: element.name)
                attribute.isOptional = element.isOptional
                return attribute
            }
        }
        return composite
    }

    // MARK: Values

    /// The stored dictionary of `value`.
    func storedValue(of value: any Encodable) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: ValueCodec.jsonEncoder.encode(value))
        guard let dictionary = json as? [String: Any] else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "not a keyed value"))
        }
        return stored(dictionary)
    }

    private func stored(_ json: [String: Any]) -> [String: Any] {
        var result: [String: Any] = [:]
        for element in elements {
            guard let value = json[element.name], !(value is NSNull) else { continue }
            switch element.kind {
            case .composite(let nested):
                if let dictionary = value as? [String: Any] { result[element.name] = nested.stored(dictionary) }
            case .value(let type):
                result[element.name] = Self.storedLeaf(value, type)
            }
        }
        return result
    }

    /// The Swift value of a stored dictionary, or `nil` if it does not decode as `type`.
    func value<Value: Decodable>(of stored: [String: Any], as type: Value.Type) -> Value? {
        guard let data = try? JSONSerialization.data(withJSONObject: json(stored)) else { return nil }
        return try? JSONDecoder().decode(Value.self, from: data)
    }

    private func json(_ stored: [String: Any]) -> [String: Any] {
        var result: [String: Any] = [:]
        for element in elements {
            guard let value = stored[element.name], !(value is NSNull) else { continue }
            switch element.kind {
            case .composite(let nested):
                if let dictionary = value as? [String: Any] { result[element.name] = nested.json(dictionary) }
            case .value(let type):
                result[element.name] = Self.jsonLeaf(value, type)
            }
        }
        return result
    }

    /// JSON's form of a leaf (what `JSONEncoder`'s default strategies give) → the stored form.
    private static func storedLeaf(_ value: Any, _ type: NSAttributeType) -> Any {
        switch type {
        case .dateAttributeType:
            (value as? NSNumber).map { Date(timeIntervalSinceReferenceDate: $0.doubleValue) } ?? value
        case .UUIDAttributeType: (value as? String).flatMap(UUID.init(uuidString:)) ?? value
        case .URIAttributeType: (value as? String).flatMap(URL.init(string:)) ?? value
        case .binaryDataAttributeType: (value as? String).flatMap { Data(base64Encoded: $0) } ?? value
        case .booleanAttributeType: (value as? NSNumber)?.boolValue ?? value
        case .stringAttributeType: value
        default: value
        }
    }

    /// The stored form of a leaf → JSON's form.
    private static func jsonLeaf(_ value: Any, _ type: NSAttributeType) -> Any {
        switch value {
        case let date as Date: date.timeIntervalSinceReferenceDate
        case let uuid as UUID: uuid.uuidString
        case let url as URL: url.absoluteString
        case let data as Data: data.base64EncodedString()
        case let decimal as Decimal: NSDecimalNumber(decimal: decimal).doubleValue
        default: type == .booleanAttributeType ? ((value as? NSNumber)?.boolValue ?? value) : value
        }
    }
}

// MARK: - Discovering a layout

/// Why a layout cannot be recorded: the type asks for something an element cannot hold.
private struct NotComposite: Error {}

/// A decoder that answers every request with a placeholder and records what was asked.
private final class LayoutRecorder: Decoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    var elements: [CompositeLayout.Element] = []
    private var depth: Int

    init(depth: Int = 0) { self.depth = depth }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordingContainer<Key>(recorder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw NotComposite() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw NotComposite() }

    /// Records the element `key` of type `type` and answers a placeholder of it.
    func record<T: Decodable>(_ type: T.Type, _ key: String, optional: Bool) throws -> T {
        guard !elements.contains(where: { $0.name == key }) else { throw NotComposite() }
        if let primitive = type as? any SwiftDataPrimitive.Type {
            elements.append(.init(name: key, kind: .value(primitive.attributeType), isOptional: optional))
            return primitive.placeholder as! T
        }
        if let cases = type as? any (CaseIterable & RawRepresentable).Type, let (rawType, first) = firstCase(cases) {
            elements.append(.init(name: key, kind: .value(rawType), isOptional: optional))
            return first as! T
        }
        guard depth < 8 else { throw NotComposite() }
        let nested = LayoutRecorder(depth: depth + 1)
        let value = try T(from: nested)
        guard !nested.elements.isEmpty else { throw NotComposite() }
        elements.append(
            .init(name: key, kind: .composite(CompositeLayout(elements: nested.elements)), isOptional: optional))
        return value
    }

    private func firstCase<C: CaseIterable & RawRepresentable>(_ type: C.Type) -> (NSAttributeType, Any)? {
        guard let raw = C.RawValue.self as? any SwiftDataPrimitive.Type, let first = C.allCases.first else {
            return nil
        }
        return (raw.attributeType, first)
    }
}

/// The keyed container of ``LayoutRecorder``: every decode records an element.
private struct RecordingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: LayoutRecorder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try recorder.record(type, key.stringValue, optional: false)
    }

    // Every `decodeIfPresent` overload records an optional element: the protocol's default
    // ones would ask `decodeNil` and then `decode`, recording the element as required.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        _ = try recorder.record(type, key.stringValue, optional: true)
        return nil
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try recorder.record(type, key.stringValue, optional: false)
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try recorder.record(type, key.stringValue, optional: false)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        _ = try recorder.record(type, key.stringValue, optional: true); return nil
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> { throw NotComposite() }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw NotComposite() }
    func superDecoder() throws -> any Decoder { throw NotComposite() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw NotComposite() }
}
