// A merge policy that takes a to-one's value from the source (store trump, rollback, an
// undelete) writes the object's slot directly. The objects on the other side of that
// relationship must follow, or the graph keeps saying that the object belongs to its old
// destination while its row says the new one.

/// An object's to-one destinations (in memory and as last read) before a merge policy
/// changes it, so the inverse sides can be brought in line afterwards.
struct ToOneLinks {
    private struct Link {
        let relationship: NSRelationshipDescription
        let inverse: NSRelationshipDescription
        let current: NSManagedObjectID?
        let committed: NSManagedObjectID?
    }

    private let object: NSManagedObject
    private let links: [Link]

    init(_ object: NSManagedObject) {
        self.object = object
        let facts = object.entityFacts
        links = facts.rowColumnSlots.compactMap { slot in
            guard facts.slotFacts[slot].kind == .toOne,
                let relationship = facts.slots[slot] as? NSRelationshipDescription,
                let inverse = relationship.inverseRelationship
            else { return nil }
            return Link(
                relationship: relationship, inverse: inverse,
                current: NSManagedObject.objectID(of: object.storage[slot]),
                committed: object.committed?[slot] as? NSManagedObjectID)
        }
    }

    /// After the resolution, with the source holding `row`: every object the to-one named
    /// before or names now has the object among its inverse's members (in memory, and as
    /// saved) exactly when the to-one names it (in memory, and in `row`). `undeleted` says
    /// the object was deleted before: its delete rules took it out of inverses whose
    /// to-one did not change, so those are settled too.
    func settleInverses(now row: StoreRow, undeleted: Bool = false) {
        guard let context = object.managedObjectContext else { return }
        for link in links {
            let slot = link.relationship.slot
            let committed = row.values[slot] as? NSManagedObjectID
            // A refreshed object is a fault that will load `row`.
            let current = object.isFaultStorage ? committed : NSManagedObject.objectID(of: object.storage[slot])
            guard undeleted || current != link.current || committed != link.committed else { continue }
            var seen = Set<NSManagedObjectID>()
            for id in [current, committed, link.current, link.committed].compactMap({ $0 })
            where seen.insert(id).inserted {
                let isCurrent = id == current, isCommitted = id == committed
                let other: NSManagedObject
                if isCurrent != isCommitted {
                    // Memory and source disagree about it: it must be loaded to hold the difference.
                    other = context.object(with: id)
                    other.fireFaultIfNeeded()
                } else if let registered = context.registeredObject(for: id), !registered.isFaultStorage {
                    other = registered
                } else {
                    // Not loaded: it loads from the source, which already agrees.
                    continue
                }
                guard other.lifecycle != .deleted, other.managedObjectContext === context else { continue }
                other.mirror(object, through: link.inverse, current: isCurrent, committed: isCommitted)
            }
        }
    }
}

extension NSManagedObject {
    /// Makes `inverse` of this object hold `source` in memory when `current` and as saved
    /// when `committed`, and tracks whether that leaves a change to save.
    fileprivate func mirror(
        _ source: NSManagedObject, through inverse: NSRelationshipDescription, current: Bool, committed: Bool
    ) {
        let slot = inverse.slot
        if inverse.isToMany {
            let loaded: ToManyRelationship
            if let existing = storage[slot] as? ToManyRelationship {
                loaded = existing
            } else if current != committed {
                loaded = toMany(inverse)
            } else {
                return
            }
            if current { loaded.members.append(source) } else { loaded.members.remove(source) }
            if committed { loaded.committed?.append(source) } else { loaded.committed?.remove(source) }
        } else {
            // Its own unsaved change of the relationship stays; its conflict, if any, is its own.
            guard !(changedSlots.contains(slot) && isChanged(inverse)) else { return }
            if current {
                storage[slot] = source
            } else if Self.objectID(of: storage[slot]) == source.objectID {
                storage[slot] = nil
            }
            if committed {
                self.committed?[slot] = source.objectID
            } else if self.committed?[slot] as? NSManagedObjectID == source.objectID {
                self.committed?[slot] = nil
            }
        }
        if isChanged(inverse) {
            recordChange(slot: slot)
        } else if changedSlots.remove(slot), changedSlots.isEmpty, rejectedAssignments.isEmpty, lifecycle == .persisted
        {
            // Nothing of it is left to save.
            managedObjectContext?.updatedSet.remove(self)
        }
    }
}
