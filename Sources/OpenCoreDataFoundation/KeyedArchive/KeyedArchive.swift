import Foundation
/// A read-only view of an `NSKeyedArchiver` archive, object by object, without
/// instantiating any class.
///
/// Compiled models and `Z_MODELCACHE` contents are keyed archives of Apple's model
/// classes. Reading them as data (class names, keys, references) instead of through an
/// unarchiver means no class has to exist for a name, and a damaged archive is an error.
package struct KeyedArchive {
    private let objects: [PropertyListValue]
    private let top: [String: PropertyListValue]

    package init(data: Data) throws {
        guard case let .dictionary(root) = try BinaryPropertyListReader(data).read() else {
            throw BinaryPropertyListError(description: "a keyed archive's top object must be a dictionary")
        }
        guard case let .array(objects)? = root["$objects"], case let .dictionary(top)? = root["$top"] else {
            throw BinaryPropertyListError(description: "not a keyed archive (no $objects or $top)")
        }
        self.objects = objects
        self.top = top
    }

    /// The object archived under `key` at the top level (`"root"` for models).
    package func topObject(forKey key: String) throws -> ArchivedValue {
        guard let value = top[key] else {
            throw BinaryPropertyListError(description: "the archive has no top-level '\(key)'")
        }
        return try resolve(value)
    }

    /// Follows a UID to the object it names; other values stand for themselves.
    package func resolve(_ value: PropertyListValue) throws -> ArchivedValue {
        guard case let .uid(index) = value else { return ArchivedValue(archive: self, value: value, objectIndex: nil) }
        guard index < UInt64(objects.count) else {
            throw BinaryPropertyListError(description: "reference to missing archived object \(index)")
        }
        if case .string("$null") = objects[Int(index)] {
            return ArchivedValue(archive: self, value: nil, objectIndex: nil)
        }
        return ArchivedValue(archive: self, value: objects[Int(index)], objectIndex: Int(index))
    }
}

/// One value of a keyed archive: a plain value, or an object with a class and keyed fields.
package struct ArchivedValue {
    package let archive: KeyedArchive
    /// `nil` for the archive's null object.
    package let value: PropertyListValue?
    /// Where the object sits in the archive, which identifies it: two references to one
    /// object (an entity as a destination and as a superentity) resolve to the same index.
    package let objectIndex: Int?

    private var fields: [String: PropertyListValue]? {
        if case let .dictionary(fields)? = value { return fields }
        return nil
    }

    package var isNull: Bool { value == nil }

    /// The object's class name (`$classname` of its `$class`), `nil` for plain values.
    package var className: String? {
        guard let reference = fields?["$class"], let info = try? archive.resolve(reference).fields,
            case let .string(name)? = info["$classname"]
        else { return nil }
        return name
    }

    /// The object's class followed by its superclasses (`$classes` of its `$class`), as
    /// the archiving process recorded them; empty for plain values.
    package var classChain: [String] {
        guard let reference = fields?["$class"], let info = try? archive.resolve(reference).fields,
            case let .array(names)? = info["$classes"]
        else { return className.map { [$0] } ?? [] }
        let chain = names.compactMap { name -> String? in
            if case let .string(text) = name { return text }
            return nil
        }
        // The class itself comes first even when `$classes` leaves it out or disagrees.
        guard let className else { return chain }
        return chain.first == className ? chain : [className] + chain
    }

    /// The first class of the object's ``classChain`` that `known` holds: an object of a
    /// class only its writer has (an editor's subclass of a framework class) reads as its
    /// nearest ancestor the reader knows; `nil` when no class of the chain is known.
    package func nearestClass(in known: Set<String>) -> String? {
        classChain.first { known.contains($0) }
    }

    /// Whether the object has a field named `key`.
    package func contains(_ key: String) -> Bool { fields?[key] != nil }

    /// The field `key`, resolved; `nil` when absent or null.
    package func field(_ key: String) throws -> ArchivedValue? {
        guard let raw = fields?[key] else { return nil }
        let resolved = try archive.resolve(raw)
        return resolved.isNull ? nil : resolved
    }

    package func string(_ key: String) throws -> String? { try field(key)?.stringValue }

    package func integer(_ key: String) throws -> Int64? {
        if case let .integer(number)? = try field(key)?.value { return number }
        return nil
    }

    package func bool(_ key: String) throws -> Bool? {
        switch try field(key)?.value {
        case let .bool(flag)?: return flag
        case let .integer(number)?: return number != 0
        default: return nil
        }
    }

    /// The value as a string: a plain string, or an archived `NSString` (`NS.string`).
    package var stringValue: String? {
        if case let .string(text)? = value { return text }
        if case let .string(text)? = fields?["NS.string"] { return text }
        return nil
    }

    /// The members of an archived array or set (`NS.objects`), resolved. Anything else
    /// is an error: a damaged collection must not read as an empty one.
    package func members() throws -> [ArchivedValue] {
        switch value {
        case let .array(items)?, let .set(items)?:
            return try items.map { try archive.resolve($0) }
        default:
            guard case let .array(items)? = fields?["NS.objects"], fields?["NS.keys"] == nil else {
                throw BinaryPropertyListError(
                    description: "expected an archived array or set, found \(className ?? "a plain value")")
            }
            return try items.map { try archive.resolve($0) }
        }
    }

    /// The entries of an archived dictionary (`NS.keys` and `NS.objects`), keys as strings.
    /// Anything else, or keys and values of different counts, is an error.
    package func entries() throws -> [(key: String, value: ArchivedValue)] {
        if fields?["searchMapping"] != nil { return try knownKeysEntries() }
        guard case let .array(keys)? = fields?["NS.keys"], case let .array(values)? = fields?["NS.objects"],
            keys.count == values.count
        else {
            throw BinaryPropertyListError(
                description:
                    "expected an archived dictionary (NS.keys and NS.objects of one length), found \(className ?? "a plain value")"
            )
        }
        return try zip(keys, values).map { key, value in
            guard let name = try archive.resolve(key).stringValue else {
                throw BinaryPropertyListError(description: "an archived dictionary key is not a string")
            }
            return (name, try archive.resolve(value))
        }
    }

    /// The entries of the dictionary class Core Data archives for a model's entities and
    /// properties (`NSKnownKeysDictionary1`): the keys are an array in the mapping object
    /// `searchMapping`, the values an array of the same length in `values`, and a slot
    /// holding the string `emptyToken` has no value.
    private func knownKeysEntries() throws -> [(key: String, value: ArchivedValue)] {
        guard let mapping = try field("searchMapping"), let keys = try mapping.field("keys")?.members(),
            let values = try field("values")?.members(), keys.count == values.count
        else {
            throw BinaryPropertyListError(
                description: "an archived \(className ?? "dictionary") has no keys and values of one length")
        }
        let emptyToken = try string("emptyToken")
        var entries: [(key: String, value: ArchivedValue)] = []
        for (key, value) in zip(keys, values) {
            guard let name = key.stringValue else {
                throw BinaryPropertyListError(description: "an archived dictionary key is not a string")
            }
            if let emptyToken, value.stringValue == emptyToken { continue }
            entries.append((name, value))
        }
        return entries
    }
}
