// The entry points `@Managed` expands to. They are public because the expansion is
// compiled in the app's module; apps call the properties, never these. Their leading
// underscore keeps them out of the documentation: symbol graphs skip underscored names.

extension NSManagedObject {
    /// Reads `key` as `T` (the declared type of a `@Managed` property).
    ///
    /// A missing value reads as `nil` for optionals and zero/`false` for numbers and
    /// Booleans (Core Data's scalar accessors do the same). Declaring a property with a
    /// type that cannot hold the attribute is a programmer error that traps with both types named.
    public func _managedValue<T>(forKey key: String) -> T {
        managedGenericValue(forKey: key)
    }

    // Concrete overloads for the attribute types' own Swift types. Swift picks them
    // over the generic one for properties declared with these types; they read the
    // stored value with one cast where the generic path goes through type metadata.

    /// Reads a `String?` attribute.
    public func _managedValue(forKey key: String) -> String? { nativeValue(key) ?? managedGenericValue(forKey: key) }
    /// Reads a `Date?` attribute.
    public func _managedValue(forKey key: String) -> Date? { nativeValue(key) ?? managedGenericValue(forKey: key) }
    /// Reads a `Data?` attribute.
    public func _managedValue(forKey key: String) -> Data? { nativeValue(key) ?? managedGenericValue(forKey: key) }
    /// Reads a `UUID?` attribute.
    public func _managedValue(forKey key: String) -> UUID? { nativeValue(key) ?? managedGenericValue(forKey: key) }
    /// Reads an `Int16` attribute.
    public func _managedValue(forKey key: String) -> Int16 {
        nativeValue(key).map { $0 ?? 0 } ?? managedGenericValue(forKey: key)
    }
    /// Reads an `Int32` attribute.
    public func _managedValue(forKey key: String) -> Int32 {
        nativeValue(key).map { $0 ?? 0 } ?? managedGenericValue(forKey: key)
    }
    /// Reads an `Int64` attribute.
    public func _managedValue(forKey key: String) -> Int64 {
        nativeValue(key).map { $0 ?? 0 } ?? managedGenericValue(forKey: key)
    }
    /// Reads a `Double` attribute.
    public func _managedValue(forKey key: String) -> Double {
        nativeValue(key).map { $0 ?? 0 } ?? managedGenericValue(forKey: key)
    }
    /// Reads a `Float` attribute.
    public func _managedValue(forKey key: String) -> Float {
        nativeValue(key).map { $0 ?? 0 } ?? managedGenericValue(forKey: key)
    }
    /// Reads a `Bool` attribute.
    public func _managedValue(forKey key: String) -> Bool {
        nativeValue(key).map { $0 ?? false } ?? managedGenericValue(forKey: key)
    }

    /// The stored value of attribute `key` when it is stored as `V` (`.some(nil)` when
    /// absent); `nil` sends the caller down the generic path (relationships, other types).
    private func nativeValue<V>(_ key: String) -> V?? {
        let facts = entityFacts
        guard let slot = facts.propertiesByName.slot(named: key), facts.slotFacts[slot].kind == .attribute else {
            return nil
        }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        return storage.native(slot, as: V.self)
    }

    /// The generic read: conversions, relationships, and the traps for mismatched declarations.
    /// A primitive read skips the access hooks (firing a fault is all it does first).
    private func managedGenericValue<T>(forKey key: String, primitive: Bool = false) -> T {
        guard let property = entityFacts.propertiesByName[key] else {
            // A key path being named (see KeyPathNaming) reads its keys on a probe object.
            if let probed = KeyPathNaming.probeValue(self, key: key, as: T.self) { return probed }
            missingProperty(key)
        }
        if primitive { fireFaultIfNeeded() } else { willAccessValue(forKey: key) }
        defer { if !primitive { didAccessValue(forKey: key) } }
        if let relationship = property as? NSRelationshipDescription {
            registerDeclaredClass(T.self, for: relationship)
            if relationship.isToMany {
                return ManagedTypeConversion.collection(
                    Array(toMany(relationship).members), ordered: relationship.isOrdered, as: T.self, key: key)
            }
            guard let object = toOne(relationship) else { return ManagedTypeConversion.absent(T.self, key: key) }
            if let typed = object as? T { return typed }
            preconditionFailure(
                "@Managed property '\(key)' is declared \(T.self), but the related object is a \(type(of: object))")
        }
        guard let stored = storage[property.slot] else { return ManagedTypeConversion.absent(T.self, key: key) }
        let type = (property as? NSAttributeDescription)?.attributeType ?? .undefinedAttributeType
        // A composite reads as key-value coding gives it (numbers as NSNumber), not in its stored form.
        if type == .compositeAttributeType, let converted = AttributeValue.publicValue(stored, type: type) as? T {
            return converted
        }
        if let typed = stored as? T { return typed }
        if let converted = AttributeValue.publicValue(stored, type: type) as? T { return converted }
        preconditionFailure(
            "@Managed property '\(key)' is declared \(T.self), but its attribute holds \(Swift.type(of: stored))")
    }

    /// Writes an optional property's value: unwrapped here, so the value needs no
    /// run-time check for a hidden `Optional` on its way in.
    public func _setManagedValue<T>(_ value: T?, forKey key: String) {
        let property = managedProperty(key)
        if let relationship = property as? NSRelationshipDescription {
            registerDeclaredClass(T.self, for: relationship)
        }
        assign(value.map { $0 as Any }, to: property, maintainingInverse: true)
    }

    /// Writes `value` to `key`, with the same conversions and inverse maintenance as `setValue(_:forKey:)`.
    public func _setManagedValue<T>(_ value: T, forKey key: String) {
        let property = managedProperty(key)
        if let relationship = property as? NSRelationshipDescription {
            registerDeclaredClass(T.self, for: relationship)
        }
        assign(value, to: property, maintainingInverse: true)
    }

    // MARK: Primitive accessors (`@Managed var primitiveUpdatedAt`)

    /// Reads `key` without `willAccessValue`/`didAccessValue`, for a `primitive<Key>` property.
    public func _managedPrimitiveValue<T>(forKey key: String) -> T {
        managedGenericValue(forKey: key, primitive: true)
    }

    /// Writes an optional `key` without the change hooks or inverse maintenance, as
    /// `setPrimitiveValue(_:forKey:)`; the change is still recorded for the next save.
    public func _setManagedPrimitiveValue<T>(_ value: T?, forKey key: String) {
        setPrimitiveValue(value.map { $0 as Any }, forKey: key)
    }

    /// Writes `key` without the change hooks or inverse maintenance, as `setPrimitiveValue(_:forKey:)`.
    public func _setManagedPrimitiveValue<T>(_ value: T, forKey key: String) {
        setPrimitiveValue(value, forKey: key)
    }

    // Concrete setter overloads, as for reads: a value of the attribute's own stored
    // type goes straight into its slot, with no coercion and no run-time casts.

    /// Writes a `String?` attribute.
    public func _setManagedValue(_ value: String?, forKey key: String) { setNative(value, .stringAttributeType, key) }
    /// Writes a `Date?` attribute.
    public func _setManagedValue(_ value: Date?, forKey key: String) { setNative(value, .dateAttributeType, key) }
    /// Writes a `Data?` attribute.
    public func _setManagedValue(_ value: Data?, forKey key: String) { setNative(value, .binaryDataAttributeType, key) }
    /// Writes a `UUID?` attribute.
    public func _setManagedValue(_ value: UUID?, forKey key: String) { setNative(value, .UUIDAttributeType, key) }
    /// Writes an `Int16` attribute.
    public func _setManagedValue(_ value: Int16, forKey key: String) { setNative(value, .integer16AttributeType, key) }
    /// Writes an `Int32` attribute.
    public func _setManagedValue(_ value: Int32, forKey key: String) { setNative(value, .integer32AttributeType, key) }
    /// Writes an `Int64` attribute.
    public func _setManagedValue(_ value: Int64, forKey key: String) { setNative(value, .integer64AttributeType, key) }
    /// Writes a `Double` attribute.
    public func _setManagedValue(_ value: Double, forKey key: String) { setNative(value, .doubleAttributeType, key) }
    /// Writes a `Float` attribute.
    public func _setManagedValue(_ value: Float, forKey key: String) { setNative(value, .floatAttributeType, key) }
    /// Writes a `Bool` attribute.
    public func _setManagedValue(_ value: Bool, forKey key: String) { setNative(value, .booleanAttributeType, key) }

    /// Stores `value` (of `type`'s stored Swift type, or `nil`) when `key` is an
    /// attribute of exactly that type; anything else takes the general path.
    private func setNative<V>(_ value: V?, _ type: NSAttributeType, _ key: String) {
        let facts = entityFacts
        guard let slot = facts.propertiesByName.slot(named: key),
            facts.slotFacts[slot].kind == .attribute, facts.slotFacts[slot].attributeType == type
        else {
            assign(value.map { $0 as Any }, to: managedProperty(key), maintainingInverse: true)
            return
        }
        setAttribute(slot: slot, key: key, value)
    }

    /// Body of a generated `addTo<Key>(_:)` for one object.
    public func _managedAdd(_ value: NSManagedObject, toRelationship key: String) {
        addToMany(managedRelationship(key), value)
    }

    /// Body of a generated `addTo<Key>(_:)` for a set of objects.
    public func _managedAdd(_ values: NSSet, toRelationship key: String) {
        addAll(values, toRelationship: key)
    }

    /// Body of a generated `addTo<Key>(_:)` for an ordered set of objects.
    public func _managedAdd(_ values: NSOrderedSet, toRelationship key: String) {
        addAll(values, toRelationship: key)
    }

    /// Body of a generated `addTo<Key>(_:)` for a Swift collection of objects.
    public func _managedAdd<S: Sequence>(_ values: S, toRelationship key: String) where S.Element: NSManagedObject {
        let relationship = managedRelationship(key)
        for object in values { addToMany(relationship, object) }
    }

    /// Body of a generated `removeFrom<Key>(_:)` for one object.
    public func _managedRemove(_ value: NSManagedObject, fromRelationship key: String) {
        removeFromToMany(managedRelationship(key), value)
    }

    /// Body of a generated `removeFrom<Key>(_:)` for a set of objects.
    public func _managedRemove(_ values: NSSet, fromRelationship key: String) {
        removeAll(values, fromRelationship: key)
    }

    /// Body of a generated `removeFrom<Key>(_:)` for an ordered set of objects.
    public func _managedRemove(_ values: NSOrderedSet, fromRelationship key: String) {
        removeAll(values, fromRelationship: key)
    }

    /// Body of a generated `removeFrom<Key>(_:)` for a Swift collection of objects.
    public func _managedRemove<S: Sequence>(_ values: S, fromRelationship key: String)
    where S.Element: NSManagedObject {
        let relationship = managedRelationship(key)
        for object in values { removeFromToMany(relationship, object) }
    }

    /// Body of a generated `removeFrom<Key>(at:)` for one index of an ordered relationship.
    public func _managedRemove(at index: Int, fromRelationship key: String) {
        let relationship = managedRelationship(key)
        let members = toMany(relationship).members
        guard members.indices.contains(index) else {
            preconditionFailure("removeFrom\(key)(at: \(index)): index out of range 0..<\(members.count)")
        }
        removeFromToMany(relationship, members[index])
    }

    /// Body of a generated `removeFrom<Key>(at:)` for several indexes.
    public func _managedRemove(at indexes: NSIndexSet, fromRelationship key: String) {
        let relationship = managedRelationship(key)
        let members = toMany(relationship).members
        let doomed = indexes.compactMap { members.indices.contains($0) ? members[$0] : nil }
        for object in doomed { removeFromToMany(relationship, object) }
    }

    /// Body of a generated `insertInto<Key>(_:at:)` for one object.
    public func _managedInsert(_ value: NSManagedObject, at index: Int, intoRelationship key: String) {
        addToMany(managedRelationship(key), value, at: index)
    }

    /// Body of a generated `insertInto<Key>(_:at:)` for several objects at several indexes.
    public func _managedInsert(_ values: [NSManagedObject], at indexes: NSIndexSet, intoRelationship key: String) {
        let relationship = managedRelationship(key)
        for (object, index) in zip(values, indexes) { addToMany(relationship, object, at: index) }
    }

    /// Body of a generated `replace<Key>(at:with:)` for one index.
    public func _managedReplace(at index: Int, with value: NSManagedObject, inRelationship key: String) {
        let relationship = managedRelationship(key)
        var objects = Array(toMany(relationship).members)
        guard objects.indices.contains(index) else {
            preconditionFailure("replace\(key)(at: \(index)): index out of range 0..<\(objects.count)")
        }
        objects[index] = value
        setToMany(relationship, objects)
    }

    /// Body of a generated `replace<Key>(at:with:)` for several indexes.
    public func _managedReplace(at indexes: NSIndexSet, with values: [NSManagedObject], inRelationship key: String) {
        let relationship = managedRelationship(key)
        var objects = Array(toMany(relationship).members)
        for (index, object) in zip(indexes, values) where objects.indices.contains(index) { objects[index] = object }
        setToMany(relationship, objects)
    }

    // MARK: Helpers

    private func addAll(_ values: Any, toRelationship key: String) {
        let relationship = managedRelationship(key)
        for object in Self.managedObjects(in: values) ?? [] { addToMany(relationship, object) }
    }

    private func removeAll(_ values: Any, fromRelationship key: String) {
        let relationship = managedRelationship(key)
        for object in Self.managedObjects(in: values) ?? [] { removeFromToMany(relationship, object) }
    }

    /// The property a `@Managed` declaration names; a name the entity lacks traps (a
    /// class that does not match its entity, which Core Data also cannot run).
    private func managedProperty(_ key: String) -> NSPropertyDescription {
        guard let property = entityFacts.propertiesByName[key] else { missingProperty(key) }
        return property
    }

    private func missingProperty(_ key: String) -> Never {
        preconditionFailure(
            "@Managed property '\(key)' of \(type(of: self)) has no matching property in entity '\(entity.name ?? "?")'"
        )
    }

    /// The to-many relationship named in a generated accessor (`People` → `people`).
    private func managedRelationship(_ key: String) -> NSRelationshipDescription {
        let properties = entityFacts.propertiesByName
        let lowered = key.prefix(1).lowercased() + key.dropFirst()
        guard let relationship = (properties[key] ?? properties[lowered]) as? NSRelationshipDescription,
            relationship.isToMany
        else {
            preconditionFailure("\(type(of: self)) has no to-many relationship '\(lowered)' for its generated accessor")
        }
        return relationship
    }

    /// Teaches the class registry the class a `@Managed` relationship declares, so its
    /// destination objects are created with that class.
    private func registerDeclaredClass<T>(_ type: T.Type, for relationship: NSRelationshipDescription) {
        guard let objectClass = ManagedTypeConversion.objectClass(in: type),
            let destination = relationship.destinationEntity
        else { return }
        destination.facts.noteInstantiated(objectClass, entity: destination)
    }
}

/// Conversions from stored values to the types `@Managed` properties declare.
enum ManagedTypeConversion {
    /// The value a property of type `T` reads when nothing is stored.
    static func absent<T>(_ type: T.Type, key: String) -> T {
        if let optional = type as? ManagedOptional.Type { return optional.none as! T }
        if let scalar = type as? ManagedScalar.Type { return scalar.zero as! T }
        preconditionFailure(
            "@Managed property '\(key)' of non-optional type \(T.self) has no value; declare it optional")
    }

    /// The members of a to-many relationship as `T` (`NSSet`, `NSOrderedSet`, `Set<X>`, `[X]`, optional or not).
    static func collection<T>(_ members: [NSManagedObject], ordered: Bool, as type: T.Type, key: String) -> T {
        if let swift = swiftCollectionType(type), let value = swift.make(from: members) as? T { return value }
        if ordered, let value = NSOrderedSet(array: members) as? T { return value }
        if let value = NSSet(array: members) as? T { return value }
        if let value = NSOrderedSet(array: members) as? T { return value }
        preconditionFailure(
            "@Managed to-many property '\(key)' is declared \(T.self); use NSSet, NSOrderedSet, Set<Object> or [Object]"
        )
    }

    /// Whether `T` is a Swift collection of managed objects, remembered per type: the
    /// conditional-conformance check behind `as? ManagedObjectCollection.Type` costs
    /// more than building the collection, and to-many getters run it on every read.
    private static func swiftCollectionType<T>(_ type: T.Type) -> ManagedObjectCollection.Type? {
        collectionTypes.lookup(type)
    }

    private static let collectionTypes = CollectionTypeCache()

    /// `T` → its `ManagedObjectCollection` conformance (or none), behind a lock.
    private final class CollectionTypeCache: @unchecked Sendable {
        private let lock = NSLock()
        private var known: [ObjectIdentifier: ManagedObjectCollection.Type?] = [:]

        func lookup<T>(_ type: T.Type) -> ManagedObjectCollection.Type? {
            let key = ObjectIdentifier(type)
            lock.lock()
            defer { lock.unlock() }
            if let entry = known[key] { return entry }
            let found = type as? ManagedObjectCollection.Type
            known[key] = .some(found)
            return found
        }
    }

    /// The managed object class a declared type carries (`Family?`, `Set<Person>`, …).
    static func objectClass<T>(in type: T.Type) -> NSManagedObject.Type? {
        (type as? NSManagedObject.Type) ?? (type as? ManagedObjectTypeCarrier.Type)?.carriedObjectType
    }
}

/// Optionals, so generic code can produce `nil` for any `Optional<Wrapped>`.
protocol ManagedOptional { static var none: Self { get } }
extension Optional: ManagedOptional {}

/// Scalars that read as zero when no value is stored.
protocol ManagedScalar { static var zero: Self { get } }
extension Int: ManagedScalar {}
extension Int16: ManagedScalar {}
extension Int32: ManagedScalar {}
extension Int64: ManagedScalar {}
extension Double: ManagedScalar {}
extension Float: ManagedScalar {}
extension Decimal: ManagedScalar {}
extension Bool: ManagedScalar { static var zero: Bool { false } }

/// Types that name a managed object class inside them.
protocol ManagedObjectTypeCarrier { static var carriedObjectType: NSManagedObject.Type? { get } }
extension Optional: ManagedObjectTypeCarrier {
    static var carriedObjectType: NSManagedObject.Type? { ManagedTypeConversion.objectClass(in: Wrapped.self) }
}
extension Set: ManagedObjectTypeCarrier where Element: NSManagedObject {
    static var carriedObjectType: NSManagedObject.Type? { Element.self }
}
extension Array: ManagedObjectTypeCarrier where Element: NSManagedObject {
    static var carriedObjectType: NSManagedObject.Type? { Element.self }
}

/// Swift collections a to-many relationship can be read as.
protocol ManagedObjectCollection { static func make(from members: [NSManagedObject]) -> Any? }
extension Set: ManagedObjectCollection where Element: NSManagedObject {
    static func make(from members: [NSManagedObject]) -> Any? {
        var result = Set<Element>(minimumCapacity: members.count)
        for member in members {
            if let typed = member as? Element { result.insert(typed) }
        }
        return result
    }
}
extension Array: ManagedObjectCollection where Element: NSManagedObject {
    static func make(from members: [NSManagedObject]) -> Any? { members.compactMap { $0 as? Element } }
}
extension Optional: ManagedObjectCollection where Wrapped: ManagedObjectCollection {
    static func make(from members: [NSManagedObject]) -> Any? {
        Wrapped.make(from: members).map { $0 as? Wrapped } ?? nil
    }
}
