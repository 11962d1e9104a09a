/// The standard resolutions the policy types stand for, and the errors of the error policy.
enum MergeResolution {
    static func lockingError(_ list: [NSMergeConflict], unresolved: Bool = false) -> NSError {
        let names = list.map {
            "\($0.sourceObject.entity.name ?? "?") \($0.sourceObject.objectID.uriRepresentation().absoluteString)"
        }
        let reason =
            unresolved
            ? "conflicts remained after \(NSManagedObjectContext.conflictResolutionRounds) attempts to resolve them"
            : "the merge policy does not resolve conflicts"
        let source = list.contains(where: \.isWithParent) ? "the parent context" : "the store"
        return CoreDataError.make(
            NSManagedObjectMergeError,
            "Could not merge changes: \(list.count) object(s) changed or deleted in \(source) since they were read (\(names.joined(separator: ", "))); \(reason)",
            [
                "conflictList": list,
                NSUpdatedObjectsKey: Set(list.filter { !$0.sourceObject.isDeleted }.map(\.sourceObject.objectID)),
                NSDeletedObjectsKey: Set(list.filter { $0.sourceObject.isDeleted }.map(\.sourceObject.objectID)),
            ])
    }

    static func constraintError(_ list: [NSConstraintConflict], unresolved: Bool = false) -> NSError {
        let names = list.map {
            "\($0.conflictingObjects.first?.entity.name ?? "?") \($0.constraint) = \($0.constraintValues)"
        }
        let reason =
            unresolved
            ? "conflicts remained after \(NSManagedObjectContext.conflictResolutionRounds) attempts to resolve them"
            : "the merge policy does not resolve conflicts"
        let objects = list.flatMap(\.conflictingObjects)
        return CoreDataError.make(
            NSManagedObjectConstraintMergeError,
            "Uniqueness constraint violated: \(names.joined(separator: "; ")); \(reason)",
            [
                "conflictList": list,
                NSInsertedObjectsKey: Set(objects.filter(\.isInserted).map(\.objectID)),
                NSUpdatedObjectsKey: Set(objects.filter { !$0.isInserted }.map(\.objectID)),
            ])
    }

    // MARK: Optimistic locking

    static func resolve(_ conflict: NSMergeConflict, _ type: NSMergePolicyType) throws {
        let object = conflict.sourceObject
        guard let context = object.managedObjectContext else { return }
        // Undo must not put back change-set flags computed against the old saved values.
        context.undoGeneration &+= 1
        var row = conflict.currentRow
        if row == nil, conflict.newVersionNumber != 0 {
            // A conflict a custom policy made: read the source's state now.
            row = try context.sourceRow(for: object.objectID, fresh: true)
        }
        guard let row else {
            // The row is gone: nothing can be written to it, and the object is deleted here
            // too. Unsaved objects that point at it let go, as a delete nullifies, so the
            // save writes no key to a row that no longer exists.
            for other in Array(context.insertedSet) + Array(context.updatedSet) where other !== object {
                other.dropReferences(to: object)
            }
            context.forgetUnsavedChanges(of: object)
            context.registryRemove(object)
            object.lifecycle = .deleted
            return
        }
        if object.lifecycle == .deleted {
            switch type {
            case .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType, .errorMergePolicyType:
                object.storedVersion = row.version
                object.committed = row.values
            case .mergeByPropertyStoreTrumpMergePolicyType, .rollbackMergePolicyType:
                // Undeleted: out of the change sets, back to the stored values.
                let before = ToOneLinks(object)
                context.forgetUnsavedChanges(of: object)
                object.lifecycle = .persisted
                object.changedSlots.removeAll()
                object.load(row)
                object.awakeFromFetch()
                before.settleInverses(now: row, undeleted: true)
            }
            return
        }
        switch type {
        case .rollbackMergePolicyType, .errorMergePolicyType:
            let before = ToOneLinks(object)
            object.changedSlots.removeAll()
            context.refresh(object, mergeChanges: false)
            object.snapshot = row
            before.settleInverses(now: row)
        case .mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType,
            .overwriteMergePolicyType:
            object.fireFaultIfNeeded()
            let before = ToOneLinks(object)
            merge(object, with: row, type)
            before.settleInverses(now: row)
        }
    }

    /// Property-by-property merge of `object` with its row as stored now (`row`); the
    /// object ends at the row's version with the changes still to write.
    private static func merge(_ object: NSManagedObject, with row: StoreRow, _ type: NSMergePolicyType) {
        let facts = object.entity.facts
        let original = object.committed
        var pending = SlotSet()
        for slot in facts.rowColumnSlots {
            let property = facts.slots[slot]
            let changedHere = object.changedSlots.contains(slot) && object.isChanged(property)
            let changedThere = !same(row.values[slot], original?[slot], property)
            let keepMine: Bool
            switch type {
            case .mergeByPropertyObjectTrumpMergePolicyType: keepMine = changedHere
            case .mergeByPropertyStoreTrumpMergePolicyType: keepMine = changedHere && !changedThere
            default: keepMine = true
            }
            if keepMine {
                pending.insert(slot)
            } else {
                object.storage[slot] = row.values[slot]
            }
        }
        for slot in facts.toManySlots where object.changedSlots.contains(slot) { pending.insert(slot) }
        for slot in facts.transientSlots where object.changedSlots.contains(slot) { pending.insert(slot) }
        object.committed = row.values
        object.snapshot = row
        object.storedVersion = row.version
        object.changedSlots = pending
    }

    static func same(_ lhs: Any?, _ rhs: Any?, _ property: NSPropertyDescription) -> Bool {
        if property is NSRelationshipDescription {
            return NSManagedObject.objectID(of: lhs) == NSManagedObject.objectID(of: rhs)
        }
        return AttributeValue.isEqual(lhs, rhs)
    }

    // MARK: Uniqueness constraints

    static func resolve(_ conflict: NSConstraintConflict, _ type: NSMergePolicyType) {
        let alive = conflict.conflictingObjects.filter { $0.managedObjectContext != nil && !$0.isDeleted }
        let survivor: NSManagedObject
        if let database = conflict.databaseObject, database.managedObjectContext != nil, !database.isDeleted {
            survivor = database
        } else if let first = alive.first(where: { !$0.isInserted }) ?? alive.first {
            survivor = first
        } else {
            return
        }
        guard let context = survivor.managedObjectContext else { return }
        for loser in alive where loser !== survivor {
            guard loser.isInserted else {
                // A saved row is never merged away: its change to the constrained values
                // is undone instead, and the rest of its changes are saved.
                let committed = loser.committedValues(forKeys: conflict.constraint)
                for name in conflict.constraint { loser.setValue(committed[name], forKey: name) }
                continue
            }
            absorb(loser, into: survivor, type)
            context.delete(loser)
        }
    }

    /// Moves what `type` keeps of `loser` into `survivor`.
    private static func absorb(_ loser: NSManagedObject, into survivor: NSManagedObject, _ type: NSMergePolicyType) {
        guard type != .rollbackMergePolicyType, type != .errorMergePolicyType else { return }
        loser.fireFaultIfNeeded()
        survivor.fireFaultIfNeeded()
        let shared = loser.entity.facts.slots.filter { property in
            !property.isTransient && !(property is NSFetchedPropertyDescription)
                && survivor.entity.facts.propertiesByName[property.name] === property
        }
        for property in shared {
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                // Related objects follow the survivor rather than being lost with the loser.
                if relationship.isOrdered {
                    let members = loser.mutableOrderedSetValue(forKey: property.name)
                    let moving = members.array
                    members.removeAllObjects()
                    let target = survivor.mutableOrderedSetValue(forKey: property.name)
                    for member in moving where !target.contains(member) { target.add(member) }
                } else {
                    let members = loser.mutableSetValue(forKey: property.name)
                    let moving = members.allObjects
                    members.removeAllObjects()
                    let target = survivor.mutableSetValue(forKey: property.name)
                    for member in moving { target.add(member) }
                }
                continue
            }
            let value = loser.value(forKey: property.name)
            let copy: Bool
            switch type {
            case .mergeByPropertyObjectTrumpMergePolicyType:
                copy =
                    loser.committed == nil
                    ? loser.storage[property.slot] != nil || loser.changedSlots.contains(property.slot)
                    : loser.changedSlots.contains(property.slot) && loser.isChanged(property)
            case .overwriteMergePolicyType:
                copy = true
            default:
                copy = value != nil && survivor.value(forKey: property.name) == nil
            }
            if copy, !same(survivor.storage[property.slot], loser.storage[property.slot], property) {
                survivor.setValue(value, forKey: property.name)
            }
        }
    }
}

extension NSManagedObject {
    /// Clears this object's relationships that point at `target` (whose row is gone).
    func dropReferences(to target: NSManagedObject) {
        let facts = entityFacts
        for slot in facts.slotFacts.indices {
            guard let relationship = facts.slots[slot] as? NSRelationshipDescription else { continue }
            switch facts.slotFacts[slot].kind {
            case .toOne:
                let value = storage[slot]
                if (value as? NSManagedObject) === target || (value as? NSManagedObjectID) == target.objectID {
                    primitiveSetToOne(relationship, nil)
                }
            case .toMany:
                if let loaded = storage[slot] as? ToManyRelationship, loaded.members.contains(target) {
                    var members = loaded.members
                    members.remove(target)
                    primitiveSetMembers(relationship, members)
                }
            case .attribute:
                continue
            }
        }
    }
}
