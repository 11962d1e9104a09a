// The object graph's two rules, kept in one place: a relationship change updates the
// inverse on the other objects at once, and every changed object is recorded with
// its context. Both sides are "primitive" writes here; only the public setters
// (key-value coding, `@Managed`) come through `setRelationship`.
extension NSManagedObject {
    // MARK: Reading

    /// The destination of a to-one relationship, turning a stored ID into an object.
    func toOne(_ relationship: NSRelationshipDescription) -> NSManagedObject? {
        fireFaultIfNeeded()
        switch storage[relationship.slot] {
        case let object as NSManagedObject:
            return object
        case let id as NSManagedObjectID:
            guard let context = managedObjectContext else { return nil }
            let object = context.object(with: id)
            storage[relationship.slot] = object
            return object
        default:
            return nil
        }
    }

    /// The members of a to-many relationship, loading them from the store on first use.
    func toMany(_ relationship: NSRelationshipDescription) -> ToManyRelationship {
        if let loaded = storage[relationship.slot] as? ToManyRelationship {
            // A saved object's members with nothing committed stand in for members the
            // store failed to give: they are read again, under the changes made since.
            if loaded.committed == nil, !isUnsaved { loadMembers(relationship, into: loaded) }
            return loaded
        }
        let loaded = ToManyRelationship(committed: nil)
        storage[relationship.slot] = loaded
        if !isUnsaved { loadMembers(relationship, into: loaded) }
        return loaded
    }

    /// Reads a saved object's members from its source into `loaded`, keeping members added
    /// meanwhile. When the store fails, `loaded` stays a stand-in (nothing committed) holding
    /// only the changes, and the context lists the error and refuses to save the object.
    private func loadMembers(_ relationship: NSRelationshipDescription, into loaded: ToManyRelationship) {
        guard let context = managedObjectContext else {
            loaded.committed = loaded.members
            return
        }
        guard let members = context.relatedObjects(of: self, relationship: relationship) else { return }
        let stored = ManagedObjectSet(members)
        if loaded.members.isEmpty {
            loaded.members = stored
        } else {
            var merged = stored
            for object in loaded.members { merged.append(object) }
            loaded.members = merged
        }
        loaded.committed = stored
        context.noteRead(self)
    }

    /// Whether a to-many of this saved object stands in for members the store failed to give.
    var hasUnreadMembers: Bool {
        guard !isUnsaved else { return false }
        return entityFacts.toManySlots.contains { slot in
            (storage[slot] as? ToManyRelationship).map { $0.committed == nil } ?? false
        }
    }

    // MARK: Writing with inverse maintenance

    /// Sets a to-one destination and updates the inverse of the old and new destinations.
    func setToOne(_ relationship: NSRelationshipDescription, _ target: NSManagedObject?) {
        if let target { relationship.requireAcceptable(target, from: self) }
        let old = toOne(relationship)
        guard old !== target else { return }
        primitiveSetToOne(relationship, target)
        guard let inverse = relationship.inverseRelationship else { return }
        if let old { old.detach(self, from: inverse) }
        if let target { target.attach(self, to: inverse, mirroring: relationship) }
    }

    /// Replaces the members of a to-many relationship, keeping the given order.
    func setToMany(_ relationship: NSRelationshipDescription, _ objects: [NSManagedObject]) {
        for object in objects { relationship.requireAcceptable(object, from: self) }
        let current = toMany(relationship).members
        let new = ManagedObjectSet(objects)
        guard current != new else { return }
        let removed = current.filter { !new.contains($0) }
        let added = new.filter { !current.contains($0) }
        primitiveSetMembers(relationship, new)
        guard let inverse = relationship.inverseRelationship else { return }
        for object in removed { object.detach(self, from: inverse) }
        for object in added { object.attach(self, to: inverse, mirroring: relationship) }
    }

    /// Adds `object` to a to-many relationship (at `index` for ordered ones, else at the end).
    func addToMany(_ relationship: NSRelationshipDescription, _ object: NSManagedObject, at index: Int? = nil) {
        var members = toMany(relationship).members
        if let index {
            if let existing = members.firstIndex(of: object) {
                members.remove(at: existing)
            }
            members.insert(object, at: min(max(index, 0), members.count))
        } else {
            guard !members.contains(object) else { return }
            members.append(object)
        }
        setToMany(relationship, Array(members))
    }

    /// Removes `object` from a to-many relationship.
    func removeFromToMany(_ relationship: NSRelationshipDescription, _ object: NSManagedObject) {
        var members = toMany(relationship).members
        guard members.remove(object) != nil else { return }
        setToMany(relationship, Array(members))
    }

    /// Makes `source` no longer a destination of this object's `relationship` (the inverse
    /// side); also the nullify delete rule's step.
    func detach(_ source: NSManagedObject, from relationship: NSRelationshipDescription) {
        // An object without the inverse (a store's row of a sibling entity) has nothing to undo.
        guard hasProperty(relationship) else { return }
        if relationship.isToMany {
            var members = toMany(relationship).members
            if members.remove(source) != nil { primitiveSetMembers(relationship, members) }
        } else if toOne(relationship) === source {
            primitiveSetToOne(relationship, nil)
        }
    }

    /// Makes `source` a destination of this object's `relationship` (the inverse side of
    /// `sourceRelationship`), taking this object away from whatever it pointed to before
    /// when `relationship` is to-one.
    private func attach(
        _ source: NSManagedObject, to relationship: NSRelationshipDescription,
        mirroring sourceRelationship: NSRelationshipDescription
    ) {
        guard hasProperty(relationship) else { return }
        if relationship.isToMany {
            var members = toMany(relationship).members
            if members.append(source).inserted { primitiveSetMembers(relationship, members) }
            return
        }
        let previous = toOne(relationship)
        guard previous !== source else { return }
        primitiveSetToOne(relationship, source)
        previous?.detach(self, from: sourceRelationship)
    }

    /// Whether `property` is one of this object's own (its entity or a superentity declares
    /// it): an inverse declared on a subentity is not every destination's.
    func hasProperty(_ property: NSPropertyDescription) -> Bool {
        property.entity.map { entity.isKindOf(entity: $0) } ?? false
    }

    // MARK: Primitive writes (record the change, no inverse work)
    // `notifying: false` skips `willChangeValue`/`didChangeValue`, as the public
    // `setPrimitiveValue(_:forKey:)` must: custom setters call it between their own.

    func primitiveSetToOne(
        _ relationship: NSRelationshipDescription, _ target: NSManagedObject?, notifying: Bool = true
    ) {
        if notifying { willChangeValue(forKey: relationship.name) }
        noteUndoableChange(slot: relationship.slot)
        storage[relationship.slot] = target
        recordChange(relationship)
        if notifying { didChangeValue(forKey: relationship.name) }
    }

    func primitiveSetMembers(
        _ relationship: NSRelationshipDescription, _ members: ManagedObjectSet, notifying: Bool = true
    ) {
        if notifying { willChangeValue(forKey: relationship.name) }
        noteUndoableChange(slot: relationship.slot)
        toMany(relationship).members = members
        recordChange(relationship)
        if notifying { didChangeValue(forKey: relationship.name) }
    }

    func primitiveSetAttribute(_ attribute: NSPropertyDescription, _ value: Any?, notifying: Bool = true) {
        setAttribute(slot: attribute.slot, key: attribute.name, value, notifying: notifying)
    }

    /// Stores an attribute value already in its stored form, with the change hooks unless told not to.
    /// Generic so that a typed accessor's value reaches its unboxed field without an `Any` in between.
    func setAttribute<V>(slot: Int, key: String, _ value: V?, notifying: Bool = true) {
        if notifying { willChangeValue(forKey: key) }
        noteUndoableChange(slot: slot)
        storage.setNative(value, at: slot)
        if !rejectedAssignments.isEmpty { rejectedAssignments[key] = nil }
        recordChange(slot: slot)
        if notifying { didChangeValue(forKey: key) }
    }

    /// Notes that `property` changed, so the context counts the object as updated.
    func recordChange(_ property: NSPropertyDescription) {
        recordChange(slot: property.slot)
    }

    /// Notes that a slot changed. New objects are saved whole, so a new object's context
    /// is told only once it has announced the insert (sparing the inserting event a weak
    /// load per write); then observers hear of the change.
    func recordChange(slot: Int) {
        changedSlots.insert(slot)
        if lifecycle == .persisted || (lifecycle == .inserted && insertAnnounced) {
            managedObjectContext?.objectDidChange(self)
        }
    }
}

extension NSRelationshipDescription {
    /// The entity whose objects can be destinations: the destination entity, or the
    /// subentity of it that declares the inverse (Core Data accepts such models; only that
    /// subentity's objects hold the inverse, so only they can take part).
    var acceptedEntity: NSEntityDescription? {
        guard let destinationEntity, let owner = inverseRelationship?.entity, owner !== destinationEntity,
            owner.isKindOf(entity: destinationEntity)
        else { return destinationEntity }
        return owner
    }

    /// Whether `object` can be a destination of this relationship of `source`: its entity is
    /// the accepted entity or inherits from it, and `source` can be the destination of the
    /// inverse (an inverse may point back at a subentity of the relationship's entity).
    func accepts(_ object: NSManagedObject, from source: NSManagedObject) -> Bool {
        guard let acceptedEntity, object.entity.isKindOf(entity: acceptedEntity) else { return false }
        guard let back = inverseRelationship?.destinationEntity else { return true }
        return source.entity.isKindOf(entity: back)
    }

    /// Traps for a destination of the wrong entity, as Core Data raises for the same
    /// mistake: storing it would write into another entity's property slots.
    func requireAcceptable(_ object: NSManagedObject, from source: NSManagedObject) {
        precondition(
            accepts(object, from: source),
            "Unacceptable type of value for relationship '\(entity?.name ?? "?").\(name)' of a \(source.entity.name ?? "?"): desired entity \(acceptedEntity?.name ?? "?")\(inverseRelationship?.destinationEntity.map { " (and a source of entity \($0.name ?? "?"), the inverse's destination)" } ?? ""), given \(object.entity.name ?? "?")"
        )
    }
}
