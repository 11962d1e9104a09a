import OrderedCollections

extension NSManagedObject {
    /// Fills the object from a store row (firing a fault, or refreshing after a refresh).
    func load(_ row: StoreRow, in context: NSManagedObjectContext) {
        var values = row.values
        for property in entity.facts.slots {
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                values[property.slot] = nil
            } else if property.isTransient {
                values[property.slot] = storage[property.slot]
            }
        }
        committed = row.values
        storage = values
        storedVersion = row.version
        changedSlots.removeAll()
        rejectedAssignments.removeAll()
        isFaultStorage = false
    }

    /// Discards loaded values (and unsaved changes); the next access reloads them.
    func turnIntoFault() {
        guard !isFaultStorage else { return }
        willTurnIntoFault()
        storage = [Any?](repeating: nil, count: storage.count)
        committed = nil
        changedSlots.removeAll()
        rejectedAssignments.removeAll()
        isFaultStorage = !objectID.isTemporaryID
        didTurnIntoFault()
    }

    /// After a successful save: the current values become the committed ones.
    func commitSavedState(version: Int64) {
        var snapshot = storage
        for property in entity.facts.slots {
            if let relationship = property as? NSRelationshipDescription {
                if relationship.isToMany {
                    snapshot[property.slot] = nil
                    if let loaded = storage[property.slot] as? ToManyRelationship {
                        loaded.committed = loaded.members
                    }
                } else {
                    snapshot[property.slot] = Self.objectID(of: storage[property.slot])
                }
            }
        }
        committed = snapshot
        storedVersion = version
        changedSlots.removeAll()
    }
}
