internal import OrderedCollections

// Key-value coding for managed objects, as Core Data provides it: values by key and
// key path, primitive access, mutable relationship proxies, and the change queries.
extension NSManagedObject: KeyValueCoding {}

/// How a fetch reads, on objects in memory, keys that only other entities of the
/// object's inheritance tree have.
///
/// The store accepts a key of any subentity of the fetched entity, because the whole
/// tree shares one table; rows of entities without the key have NULL there. A fetch
/// that includes pending changes evaluates unsaved objects in memory, and must give
/// them the same `nil` rather than trap as an unknown key does.
package enum InheritanceTreeKeys {
    /// Whether such keys read as `nil` (set only while a fetch evaluates objects).
    @TaskLocal static var readAsNil = false

    /// Whether some entity of `entity`'s inheritance tree has a property named `key`.
    package static func tree(of entity: NSEntityDescription, has key: String) -> Bool {
        entity.facts.root.facts.selfAndDescendants.contains { $0.facts.propertiesByName[key] != nil }
    }

    /// Runs `body` with such keys reading as `nil`.
    static func readingAsNil<T>(_ body: () throws -> T) rethrows -> T {
        try $readAsNil.withValue(true, operation: body)
    }
}

extension NSManagedObject {
    /// The value of a property: numbers as `NSNumber`, a to-one as its object, a
    /// to-many as `NSSet` (or `NSOrderedSet` when ordered).
    ///
    /// A key the entity does not have reads a member marked `@KeyValueCoded` (a computed
    /// property, as `@objc` ones are on Apple platforms); any other goes to ``value(forUndefinedKey:)``.
    func kvcValue(forKey key: String) -> Any? {
        let facts = entityFacts
        guard let slot = facts.propertiesByName.slot(named: key) else {
            return ownValue(forKey: key) ?? KeyValueCodedMembers.value(forKey: key, of: self)
                ?? value(forUndefinedKey: key)
        }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        let slotFacts = facts.slotFacts[slot]
        // An attribute's value, found by slot and type without casting its description.
        if slotFacts.kind == .attribute, let stored = storage[slot] {
            return AttributeValue.publicValue(stored, type: slotFacts.attributeType)
        }
        return publicValue(of: slotFacts.property)
    }

    /// The value of one of `NSManagedObject`'s own properties that key-value coding
    /// reaches in Core Data (`objectID`, `entity`, `managedObjectContext`, the state
    /// flags), for keys the entity does not use itself.
    private func ownValue(forKey key: String) -> Any?? {
        switch key {
        case "objectID": objectID
        case "entity": entity
        case "managedObjectContext": .some(managedObjectContext)
        case "isInserted", "inserted": isInserted
        case "isUpdated", "updated": isUpdated
        case "isDeleted", "deleted": isDeleted
        case "hasChanges": hasChanges
        case "isFault", "fault": isFault
        case "faultingState": faultingState
        default: nil
        }
    }

    /// Called for a key the entity does not have. Traps, as Core Data raises
    /// `NSUnknownKeyException`; override to supply computed values.
    ///
    /// While a fetch evaluates unsaved objects (``InheritanceTreeKeys``), a key that
    /// another entity of the object's inheritance tree has is `nil` instead.
    func kvcValue(forUndefinedKey key: String) -> Any? {
        if InheritanceTreeKeys.readAsNil, InheritanceTreeKeys.tree(of: entity, has: key) { return nil }
        preconditionFailure(
            "[<\(type(of: self))> valueForUndefinedKey:]: the entity \(entity.name ?? "?") is not key value coding-compliant for the key \"\(key)\"."
        )
    }

    /// Sets a property, updating the inverse of a relationship at once.
    ///
    /// A key the entity does not have sets a settable `@KeyValueCoded` member. A value of
    /// the wrong type, or an unknown key, is refused: the property keeps its value and the
    /// next save throws a validation error that names the key (Core Data raises an
    /// exception here instead).
    func kvcSetValue(_ value: Any?, forKey key: String) {
        guard let property = entityFacts.propertiesByName[key] else {
            if !KeyValueCodedMembers.setValue(value, forKey: key, of: self) { setValue(value, forUndefinedKey: key) }
            return
        }
        assign(value, to: property, maintainingInverse: true)
    }

    /// Called for a key the entity does not have. Records the mistake so the next save
    /// throws; override to accept extra keys.
    func kvcSetValue(_ value: Any?, forUndefinedKey key: String) {
        fireFaultIfNeeded()
        noteUndoableChange(slot: nil)
        rejectedAssignments[key] = "the entity \(entity.name ?? "?") has no property named '\(key)'"
        managedObjectContext?.objectDidChange(self)
    }

    /// The value of a property without key-value observing or custom accessors.
    ///
    /// - Parameter key: The name of an attribute or relationship.
    /// - Returns: The stored value, or `nil`.
    public func primitiveValue(forKey key: String) -> Any? {
        guard let property = entityFacts.propertiesByName[key] else { return nil }
        fireFaultIfNeeded()
        return publicValue(of: property)
    }

    /// Sets a property without `willChangeValue`/`didChangeValue` and without inverse
    /// maintenance; the change is still recorded, so the next save writes it.
    ///
    /// - Parameters:
    ///   - value: The new value.
    ///   - key: The name of an attribute or relationship.
    public func setPrimitiveValue(_ value: Any?, forKey key: String) {
        guard let property = entityFacts.propertiesByName[key] else {
            setValue(value, forUndefinedKey: key)
            return
        }
        // willChangeValue is what fires a fault; this path does not call it.
        fireFaultIfNeeded()
        assign(value, to: property, maintainingInverse: false, notifying: false)
    }

    /// The value at a dotted key path: through to-one relationships, across to-many
    /// ones (giving a set of values) and with `@count`, `@sum`, `@avg`, `@min`, `@max`.
    ///
    /// - Parameter keyPath: Keys separated by dots, such as `"family.name"`.
    /// - Returns: The value at the end of the path, or `nil` when a step is `nil`;
    ///   numbers (`@count`, `@sum`, …) as `NSNumber`, as key-value coding returns them.
    public func value(forKeyPath keyPath: String) -> Any? {
        NumberBoxing.boxed(KeyPathEvaluation.value(forKeyPath: keyPath, of: self))
    }

    /// Sets the value at a dotted key path (the last key on the object the path leads to).
    ///
    /// A path into a composite attribute (`location.latitude`) sets that element of the
    /// composite's dictionary (`nil` removes it) and stores the dictionary back.
    ///
    /// - Parameters:
    ///   - value: The new value.
    ///   - keyPath: Keys separated by dots; every key but the last must lead to one object
    ///     or into a composite attribute.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        let keys = keyPath.split(separator: ".").map(String.init)
        guard let last = keys.last else { return }
        if keys.count == 1 { setValue(value, forKey: last); return }
        if entityFacts.propertiesByName[keys[0]] is NSCompositeAttributeDescription {
            let current = (self.value(forKey: keys[0])).flatMap(CompositeValue.dictionary) ?? [:]
            setValue(CompositeValue.setting(value, at: Array(keys.dropFirst()), in: current), forKey: keys[0])
            return
        }
        let ownerPath = keys.dropLast().joined(separator: ".")
        (self.value(forKeyPath: ownerPath) as? NSManagedObject)?.setValue(value, forKey: last)
    }

    /// Sets several properties at once, as key-value coding does: `setValue(_:forKey:)` for
    /// each entry, `NSNull` standing for `nil`.
    ///
    /// - Parameter keyedValues: New values by property name.
    public func setValuesForKeys(_ keyedValues: [String: Any]) {
        for (key, value) in keyedValues { setValue(value is NSNull ? nil : value, forKey: key) }
    }

    /// The values of several properties, as key-value coding gives them: `NSNull` for `nil`.
    ///
    /// - Parameter keys: Property names.
    /// - Returns: Each key's value.
    public func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] {
        var values: [String: Any] = [:]
        for key in keys { values[key] = value(forKey: key) ?? NSNull() }
        return values
    }

    /// A live, mutable set of a to-many relationship: changes to it change the relationship.
    ///
    /// - Parameter key: The name of a to-many relationship.
    /// - Returns: A set whose changes update the relationship and its inverse.
    public func mutableSetValue(forKey key: String) -> NSMutableSet {
        guard let relationship = entityFacts.propertiesByName[key] as? NSRelationshipDescription, relationship.isToMany
        else {
            preconditionFailure(
                "mutableSetValue(forKey:): '\(key)' is not a to-many relationship of \(entity.name ?? "?")")
        }
        return RelationshipMutableSet(owner: self, relationship: relationship)
    }

    /// A live, mutable ordered set of an ordered to-many relationship.
    ///
    /// - Parameter key: The name of an ordered to-many relationship.
    /// - Returns: An ordered set whose changes update the relationship and its inverse.
    public func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet {
        guard let relationship = entityFacts.propertiesByName[key] as? NSRelationshipDescription, relationship.isToMany
        else {
            preconditionFailure(
                "mutableOrderedSetValue(forKey:): '\(key)' is not a to-many relationship of \(entity.name ?? "?")")
        }
        return RelationshipMutableOrderedSet(owner: self, relationship: relationship)
    }

    // MARK: Changes

    /// The stored properties changed since the last fetch or save, with their new values.
    ///
    /// - Returns: New values by key; `NSNull` stands for `nil`.
    public func changedValues() -> [String: Any] {
        guard !isFaultStorage else { return [:] }
        var result: [String: Any] = [:]
        for property in entityFacts.slots where !property.isTransient {
            guard committed == nil || changedSlots.contains(property.slot), isChanged(property) else { continue }
            result[property.name] = publicValue(of: property) ?? NSNull()
        }
        return result
    }

    /// The last saved values of `keys` (all stored properties when `nil`); `NSNull` for nil.
    ///
    /// - Parameter keys: The keys to read, or `nil` for every stored property.
    /// - Returns: The saved values by key.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        guard let committed = committedSnapshot() else { return [:] }
        let properties = keys.map { $0.compactMap { entityFacts.propertiesByName[$0] } } ?? entityFacts.slots
        var result: [String: Any] = [:]
        for property in properties where !property.isTransient {
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                let members =
                    (storage[relationship.slot] as? ToManyRelationship)?.committed
                    ?? ManagedObjectSet(
                        managedObjectContext?.relatedObjects(of: self, relationship: relationship) ?? [])
                result[property.name] =
                    relationship.isOrdered ? NSOrderedSet(array: Array(members)) : NSSet(array: Array(members))
                continue
            }
            switch committed[property.slot] {
            case let id as NSManagedObjectID:
                result[property.name] = managedObjectContext?.object(with: id) ?? id
            case let value?:
                let type = (property as? NSAttributeDescription)?.attributeType ?? .undefinedAttributeType
                result[property.name] = AttributeValue.publicValue(value, type: type)
            case nil:
                result[property.name] = NSNull()
            }
        }
        return result
    }

    /// Whether a property's current value differs from its last saved one.
    func isChanged(_ property: NSPropertyDescription) -> Bool {
        if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
            guard let loaded = storage[relationship.slot] as? ToManyRelationship else { return false }
            return loaded.hasChanges(ordered: relationship.isOrdered)
        }
        let current = storage[property.slot]
        guard let committed else { return current != nil }
        if property is NSRelationshipDescription {
            return Self.objectID(of: current) != committed[property.slot] as? NSManagedObjectID
        }
        return !AttributeValue.isEqual(current, committed[property.slot])
    }

    /// The snapshot of last saved values, loading the object if it is a fault.
    func committedSnapshot() -> SlotValues? {
        fireFaultIfNeeded()
        return committed
    }

    static func objectID(of value: Any?) -> NSManagedObjectID? {
        switch value {
        case let object as NSManagedObject: object.objectID
        case let id as NSManagedObjectID: id
        default: nil
        }
    }

    // MARK: Internals shared by KVC and @Managed

    /// The key-value coding form of a property's current value.
    func publicValue(of property: NSPropertyDescription) -> Any? {
        if let relationship = property as? NSRelationshipDescription {
            if relationship.isToMany {
                let members = Array(toMany(relationship).members)
                return relationship.isOrdered ? NSOrderedSet(array: members) : NSSet(array: members)
            }
            return toOne(relationship)
        }
        guard let stored = storage[property.slot] else {
            return (property as? NSFetchedPropertyDescription).flatMap(fetchedValue)
        }
        let type = (property as? NSAttributeDescription)?.attributeType ?? .undefinedAttributeType
        return AttributeValue.publicValue(stored, type: type)
    }

    /// Stores `value` into `property`, converting it to the stored form or refusing it.
    /// `notifying` applies to writes that do not maintain the inverse (those always notify).
    func assign(_ value: Any?, to property: NSPropertyDescription, maintainingInverse: Bool, notifying: Bool = true) {
        let value = CollectionValue.unwrapNull(value)
        if let relationship = property as? NSRelationshipDescription {
            if relationship.isToMany {
                guard let objects = Self.managedObjects(in: value),
                    objects.allSatisfy({ relationship.accepts($0, from: self) })
                else {
                    refuse(
                        value, for: property,
                        expected: "a collection of \(relationship.acceptedEntity?.name ?? "?") objects")
                    return
                }
                if maintainingInverse {
                    setToMany(relationship, objects)
                } else {
                    primitiveSetMembers(relationship, ManagedObjectSet(objects), notifying: notifying)
                }
            } else {
                guard value == nil || (value as? NSManagedObject).map({ relationship.accepts($0, from: self) }) == true
                else {
                    refuse(value, for: property, expected: "a \(relationship.acceptedEntity?.name ?? "?") object")
                    return
                }
                let target = value as? NSManagedObject
                if maintainingInverse {
                    setToOne(relationship, target)
                } else {
                    primitiveSetToOne(relationship, target, notifying: notifying)
                }
            }
            return
        }
        guard let attribute = property as? NSAttributeDescription else { return }
        guard let value else {
            primitiveSetAttribute(attribute, nil, notifying: notifying)
            return
        }
        guard let stored = AttributeValue.coerce(value, to: attribute) else {
            refuse(value, for: property, expected: attribute.attributeType.displayName)
            return
        }
        primitiveSetAttribute(attribute, stored, notifying: notifying)
    }

    private func refuse(_ value: Any?, for property: NSPropertyDescription, expected: String) {
        fireFaultIfNeeded()
        let given = value.map { "\(type(of: $0))" } ?? "nil"
        noteUndoableChange(slot: nil)
        rejectedAssignments[property.name] =
            "unacceptable type of value for property '\(property.name)': expected \(expected), given \(given) (\(value.map { "\($0)" } ?? "nil"))"
        managedObjectContext?.objectDidChange(self)
    }

    /// The managed objects in a collection value, `nil` when it is not a collection of them.
    static func managedObjects(in value: Any?) -> [NSManagedObject]? {
        guard let value else { return [] }
        let elements: [Any]
        switch value {
        case let set as NSSet: elements = set.allObjects
        case let ordered as NSOrderedSet: elements = ordered.array
        case let array as [Any]: elements = array
        case let set as Set<NSManagedObject>: elements = Array(set)
        case let set as Set<AnyHashable>: elements = set.map(\.base)
        default: return nil
        }
        var objects: [NSManagedObject] = []
        objects.reserveCapacity(elements.count)
        for element in elements {
            guard let object = element as? NSManagedObject else { return nil }
            objects.append(object)
        }
        return objects
    }
}
