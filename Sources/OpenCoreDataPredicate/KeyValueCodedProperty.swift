internal import Synchronization

/// A member that key-value coding reaches by name: what `@KeyValueCoded` writes next to
/// a computed property or method, in place of marking it `@objc`.
///
/// Key-value coding on Apple platforms finds `@objc` members through the Objective-C
/// runtime. Without it, `@KeyValueCoded var firstInitial: String { … }` adds a nested
/// type named after the key that conforms to this protocol, and ``KeyValueCodedMembers``
/// finds that type by name through the Swift runtime. Write the macro, not conformances.
public protocol KeyValueCodedProperty {
    /// The member's value on `object`, or `nil` when `object` is not of the member's type.
    static func value(of object: Any) -> Any?
    /// Sets the member on `object`; `false` when it cannot be set (read-only, or a value
    /// of another type).
    static func setValue(_ value: Any?, of object: Any) -> Bool
}

extension KeyValueCodedProperty {
    /// A method is read, never set.
    public static func setValue(_ value: Any?, of object: Any) -> Bool { false }
}

/// A property that key-value coding reaches through its key path: read by any key path,
/// set when the key path is writable on a class.
public protocol KeyValueCodedKeyPath: KeyValueCodedProperty {
    /// The property's key path, rooted at the type that declares it.
    static var keyPath: AnyKeyPath { get }
}

extension KeyValueCodedKeyPath {
    /// Reads the property through its key path.
    public static func value(of object: Any) -> Any? {
        // Applying a key path to a value of another type gives nil, as wanted here.
        CollectionValue.unwrapNull(object[keyPath: keyPath])
    }

    /// Sets the property when its key path is writable on a class (`var` with a setter).
    public static func setValue(_ value: Any?, of object: Any) -> Bool {
        (keyPath as? any KeyValueCodedSettable)?.set(value, on: object) ?? false
    }
}

/// The writable key paths of classes, which set a value without knowing their types statically.
protocol KeyValueCodedSettable {
    func set(_ value: Any?, on object: Any) -> Bool
}

extension ReferenceWritableKeyPath: KeyValueCodedSettable {
    func set(_ value: Any?, on object: Any) -> Bool {
        guard let root = object as? Root else { return false }
        let typed: Value
        if let value = value as? Value {
            typed = value
        } else if value == nil, let none = Optional<Any>.none as? Value {
            typed = none
        } else {
            return false
        }
        root[keyPath: self] = typed
        return true
    }
}

/// Finds the members marked `@KeyValueCoded` of a value's type and its superclasses.
///
/// The macro names each nested type after its key; this builds that type's mangled name
/// from the owner's and asks the Swift runtime for it. Answers (including "none") are kept
/// per type and key, so a key is looked up once per type.
public enum KeyValueCodedMembers {
    private struct CacheKey: Hashable {
        let type: ObjectIdentifier
        let key: String
    }

    /// A found member or none; a metatype holds no state, so it crosses threads safely.
    private struct Found: @unchecked Sendable {
        let member: (any KeyValueCodedProperty.Type)?
    }

    private static let cache = Mutex<[CacheKey: Found]>([:])

    /// The member of `object`'s type (or a superclass) marked `@KeyValueCoded` for `key`.
    public static func member(forKey key: String, of object: Any) -> (any KeyValueCodedProperty.Type)? {
        let type = Swift.type(of: object)
        let cacheKey = CacheKey(type: ObjectIdentifier(type), key: key)
        if let cached = cache.withLock({ $0[cacheKey] }) { return cached.member }
        let found = lookUp(key, in: type)
        cache.withLock { $0[cacheKey] = Found(member: found) }
        return found
    }

    /// The value of `object`'s `@KeyValueCoded` member `key`: `.none` when it has none,
    /// numbers and Booleans as `NSNumber` as Apple's key-value coding returns them.
    public static func value(forKey key: String, of object: Any) -> Any?? {
        guard let member = member(forKey: key, of: object) else { return .none }
        return .some(NumberBoxing.boxed(CollectionValue.unwrapNull(member.value(of: object))))
    }

    /// Sets `object`'s `@KeyValueCoded` member `key`; `false` when it has none or it
    /// cannot take `value`.
    public static func setValue(_ value: Any?, forKey key: String, of object: Any) -> Bool {
        guard let member = member(forKey: key, of: object) else { return false }
        return member.setValue(value, of: object)
    }

    private static func lookUp(_ key: String, in type: Any.Type) -> (any KeyValueCodedProperty.Type)? {
        let name = nestedTypeName(forKey: key)
        let identifier = "\(name.utf8.count)\(name)"
        var current: Any.Type? = type
        while let owner = current {
            if let mangled = _mangledTypeName(owner),
                let member = _typeByName(mangled + identifier + "O") as? any KeyValueCodedProperty.Type
            {
                return member
            }
            current = (owner as? AnyClass).flatMap { _getSuperclass($0) }
        }
        return nil
    }

    /// The name `@KeyValueCoded` gives the nested type of `key` (the macro spells it the same way).
    static func nestedTypeName(forKey key: String) -> String {
        let plain = key.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
        return "__KeyValueCoded_" + (plain ? key : "x" + key.utf8.map { String($0, radix: 16) }.joined(separator: "_"))
    }
}
