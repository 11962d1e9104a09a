/// The primitives of the Binary store's file format: little-endian integers, IEEE
/// doubles by bit pattern, length-prefixed bytes and strings, and attribute values
/// tagged with their kind, so a file reads back without the model that wrote it.
struct BinaryStoreEncoder {
    private(set) var data = Data()

    mutating func append(_ value: UInt8) { data.append(value) }

    mutating func append(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func append(_ value: Int64) { append(UInt64(bitPattern: value)) }

    mutating func append(_ value: Double) { append(value.bitPattern) }

    mutating func append(bytes: Data) {
        append(UInt64(bytes.count))
        data.append(bytes)
    }

    mutating func append(_ text: String) { append(bytes: Data(text.utf8)) }

    /// One attribute value of `attribute`, in its stored form (see `AttributeValue`), tagged.
    mutating func append(value: Any?, of attribute: NSAttributeDescription) throws {
        guard let value, !(value is NSNull) else {
            append(BinaryValueTag.none.rawValue)
            return
        }
        let type = attribute.attributeType
        if type == .transformableAttributeType {
            append(BinaryValueTag.transformed.rawValue)
            append(bytes: try ValueTransformerRegistry.encode(value, transformerName: attribute.valueTransformerName))
            return
        }
        guard let stored = AttributeValue.coerce(value, to: attribute) else {
            throw CoreDataError.make(
                NSManagedObjectValidationError,
                "Cannot store a \(Swift.type(of: value)) in the \(type.displayName) attribute '\(attribute.name)' of a Binary store",
                [NSValidationKeyErrorKey: attribute.name])
        }
        switch stored {
        case let v as Int16: append(BinaryValueTag.integer.rawValue); append(Int64(v))
        case let v as Int32: append(BinaryValueTag.integer.rawValue); append(Int64(v))
        case let v as Int64: append(BinaryValueTag.integer.rawValue); append(v)
        case let v as Bool: append(BinaryValueTag.boolean.rawValue); append(UInt8(v ? 1 : 0))
        case let v as Double: append(BinaryValueTag.double.rawValue); append(v)
        case let v as Float: append(BinaryValueTag.float.rawValue); append(UInt32(v.bitPattern))
        case let v as Decimal: append(BinaryValueTag.decimal.rawValue); append(v.description)
        case let v as String: append(BinaryValueTag.string.rawValue); append(v)
        case let v as Date: append(BinaryValueTag.date.rawValue); append(v.timeIntervalSinceReferenceDate)
        case let v as Data: append(BinaryValueTag.data.rawValue); append(bytes: v)
        case let v as UUID:
            append(BinaryValueTag.uuid.rawValue); withUnsafeBytes(of: v.uuid) { data.append(contentsOf: $0) }
        case let v as URL: append(BinaryValueTag.url.rawValue); append(v.absoluteString)
        case let v as NSManagedObjectID:
            append(BinaryValueTag.objectURI.rawValue); append(v.uriRepresentation().absoluteString)
        case let v as [String: Any] where attribute is NSCompositeAttributeDescription:
            // A composite: its elements by name, each tagged as an attribute of the element's type.
            let composite = attribute as! NSCompositeAttributeDescription
            append(BinaryValueTag.composite.rawValue)
            append(UInt64(v.count))
            for key in v.keys.sorted() {
                guard let element = composite.elements.first(where: { $0.name == key }) else { continue }
                append(key)
                try append(value: v[key], of: element)
            }
        default:
            throw CoreDataError.make(
                NSManagedObjectValidationError,
                "A Binary store cannot write the \(type.displayName) attribute '\(attribute.name)' (a \(Swift.type(of: stored)))",
                [NSValidationKeyErrorKey: attribute.name])
        }
    }
}

/// What kind of value follows in a Binary store file.
enum BinaryValueTag: UInt8 {
    case none = 0
    case integer = 1
    case double = 2
    case boolean = 3
    case string = 4
    case data = 5
    case date = 6
    case uuid = 7
    case url = 8
    case decimal = 9
    case float = 10
    /// A transformable attribute's value as its transformer wrote it.
    case transformed = 11
    /// An object ID attribute, as its URI.
    case objectURI = 12
    /// A composite attribute's dictionary: a count, then each element's name and tagged value.
    case composite = 13
}

/// Reads the primitives of ``BinaryStoreEncoder`` back, refusing to read past the end:
/// a truncated or damaged file throws ``BinaryStoreDamage``, never traps.
struct BinaryStoreDecoder {
    private let data: Data
    private(set) var offset: Int
    /// How many composite values the value being read is inside.
    private var compositeDepth = 0

    init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    var isAtEnd: Bool { offset == data.endIndex }

    private mutating func take(_ count: Int) throws -> Data {
        guard count >= 0, data.endIndex - offset >= count else {
            throw BinaryStoreDamage(
                "it ends \(count - (data.endIndex - offset)) bytes early, at byte \(offset - data.startIndex)")
        }
        defer { offset += count }
        return data[offset..<offset + count]
    }

    mutating func byte() throws -> UInt8 { try take(1).first! }

    mutating func uint32() throws -> UInt32 {
        try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64() throws -> UInt64 {
        try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func int64() throws -> Int64 { Int64(bitPattern: try uint64()) }

    mutating func double() throws -> Double { Double(bitPattern: try uint64()) }

    mutating func bytes() throws -> Data {
        let count = try uint64()
        guard count <= UInt64(data.endIndex - offset) else {
            throw BinaryStoreDamage(
                "a value claims \(count) bytes where \(data.endIndex - offset) remain, at byte \(offset - data.startIndex)"
            )
        }
        return Data(try take(Int(count)))
    }

    mutating func string() throws -> String {
        let bytes = try bytes()
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw BinaryStoreDamage("a string is not UTF-8, before byte \(offset - data.startIndex)")
        }
        return text
    }

    /// A count of items that each take at least `minimumSize` bytes: a damaged count
    /// larger than the rest of the file could hold is refused before anything is reserved.
    mutating func count(minimumSize: Int) throws -> Int {
        let count = try uint64()
        guard count <= UInt64((data.endIndex - offset) / max(minimumSize, 1)) else {
            throw BinaryStoreDamage(
                "a count of \(count) items does not fit in the \(data.endIndex - offset) bytes left, at byte \(offset - data.startIndex)"
            )
        }
        return Int(count)
    }

    /// One tagged attribute value, decoded for `attribute` (transformable values through
    /// its transformer) or, without an attribute, as stored.
    mutating func value(for attribute: NSAttributeDescription?) throws -> Any? {
        let tag = try byte()
        guard let kind = BinaryValueTag(rawValue: tag) else {
            throw BinaryStoreDamage("unknown value tag \(tag) at byte \(offset - data.startIndex - 1)")
        }
        switch kind {
        case .none: return nil
        case .integer: return try int64()
        case .double: return try double()
        case .boolean: return try byte() != 0
        case .float: return Float(bitPattern: try uint32())
        case .string: return try string()
        case .data: return try bytes()
        case .date: return Date(timeIntervalSinceReferenceDate: try double())
        case .uuid:
            let bytes = try take(16)
            return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case .url:
            let text = try string()
            guard let url = URL(string: text) else { throw BinaryStoreDamage("'\(text)' is not a URL") }
            return url
        case .decimal:
            let text = try string()
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw BinaryStoreDamage("'\(text)' is not a decimal number")
            }
            return decimal
        case .transformed:
            let bytes = try bytes()
            // A value no transformer can read must stop the load: each save rewrites the
            // whole file, so skipping it would erase it at the next save.
            guard let value = ValueTransformerRegistry.decode(bytes, transformerName: attribute?.valueTransformerName)
            else {
                throw BinaryStoreDamage(
                    "no value transformer (\(attribute?.valueTransformerName ?? "the default") registered?) reads the value of attribute '\(attribute?.name ?? "?")'"
                )
            }
            return value
        case .objectURI:
            return URL(string: try string())
        case .composite:
            // Each element takes at least a name length (8 bytes) and a tag.
            guard compositeDepth < CompositeValue.maximumDepth else {
                throw BinaryStoreDamage("composite values nest too deeply, at byte \(offset - data.startIndex)")
            }
            compositeDepth += 1
            defer { compositeDepth -= 1 }
            let count = try count(minimumSize: 9)
            let composite = attribute as? NSCompositeAttributeDescription
            var result: [String: Any] = [:]
            for _ in 0..<count {
                let key = try string()
                let element = composite?.elements.first { $0.name == key }
                if let value = try self.value(for: element) { result[key] = value }
            }
            return result
        }
    }
}

/// Why a Binary store file could not be read: what was wrong, and where.
struct BinaryStoreDamage: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
