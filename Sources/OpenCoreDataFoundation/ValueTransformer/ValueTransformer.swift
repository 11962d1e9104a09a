import Foundation
/// Converts values to other values, and back: Foundation's `ValueTransformer`, which
/// Foundation on Linux lacks. Transformable attributes store what a transformer makes.
open class ValueTransformer: NSObject, @unchecked Sendable, NamedValueTransformerLookup {
    /// The class of the transformed value (informational).
    open class func transformedValueClass() -> AnyClass { NSData.self }
    /// Whether `reverseTransformedValue(_:)` is supported.
    open class func allowsReverseTransformation() -> Bool { true }
    /// The transformed form of `value`.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The original form of a transformed value.
    ///
    /// This implementation applies ``transformedValue(_:)`` again, which is right for a
    /// transformation that is its own inverse (negation); a transformer whose reverse differs
    /// overrides it. Calling it on a transformer whose class does not allow reverse
    /// transformation is a programmer error and traps, as Foundation raises an exception.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        guard type(of: self).allowsReverseTransformation() else {
            preconditionFailure("\(type(of: self)) does not allow reverse transformation")
        }
        return transformedValue(value)
    }

    private nonisolated(unsafe) static var registry: [NSValueTransformerName: ValueTransformer] = [:]
    private static let lock = NSLock()

    /// Registers a transformer under a name (the name a model's `valueTransformerName` uses).
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        lock.lock()
        defer { lock.unlock() }
        registry[name] = transformer
    }

    /// The transformer registered under `name`, or the built-in one of that name.
    ///
    /// Foundation also looks `name` up as a class name and registers a new instance of that
    /// class; Swift can only make an instance from a class found at run time through a
    /// `required` initializer, which would oblige every subclass to declare `init()`, so
    /// register such transformers with ``setValueTransformer(_:forName:)`` (docs/DEVIATIONS.md).
    /// ``NamedValueTransformerLookup/init(forName:)`` is the spelling Foundation's API uses.
    public static func named(_ name: NSValueTransformerName) -> ValueTransformer? {
        lock.lock()
        defer { lock.unlock() }
        if let transformer = registry[name] { return transformer }
        return builtIns[name]?()
    }

    /// Registered transformer names, the built-in ones included.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        lock.lock()
        defer { lock.unlock() }
        return Array(Set(registry.keys).union(builtIns.keys))
    }

    /// The transformers Foundation registers before any code runs (its old non-keyed
    /// `NSUnarchiveFromData` excepted: Linux's Foundation cannot read that archive format),
    /// each made anew when looked up and not registered over: they hold no state.
    private static let builtIns: [NSValueTransformerName: @Sendable () -> ValueTransformer] = [
        .negateBooleanTransformerName: { NegateBooleanTransformer() },
        .isNilTransformerName: { IsNilTransformer(testsForNil: true) },
        .isNotNilTransformerName: { IsNilTransformer(testsForNil: false) },
        .keyedUnarchiveFromDataTransformerName: { KeyedUnarchiveFromDataTransformer() },
        .secureUnarchiveFromDataTransformerName: { NSSecureUnarchiveFromDataTransformer() },
    ]
}

/// Gives ``ValueTransformer`` Foundation's `init?(forName:)`.
///
/// Foundation's initializer returns the registered instance, which a Swift class
/// initializer cannot do; an initializer in an extension of a protocol that is not
/// class-bound can (it assigns `self`). Only ``ValueTransformer`` adopts it.
public protocol NamedValueTransformerLookup {}

extension NamedValueTransformerLookup {
    /// The transformer registered under `name` (or the built-in one of that name), or `nil`
    /// when there is none or it is not an instance of the class this is called on.
    public init?(forName name: NSValueTransformerName) {
        guard let transformer = ValueTransformer.named(name) as? Self else { return nil }
        self = transformer
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
    /// Negates a Boolean `NSNumber`, both ways.
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")
    /// Answers whether the value is `nil`, as a Boolean `NSNumber` (one way only).
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")
    /// Answers whether the value is not `nil`, as a Boolean `NSNumber` (one way only).
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")
    /// Unarchives keyed archives without the secure-coding check, and archives in reverse.
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    /// Foundation's transformer for its old non-keyed archives. Nothing is registered under
    /// this name here: Linux's Foundation has no non-keyed archiver.
    public static let unarchiveFromDataTransformerName = NSValueTransformerName("NSUnarchiveFromData")
}

/// A transformer that unarchives going forward, so Core Data stores through its reverse
/// direction (the default transformer, its subclasses, and the keyed one).
package protocol UnarchivingValueTransformer: ValueTransformer {}

/// `NSNegateBoolean`: a Boolean number to its negation; its own inverse.
private final class NegateBooleanTransformer: ValueTransformer, @unchecked Sendable {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let number = value as? NSNumber else { return nil }
        return NSNumber(value: !number.boolValue)
    }
}

/// `NSIsNil` and `NSIsNotNil`: whether a value is there, as a Boolean number.
private final class IsNilTransformer: ValueTransformer, @unchecked Sendable {
    private let testsForNil: Bool
    init(testsForNil: Bool) {
        self.testsForNil = testsForNil
        super.init()
    }
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { false }
    override func transformedValue(_ value: Any?) -> Any? {
        // Only a missing value is nil: an NSNull is an object, as in Foundation.
        NSNumber(value: (value == nil) == testsForNil)
    }
}

/// `NSKeyedUnarchiveFromData`: any keyed archive to its object, no class list checked;
/// archives in reverse. Kept for old models that name it.
private final class KeyedUnarchiveFromDataTransformer: ValueTransformer, UnarchivingValueTransformer,
    @unchecked Sendable
{
    override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else {
            return nil
        }
        unarchiver.requiresSecureCoding = false
        defer { unarchiver.finishDecoding() }
        return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false)
    }
}

/// Stores property-list and `NSCoding` values as keyed archives, unarchiving securely.
///
/// Transformable attributes without a transformer name use it, as Core Data does.
/// Arrays, dictionaries, strings, numbers, dates and data round-trip.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer, UnarchivingValueTransformer, @unchecked Sendable {
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
