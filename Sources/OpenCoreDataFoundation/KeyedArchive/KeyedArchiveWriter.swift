import Foundation
/// Builds an `NSKeyedArchiver` archive object by object, the inverse of ``KeyedArchive``.
///
/// The archive is Apple's layout: a binary property list whose top dictionary has
/// `$archiver` (`"NSKeyedArchiver"`), `$version` (100000), `$top` (`{root: UID}`) and
/// `$objects`, a table whose first entry is the string `"$null"` and whose other entries
/// are plain values, objects (dictionaries of keyed fields with a `$class` UID) and class
/// descriptions (`$classname` and `$classes`, the class and its superclasses). Objects
/// refer to each other by UID, so an object can be reserved before its fields are known
/// (an entity and the properties that point back at it).
package struct KeyedArchiveWriter {
    /// The reference to the archive's null object, for absent fields.
    package static let null = PropertyListValue.uid(0)

    private var objects: [PropertyListValue] = [.string("$null")]
    private var classes: [String: PropertyListValue] = [:]
    private var strings: [String: PropertyListValue] = [:]

    package init() {}

    /// A slot for an object whose fields are filled later with ``fill(_:classChain:fields:)``.
    package mutating func reserve() -> PropertyListValue {
        objects.append(.dictionary([:]))
        return .uid(UInt64(objects.count - 1))
    }

    /// Fills a reserved slot with an object of the first class of `classChain` (followed
    /// by its superclasses, as `$classes` lists them).
    package mutating func fill(
        _ reference: PropertyListValue, classChain: [String], fields: [String: PropertyListValue]
    ) {
        guard case let .uid(index) = reference, index > 0, Int(index) < objects.count else { return }
        var fields = fields
        fields["$class"] = classReference(classChain)
        objects[Int(index)] = .dictionary(fields)
    }

    /// A new object of the first class of `classChain`.
    package mutating func object(classChain: [String], fields: [String: PropertyListValue]) -> PropertyListValue {
        let reference = reserve()
        fill(reference, classChain: classChain, fields: fields)
        return reference
    }

    /// A string, stored once however often it is referred to.
    package mutating func string(_ text: String) -> PropertyListValue {
        if let known = strings[text] { return known }
        objects.append(.string(text))
        let reference = PropertyListValue.uid(UInt64(objects.count - 1))
        strings[text] = reference
        return reference
    }

    /// A string, or the null object for `nil`.
    package mutating func optionalString(_ text: String?) -> PropertyListValue {
        text.map { string($0) } ?? Self.null
    }

    /// A plain value (number, Boolean, data, date) as an object of the table.
    package mutating func plain(_ value: PropertyListValue) -> PropertyListValue {
        if case let .string(text) = value { return string(text) }
        objects.append(value)
        return .uid(UInt64(objects.count - 1))
    }

    /// An `NSArray` (or the subclass `className` names) of `members`.
    package mutating func array(_ members: [PropertyListValue], className: String = "NSArray") -> PropertyListValue {
        object(classChain: Self.collectionChain(className), fields: ["NS.objects": .array(members)])
    }

    /// An `NSDictionary` (or the subclass `className` names) with string keys.
    package mutating func dictionary(
        _ entries: [(key: String, value: PropertyListValue)], className: String = "NSDictionary"
    ) -> PropertyListValue {
        let keys = entries.map { string($0.key) }
        return object(
            classChain: Self.collectionChain(className),
            fields: ["NS.keys": .array(keys), "NS.objects": .array(entries.map(\.value))])
    }

    /// The archive's bytes, `root` as its `$top` `root` object.
    package func data(root: PropertyListValue) -> Data {
        BinaryPropertyListWriter.data(
            for: .dictionary([
                "$archiver": .string("NSKeyedArchiver"),
                "$version": .integer(100_000),
                "$top": .dictionary(["root": root]),
                "$objects": .array(objects),
            ]))
    }

    private mutating func classReference(_ chain: [String]) -> PropertyListValue {
        let name = chain.first ?? "NSObject"
        if let known = classes[name] { return known }
        objects.append(.dictionary(["$classname": .string(name), "$classes": .array(chain.map { .string($0) })]))
        let reference = PropertyListValue.uid(UInt64(objects.count - 1))
        classes[name] = reference
        return reference
    }

    /// The superclasses of Foundation's collection classes, as `$classes` lists them.
    package static func collectionChain(_ className: String) -> [String] {
        switch className {
        case "NSMutableArray": ["NSMutableArray", "NSArray", "NSObject"]
        case "NSMutableSet": ["NSMutableSet", "NSSet", "NSObject"]
        case "NSMutableDictionary": ["NSMutableDictionary", "NSDictionary", "NSObject"]
        case "NSMutableOrderedSet": ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"]
        default: [className, "NSObject"]
        }
    }
}
