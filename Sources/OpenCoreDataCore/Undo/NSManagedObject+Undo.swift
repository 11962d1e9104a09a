// What undo needs of an object: a hook before every change, and reading and writing
// one slot's value in a form that survives later changes (a to-many's members copied).
extension NSManagedObject {
    /// Tells the context's undo recorder, if there is one, that `slot` (or, for `nil`,
    /// the object's state as a whole) is about to change.
    @inline(__always)
    func noteUndoableChange(slot: Int?) {
        if let recorder = registry?.undoRecorder { recorder.objectWillChange(self, slot: slot) }
    }

    /// The value of `slot` for an undo record: the stored value, or a to-many's members.
    func undoValue(ofSlot slot: Int) -> Any? {
        guard entityFacts.slotFacts[slot].kind == .toMany,
            let relationship = entityFacts.slots[slot] as? NSRelationshipDescription
        else {
            return storage[slot]
        }
        return toMany(relationship).members
    }

    /// Puts back a value ``undoValue(ofSlot:)`` read, with the change hooks (no inverse
    /// maintenance: the other side's objects are restored by the same undo step). Objects
    /// deleted elsewhere since are left out, as their delete would have nullified them.
    func restoreUndoValue(_ value: Any?, slot: Int) {
        let property = entityFacts.slots[slot]
        willChangeValue(forKey: property.name)
        if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
            let members = value as? ManagedObjectSet ?? []
            toMany(relationship).members =
                members.contains(where: \.isDeletedElsewhere)
                ? ManagedObjectSet(members.filter { !$0.isDeletedElsewhere }) : members
        } else if let target = value as? NSManagedObject, target.isDeletedElsewhere {
            storage[slot] = nil
        } else {
            storage[slot] = value
        }
        didChangeValue(forKey: property.name)
    }

    /// Whether the object's row was deleted by another context or process: a merged
    /// delete, or a save's conflict that found the row gone, removed it from its context
    /// (a delete this context saved leaves it detached instead, and undo inserts it again).
    var isDeletedElsewhere: Bool { lifecycle == .deleted && managedObjectContext == nil }

    /// Makes an object whose row a save deleted new again, for undo to insert it once
    /// more: nothing of it counts as saved, so the next save writes all of it.
    func forgetCommittedState() {
        committed = nil
        snapshot = nil
        storedVersion = 0
        for slot in entityFacts.toManySlots {
            (storage[slot] as? ToManyRelationship)?.committed = nil
        }
    }
}
