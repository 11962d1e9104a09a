import OpenCoreData

/// Reads and writes one persisted property of a Core Data object as the property's declared
/// Swift type, `Value`.
///
/// Each ``ModelProperty`` makes one, for its type, when its model's table is made; `@Model`'s
/// generic accessors then reach it with a class downcast instead of casting values through
/// `Any`. This base class takes the general path (key-value coding and the value codec: enums,
/// composites, relationships); its subclasses move Swift's primitive types straight between
/// the model and the object's slot.
class PropertyAccessor<Value>: AnyPropertyAccessor, @unchecked Sendable {
    override func writePending(_ value: Any, _ property: ModelProperty, to object: SwiftDataManagedObject, slot: Int) {
        // Only a slot is worth the cast back to `Value`; the general path takes `Any` as it is.
        guard slot >= 0 else { return super.writePending(value, property, to: object, slot: slot) }
        write(value as! Value, property, to: object, slot: slot)
    }

    /// The value of `property` in `object`; `slot` is the property's slot in `object`'s entity,
    /// or `-1` where the general path must be taken.
    func read(_ property: ModelProperty, from object: SwiftDataManagedObject, slot: Int) -> Value {
        property.read(from: object) as! Value
    }

    /// Writes `value` as `property` of `object`.
    func write(_ value: Value, _ property: ModelProperty, to object: SwiftDataManagedObject, slot: Int) {
        property.write(value, to: object)
    }

    /// Whether `value`, of an optional property, is `nil`. The generic test needs a dynamic
    /// cast; accessors of optional primitives override it with a plain comparison.
    func isNil(_ value: Value) -> Bool {
        (value as? any OptionalValue).map { $0.wrappedValue == nil } ?? false
    }
}

/// What code that knows a property's type only at run time calls: see ``PropertyAccessor``.
class AnyPropertyAccessor: @unchecked Sendable {
    /// Writes a value set before the model was inserted, kept as `Any` until then.
    func writePending(_ value: Any, _ property: ModelProperty, to object: SwiftDataManagedObject, slot: Int) {
        property.write(value, to: object)
    }
}

/// A non-optional primitive (`Int`, `String`, `Date`, ...), through its slot.
///
/// The work is done by `Value`'s own (specialized) functions: generic code here only forwards,
/// as moving a `Value?` in generic code costs a type metadata lookup each time.
final class PrimitiveAccessor<Value: SwiftDataPrimitive>: PropertyAccessor<Value>, @unchecked Sendable {
    override func read(_ property: ModelProperty, from object: SwiftDataManagedObject, slot: Int) -> Value {
        guard slot >= 0 else { return super.read(property, from: object, slot: slot) }
        return Value.readSlot(of: property, in: object, slot: slot)
    }

    override func write(_ value: Value, _ property: ModelProperty, to object: SwiftDataManagedObject, slot: Int) {
        guard slot >= 0 else { return super.write(value, property, to: object, slot: slot) }
        Value.writeSlot(value, of: property, in: object, slot: slot)
    }
}

/// An optional primitive (`String?`, `Date?`, ...), through its slot.
final class OptionalPrimitiveAccessor<Wrapped: SwiftDataPrimitive>: PropertyAccessor<Wrapped?>, @unchecked Sendable {
    override func read(_ property: ModelProperty, from object: SwiftDataManagedObject, slot: Int) -> Wrapped? {
        guard slot >= 0 else { return super.read(property, from: object, slot: slot) }
        return Wrapped.readOptionalSlot(of: property, in: object, slot: slot)
    }

    override func write(_ value: Wrapped?, _ property: ModelProperty, to object: SwiftDataManagedObject, slot: Int) {
        guard slot >= 0 else { return super.write(value, property, to: object, slot: slot) }
        Wrapped.writeOptionalSlot(value, of: property, in: object, slot: slot)
    }

    override func isNil(_ value: Wrapped?) -> Bool { value == nil }
}

extension SwiftDataPrimitive {
    // Called through the protocol's witnesses, which the compiler specializes for each
    // conforming type; see PrimitiveAccessor.

    /// The value of the non-optional `property` in `slot` of `object`.
    static func readSlot(of property: ModelProperty, in object: SwiftDataManagedObject, slot: Int) -> Self {
        guard let stored = Stored.read(from: object, slot: slot, key: property.name) else {
            return property.read(from: object) as! Self
        }
        guard let stored else { return property.absentValue() as! Self }
        return fromNative(stored)
    }

    /// The value of the optional `property` in `slot` of `object`.
    static func readOptionalSlot(of property: ModelProperty, in object: SwiftDataManagedObject, slot: Int) -> Self? {
        guard let stored = Stored.read(from: object, slot: slot, key: property.name) else {
            return property.read(from: object) as! Self?
        }
        return stored.map(fromNative)
    }

    /// Writes the non-optional `property`.
    static func writeSlot(_ value: Self, of property: ModelProperty, in object: SwiftDataManagedObject, slot: Int) {
        Stored.write(value.nativeStored, to: object, slot: slot, key: property.name)
    }

    /// Writes the optional `property`.
    static func writeOptionalSlot(
        _ value: Self?, of property: ModelProperty, in object: SwiftDataManagedObject, slot: Int
    ) {
        Stored.write(value.map { $0.nativeStored }, to: object, slot: slot, key: property.name)
    }
}

extension ModelProperty {
    /// The accessor of a property of type `type`.
    static func accessor(for type: Any.Type) -> AnyPropertyAccessor {
        if let primitive = type as? any SwiftDataPrimitive.Type, primitive.storesNatively {
            return primitiveAccessor(primitive)
        }
        if let optional = type as? any OptionalValue.Type,
            let primitive = optional.wrappedType as? any SwiftDataPrimitive.Type, primitive.storesNatively
        {
            return optionalPrimitiveAccessor(primitive)
        }
        return generalAccessor(type)
    }

    private static func primitiveAccessor<P: SwiftDataPrimitive>(_: P.Type) -> AnyPropertyAccessor {
        PrimitiveAccessor<P>()
    }
    private static func optionalPrimitiveAccessor<P: SwiftDataPrimitive>(_: P.Type) -> AnyPropertyAccessor {
        OptionalPrimitiveAccessor<P>()
    }
    /// Values of other types take the general path, which needs no typed accessor.
    private static func generalAccessor<T>(_: T.Type) -> AnyPropertyAccessor { PropertyAccessor<T>() }
}
