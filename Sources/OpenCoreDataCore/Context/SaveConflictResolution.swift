/// Conflicts a save's transaction found; thrown out of it so the transaction rolls back,
/// the merge policy settles them outside it (where it may fetch and fire faults), and
/// the save runs again. Thrown and caught on the saving context's queue, hence `@unchecked`.
struct SaveConflictsFound: Error, @unchecked Sendable {
    /// Updated or deleted objects whose rows changed or vanished, with the row now (`nil`: gone).
    var locking: [(object: NSManagedObject, row: StoreRow?)] = []
    /// Objects sharing constrained values, with the stored row holding them, if any.
    var constraints: [(names: [String], objects: [NSManagedObject], databaseRow: StoreRow?)] = []

    var isEmpty: Bool { locking.isEmpty && constraints.isEmpty }
}

/// The checks of one save, run inside its transaction: every updated and deleted
/// object's version against its row's, and every uniqueness constraint of inserted and
/// updated objects among themselves and against the stored rows.
struct SaveConflictScan {
    let inserted: [NSManagedObject]
    let updated: [NSManagedObject]
    let deleted: [NSManagedObject]
    let context: NSManagedObjectContext

    /// Runs the checks; `locking: false` leaves version checks to the writer, whose
    /// conditional `UPDATE`/`DELETE` fails on the first stale row (see `writeResolvingConflicts`).
    func run(_ reader: any SaveTransactionReader, locking: Bool) throws -> SaveConflictsFound {
        var found = SaveConflictsFound()
        if locking { try findLockingConflicts(reader, into: &found) }
        try findConstraintConflicts(reader, into: &found)
        return found
    }

    // MARK: Optimistic locking

    private func findLockingConflicts(_ reader: any SaveTransactionReader, into found: inout SaveConflictsFound) throws {
        let checked = updated.filter { $0.lifecycle == .persisted } + deleted
        let byTable = Dictionary(grouping: checked.filter { !$0.objectID.isTemporaryID }) { ObjectIdentifier($0.entity.facts.root) }
        var conflicting: [NSManagedObject] = []
        for objects in byTable.values {
            let versions = try reader.versions(ofKeys: objects.compactMap(\.objectID.primaryKey), in: objects[0].entity)
            for object in objects {
                guard let key = object.objectID.primaryKey else { continue }
                if versions[key] != object.storedVersion { conflicting.append(object) }
            }
        }
        guard !conflicting.isEmpty else { return }
        let rows = Dictionary(try reader.rows(for: conflicting.map(\.objectID)).map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
        for object in conflicting {
            found.locking.append((object, rows[object.objectID]))
        }
    }

    // MARK: Uniqueness constraints

    /// One constraint as the save checks it: the entity declaring it and its properties.
    private struct Constraint {
        let owner: NSEntityDescription
        let properties: [NSPropertyDescription]
        var names: [String] { properties.map(\.name) }
    }

    /// Objects of one constraint and one set of values.
    private struct Group {
        let constraint: Constraint
        let values: [Any?]
        var objects: [NSManagedObject]
    }

    private func findConstraintConflicts(_ reader: any SaveTransactionReader, into found: inout SaveConflictsFound) throws {
        var groups: [Group] = []
        var index: [[AnyHashable]: Int] = [:]
        var constraintsByEntity: [ObjectIdentifier: [Constraint]] = [:]
        for object in inserted + updated where object.lifecycle == .inserted || object.lifecycle == .persisted {
            let entityKey = ObjectIdentifier(object.entity)
            let constraints = constraintsByEntity[entityKey] ?? Self.constraints(of: object.entity)
            constraintsByEntity[entityKey] = constraints
            for constraint in constraints {
                // A saved object keeps its row's values unless it changes a constrained property.
                if object.lifecycle == .persisted, !constraint.properties.contains(where: { object.changedSlots.contains($0.slot) && object.isChanged($0) }) {
                    continue
                }
                guard let values = Self.values(of: object, constraint) else { continue }
                let key: [AnyHashable] = [ObjectIdentifier(constraint.owner), constraint.names] + values.map(Self.hashable)
                if let position = index[key] {
                    groups[position].objects.append(object)
                } else {
                    index[key] = groups.count
                    groups.append(Group(constraint: constraint, values: values, objects: [object]))
                }
            }
        }
        for group in groups {
            let databaseRow = try storedDuplicate(of: group, reader)
            if group.objects.count > 1 || databaseRow != nil {
                found.constraints.append((group.constraint.names, group.objects, databaseRow))
            }
        }
    }

    /// The stored row already holding the group's values, unless this save deletes it or
    /// moves it to other values.
    private func storedDuplicate(of group: Group, _ reader: any SaveTransactionReader) throws -> StoreRow? {
        let values = group.values.map { value -> Any? in
            (value as? NSManagedObject)?.objectID ?? value
        }
        // Rows can only hold saved objects; a new destination cannot match one.
        if values.contains(where: { ($0 as? NSManagedObjectID)?.isTemporaryID == true }) { return nil }
        if group.constraint.properties.contains(where: { ($0 as? NSAttributeDescription)?.allowsExternalBinaryDataStorage == true }) { return nil }
        let own = Set(group.objects.map(\.objectID))
        for id in try reader.objectIDs(of: group.constraint.owner, where: group.constraint.properties, equal: values) where !own.contains(id) {
            if let registered = context.registeredObject(for: id) {
                if registered.lifecycle == .deleted { continue }
                if registered.lifecycle == .persisted, let current = Self.values(of: registered, group.constraint),
                   current.map(Self.hashable) != values.map(Self.hashable) {
                    continue
                }
            }
            if let row = try reader.rows(for: [id]).first { return row }
        }
        return nil
    }

    /// The constraints of `entity`: its own and its ancestors', each checked among the
    /// declaring entity's rows (subentities included). Constraints naming unknown
    /// properties or to-manys are left out (the model validator reports them).
    private static func constraints(of entity: NSEntityDescription) -> [Constraint] {
        var result: [Constraint] = []
        var owner: NSEntityDescription? = entity
        while let current = owner {
            for constraint in current.uniquenessConstraints {
                let properties = NSEntityDescription.propertyNames(inConstraint: constraint).compactMap { current.facts.propertiesByName[$0] }
                guard !properties.isEmpty, properties.count == constraint.count,
                      properties.allSatisfy({ $0 is NSAttributeDescription || ($0 as? NSRelationshipDescription)?.isToMany == false })
                else { continue }
                result.append(Constraint(owner: current, properties: properties))
            }
            owner = current.superentity
        }
        return result
    }

    /// The object's values of the constraint's properties (to-ones as IDs), or `nil`
    /// when one is nil: as in SQL, nil never equals nil.
    private static func values(of object: NSManagedObject, _ constraint: Constraint) -> [Any?]? {
        var result: [Any?] = []
        for property in constraint.properties {
            guard property.slot < object.storage.count else { return nil }
            let value = object.storage[property.slot]
            if property is NSRelationshipDescription {
                guard let id = NSManagedObject.objectID(of: value) else { return nil }
                result.append(id)
            } else {
                guard let value else { return nil }
                result.append(value)
            }
        }
        return result
    }

    private static func hashable(_ value: Any?) -> AnyHashable {
        switch value {
        case let object as NSManagedObject: return AnyHashable(object.objectID)
        case let value as AnyHashable: return value
        case let value?: return AnyHashable(String(describing: value))
        case nil: return AnyHashable(0 as Int?)
        }
    }
}

extension NSManagedObjectContext {
    /// How many times a save checks, resolves and checks again before it gives up on
    /// conflicts the merge policy does not settle (or that other writers keep making).
    static let conflictResolutionRounds = 8

    /// Writes the context's changes to `store`, with the conflict checks inside the
    /// write's transaction; conflicts go to the merge policy and the write runs again.
    /// Returns what was written and the keys given to new objects.
    func writeResolvingConflicts(
        to store: NSPersistentStore, _ coordinator: NSPersistentStoreCoordinator
    ) throws -> (inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject], keys: [ObjectIdentifier: Int64]) {
        var round = 0
        // Reading every updated row's version before writing costs as much as the writes;
        // the writer's `WHERE Z_OPT = ?` notices a stale row anyway. So the first attempt
        // leaves locking to the writer, and only when it reports a stale row does the save
        // run again with the full check, which finds every conflict for the policy at once.
        var checkLocking = false
        while true {
            let inserted = Array(insertedSet)
            let updated = Array(updatedSet)
            let deleted = Array(deletedSet)
            var assignedKeys: [ObjectIdentifier: Int64] = [:]
            do {
                try coordinator.save(to: store) { allocator in
                    if let reader = allocator as? any SaveTransactionReader {
                        let found = try SaveConflictScan(inserted: inserted, updated: updated, deleted: deleted, context: self).run(reader, locking: checkLocking)
                        if !found.isEmpty { throw found }
                    }
                    for object in inserted {
                        assignedKeys[ObjectIdentifier(object)] = try object.objectID.primaryKey ?? allocator.nextKey(for: object.entity)
                    }
                    var request = try SaveRequestBuilder(keys: assignedKeys).request(inserted: inserted, updated: updated, deleted: deleted)
                    request.origin = StoreHistoryOrigin(self)
                    return request
                }
                return (inserted, updated, deleted, assignedKeys)
            } catch let found as SaveConflictsFound {
                round += 1
                try resolveConflicts(found, giveUp: round >= Self.conflictResolutionRounds)
            } catch let stale as NSError where stale.domain == NSCocoaErrorDomain && stale.code == NSManagedObjectMergeError && !checkLocking {
                // The transaction rolled back; check every row's version this time.
                checkLocking = true
            }
        }
    }

    /// Hands conflicts to the merge policy (or, past the last round, fails with them),
    /// then checks what the policy left as a save checks it: the policy's writes bypass
    /// the setters' callers, so nothing else would validate them before they are written.
    func resolveConflicts(_ found: SaveConflictsFound, giveUp: Bool) throws {
        try handToMergePolicy(found, giveUp: giveUp)
        processPendingChanges()
        for object in insertedSet { object.applyDerivations() }
        for object in updatedSet { object.applyDerivations() }
        try validatePendingChanges()
    }

    private func handToMergePolicy(_ found: SaveConflictsFound, giveUp: Bool) throws {
        let withParent = parent != nil
        let locking = found.locking.map { NSMergeConflict(object: $0.object, row: $0.row, withParent: withParent) }
        let constraints = found.constraints.map { entry in
            NSConstraintConflict(
                constraint: entry.names,
                database: entry.databaseRow.map { register($0, asFault: true) },
                databaseSnapshot: entry.databaseRow.map { ConflictSnapshot.dictionary($0.values, of: $0.objectID.entity) },
                conflicting: entry.objects,
                conflictingSnapshots: entry.objects.map { object in
                    object.committed.map { ConflictSnapshot.dictionary($0, of: object.entity) } ?? [:]
                }
            )
        }
        if giveUp {
            if !locking.isEmpty { throw MergeResolution.lockingError(locking, unresolved: true) }
            throw MergeResolution.constraintError(constraints, unresolved: true)
        }
        guard let policy = mergePolicy as? NSMergePolicy else {
            throw CoreDataError.make(NSCoreDataError, "The context's mergePolicy is a \(type(of: mergePolicy)), not an NSMergePolicy, so the save's conflicts cannot be resolved",
                                     ["conflictList": (locking as [Any]) + (constraints as [Any])])
        }
        try policy.resolve(mergeConflicts: (locking as [Any]) + (constraints as [Any]))
    }
}

/// The standard resolutions the policy types stand for, and the errors of the error policy.
enum MergeResolution {
    static func lockingError(_ list: [NSMergeConflict], unresolved: Bool = false) -> NSError {
        let names = list.map { "\($0.sourceObject.entity.name ?? "?") \($0.sourceObject.objectID.uriRepresentation().absoluteString)" }
        let reason = unresolved ? "conflicts remained after \(NSManagedObjectContext.conflictResolutionRounds) attempts to resolve them" : "the merge policy does not resolve conflicts"
        let source = list.contains(where: \.isWithParent) ? "the parent context" : "the store"
        return CoreDataError.make(NSManagedObjectMergeError, "Could not merge changes: \(list.count) object(s) changed or deleted in \(source) since they were read (\(names.joined(separator: ", "))); \(reason)", [
            "conflictList": list,
            NSUpdatedObjectsKey: Set(list.filter { !$0.sourceObject.isDeleted }.map(\.sourceObject.objectID)),
            NSDeletedObjectsKey: Set(list.filter { $0.sourceObject.isDeleted }.map(\.sourceObject.objectID)),
        ])
    }

    static func constraintError(_ list: [NSConstraintConflict], unresolved: Bool = false) -> NSError {
        let names = list.map { "\($0.conflictingObjects.first?.entity.name ?? "?") \($0.constraint) = \($0.constraintValues)" }
        let reason = unresolved ? "conflicts remained after \(NSManagedObjectContext.conflictResolutionRounds) attempts to resolve them" : "the merge policy does not resolve conflicts"
        let objects = list.flatMap(\.conflictingObjects)
        return CoreDataError.make(NSManagedObjectConstraintMergeError, "Uniqueness constraint violated: \(names.joined(separator: "; ")); \(reason)", [
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
        case .mergeByPropertyObjectTrumpMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType, .overwriteMergePolicyType:
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
            !property.isTransient && !(property is NSFetchedPropertyDescription) && survivor.entity.facts.propertiesByName[property.name] === property
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
                copy = loser.committed == nil ? loser.storage[property.slot] != nil || loser.changedSlots.contains(property.slot)
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

