import Foundation
/// Converts values to other values, and back: Foundation's `ValueTransformer`, which
/// Foundation on Linux lacks. Transformable attributes store what a transformer makes.
open class ValueTransformer: NSObject, @unchecked Sendable {
    /// The class of the transformed value (informational).
    open class func transformedValueClass() -> AnyClass { NSData.self }
    /// Whether `reverseTransformedValue(_:)` is supported.
    open class func allowsReverseTransformation() -> Bool { true }
    /// The transformed form of `value`.
    open func transformedValue(_ value: Any?) -> Any? { value }
    /// The original form of a transformed value.
    open func reverseTransformedValue(_ value: Any?) -> Any? { value }

    private nonisolated(unsafe) static var registry: [NSValueTransformerName: ValueTransformer] = [:]
    private static let lock = NSLock()

    /// Registers a transformer under a name (the name a model's `valueTransformerName` uses).
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        lock.lock()
        defer { lock.unlock() }
        registry[name] = transformer
    }

    /// The transformer registered under `name`.
    public static func named(_ name: NSValueTransformerName) -> ValueTransformer? {
        lock.lock()
        defer { lock.unlock() }
        if let transformer = registry[name] { return transformer }
        if name == .secureUnarchiveFromDataTransformerName { return NSSecureUnarchiveFromDataTransformer() }
        return nil
    }

    /// Registered transformer names.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        lock.lock()
        defer { lock.unlock() }
        return Array(registry.keys)
    }
}

/// A value transformer's registered name.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    /// The name.
    public let rawValue: String
    /// A name from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A name from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The secure keyed-archiving transformer, Core Data's default for transformable attributes.
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
}

/// Stores property-list and `NSCoding` values as keyed archives, unarchiving securely.
///
/// Transformable attributes without a transformer name use it, as Core Data does.
/// Arrays, dictionaries, strings, numbers, dates and data round-trip.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer, @unchecked Sendable {
    /// Classes allowed at the top of an archive.
    open class var allowedTopLevelClasses: [AnyClass] {
        [
            NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
            NSURL.self, NSUUID.self, NSNull.self,
        ]
    }

    /// The object unarchived from `value` (keyed-archive `Data`), allowing only
    /// ``allowedTopLevelClasses``; `nil` for anything else. As the name says, the forward
    /// direction unarchives: Core Data reads stored values with it.
    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? NSKeyedUnarchiver.unarchivedObject(ofClasses: Self.allowedTopLevelClasses, from: data)
    }

    /// The keyed archive of `value` (Core Data stores values with this direction), or `nil`
    /// when it holds anything this transformer could not read back (a Swift struct, a class
    /// that is not `NSSecureCoding`, a class outside ``allowedTopLevelClasses``). Checked
    /// first because Foundation's archiver traps on such values instead of throwing, and an
    /// archive that cannot be read back would lose the value silently.
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value, isArchivable(value) else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
    }

    /// Whether `value` and everything it contains are property-list values or instances
    /// of the allowed classes that support secure coding. Containers nested deeper than
    /// any real value would be (or containing themselves) are refused, not recursed into.
    private func isArchivable(_ value: Any, depth: Int = 0) -> Bool {
        guard depth < 256 else { return false }
        let isElementArchivable = { (element: Any) in self.isArchivable(element, depth: depth + 1) }
        switch value {
        case is Decimal, is NSDecimalNumber:
            // Foundation on Linux recurses without end hashing a decimal number while
            // archiving it (checked before NSNumber, which it is a subclass of).
            return false
        case is String, is Data, is Date, is URL, is UUID, is Bool, is NSNull,
            is Int, is Int8, is Int16, is Int32, is Int64, is UInt, is UInt8, is UInt16, is UInt32, is UInt64,
            is Double, is Float, is NSString, is NSNumber, is NSData, is NSDate, is NSURL, is NSUUID:
            return true
        case let array as NSArray:
            return array.allSatisfy(isElementArchivable)
        case let set as NSSet:
            return set.allSatisfy(isElementArchivable)
        case let dictionary as NSDictionary:
            return dictionary.allSatisfy { isElementArchivable($0.key) && isElementArchivable($0.value) }
        case let array as [Any]:
            return array.allSatisfy(isElementArchivable)
        case let dictionary as [AnyHashable: Any]:
            return dictionary.allSatisfy { isElementArchivable($0.key.base) && isElementArchivable($0.value) }
        case let set as Set<AnyHashable>:
            return set.allSatisfy { isElementArchivable($0.base) }
        case let object as NSObject:
            guard type(of: object) is NSSecureCoding.Type,
                let coding = object as? NSSecureCoding, type(of: coding).supportsSecureCoding
            else { return false }
            return Self.allowedTopLevelClasses.contains { object.isKind(of: $0) }
        default:
            return false
        }
    }

}

/// Stores a `Codable` value as JSON. Register one per type under the model's transformer name:
/// `ValueTransformer.setValueTransformer(CodableValueTransformer<Point>(), forName: .init("PointTransformer"))`.
public final class CodableValueTransformer<Value: Codable>: ValueTransformer, @unchecked Sendable {
    public override init() { super.init() }

    public override func transformedValue(_ value: Any?) -> Any? {
        guard let value = value as? Value else { return nil }
        return try? JSONEncoder().encode(value)
    }

    public override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? JSONDecoder().decode(Value.self, from: data)
    }
}
