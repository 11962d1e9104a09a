// Nested contexts: a child context's "store" is its parent context. The child reads the
// parent's current state (its unsaved changes included) and its save hands its changes
// to the parent, which writes them to the store only when it saves itself.
extension NSManagedObjectContext {
    // MARK: Reading through the parent

    /// The state of `objectID` as this context's source holds it: the parent's current
    /// values for a child context, the row cache (within `stalenessInterval`, unless
    /// `fresh` asks for the store's row now) or the store (at the context's query
    /// generation, unless `fresh`) for a root context. `nil` when
    /// the source has no such object.
    func sourceRow(for objectID: NSManagedObjectID, fresh: Bool = false) throws -> StoreRow? {
        if let parent { return try parent.snapshotForChild(of: objectID) }
        guard let coordinator = persistentStoreCoordinator, !objectID.isTemporaryID else { return nil }
        // A fresh read is for conflict checks, which compare with the live store, never a snapshot.
        return try coordinator.row(
            for: objectID, maxAge: fresh ? 0 : stalenessInterval, at: fresh ? nil : readGeneration, by: self)
    }

    /// This context's current state of `objectID`, for a child: the registered object's
    /// values (unsaved changes included), else what this context's own source holds.
    /// A deleted object has no state. Runs on this context's queue.
    private func snapshotForChild(of objectID: NSManagedObjectID) throws -> StoreRow? {
        try performAndWait {
            servesChildren = true
            let objectID = resolvedForChild(objectID)
            guard let object = registry[objectID] else { return try sourceRow(for: objectID) }
            guard object.lifecycle != .deleted else { return nil }
            object.fireFaultIfNeeded()
            guard object.lifecycle != .deleted else { return nil }
            return object.snapshotForChild()
        }
    }

    /// The rows a child's fetch reads: this context's own fetch of `request` (pending
    /// changes included, whatever the child asked), as snapshots of its objects.
    func rowsForChild<T>(_ request: NSFetchRequest<T>, limit: Int, offset: Int) throws -> [StoreRow] {
        let copy = request.copied(as: NSManagedObject.self)
        copy.resultType = .managedObjectResultType
        copy.includesPendingChanges = true
        copy.returnsObjectsAsFaults = false
        copy.relationshipKeyPathsForPrefetching = nil
        copy.fetchLimit = limit
        copy.fetchOffset = offset
        return try performAndWait {
            servesChildren = true
            // The child names objects by the temporary IDs it keeps; here they may have permanent ones.
            if !temporaryIDAliases.isEmpty, let predicate = copy.predicate {
                copy.predicate = Substitution.mappingConstants(in: predicate, resolvedForChild(value:))
            }
            return try fetch(copy).map { $0.snapshotForChild() }
        }
    }

    /// A predicate constant of a child's, with its objects and IDs as this context knows them.
    private func resolvedForChild(value: Any?) -> Any? {
        switch value {
        case let object as NSManagedObject: resolvedForChild(object.objectID)
        case let id as NSManagedObjectID: resolvedForChild(id)
        case let array as [Any]: array.map(resolvedForChild(value:))
        case let set as NSSet: set.allObjects.map(resolvedForChild(value:))
        case let ordered as NSOrderedSet: ordered.array.map(resolvedForChild(value:))
        case let set as Set<AnyHashable>: set.map { resolvedForChild(value: $0.base) }
        default: value
        }
    }

    /// For a child: the permanent IDs this context (or its own source) has given objects
    /// the child holds under `temporaryIDs`; IDs still temporary here are left out.
    func permanentIDsForChild(_ temporaryIDs: [NSManagedObjectID]) -> [NSManagedObjectID: NSManagedObjectID] {
        performAndWait {
            servesChildren = true
            var found: [NSManagedObjectID: NSManagedObjectID] = [:]
            var unknown: [NSManagedObjectID] = []
            for id in temporaryIDs {
                if let permanent = temporaryIDAliases[id] ?? sourcePermanentIDs[id] {
                    found[id] = permanent
                } else {
                    unknown.append(id)
                }
            }
            // Saved further up (this context may no longer hold the object): ask the source.
            if !unknown.isEmpty, let parent {
                for (temporary, permanent) in parent.permanentIDsForChild(unknown) {
                    found[temporary] = permanent
                    rememberSourcePermanentID(permanent, for: temporary)
                }
            }
            return found
        }
    }

    private func rememberSourcePermanentID(_ permanent: NSManagedObjectID, for temporary: NSManagedObjectID) {
        sourcePermanentIDs[temporary] = permanent
        temporaryIDsBySourceID[permanent] = temporary
    }

    /// A child learns the permanent IDs its parent's saves gave the objects it pushed
    /// there and still holds under temporary IDs (on this context's queue). Called before
    /// reading rows from the parent, so a row read under a permanent ID is the child's own object.
    func learnSourcePermanentIDs() {
        guard let parent else { return }
        let pushed = registry.temporaryObjects.filter {
            $0.lifecycle != .inserted && sourcePermanentIDs[$0.objectID] == nil
        }
        guard !pushed.isEmpty else { return }
        for (temporary, permanent) in parent.permanentIDsForChild(pushed.map(\.objectID)) {
            rememberSourcePermanentID(permanent, for: temporary)
        }
    }

    /// The IDs of the objects a to-many relationship of `objectID` holds in this context
    /// (unsaved changes included), for a child loading that relationship.
    func relatedObjectIDsForChild(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) -> [NSManagedObjectID] {
        performAndWait {
            servesChildren = true
            let objectID = resolvedForChild(objectID)
            let object = registry[objectID] ?? self.object(with: objectID)
            guard object.lifecycle != .deleted else { return [] }
            object.fireFaultIfNeeded()
            return object.toMany(relationship).members.map(\.objectID)
        }
    }

    /// The ID this context knows an object by: a child may still hold the temporary ID
    /// that this context's save has since replaced.
    func resolvedForChild(_ objectID: NSManagedObjectID) -> NSManagedObjectID {
        temporaryIDAliases[objectID] ?? objectID
    }

    // MARK: Saving into the parent

    /// A child's save: its inserts, changes and deletes become unsaved changes of the
    /// parent, on the parent's queue; nothing reaches the store until the parent saves.
    ///
    /// The parent plays the store's part in optimistic locking: every changed or deleted
    /// object whose state in the parent is no longer what the child read (a value changed
    /// there, or the object was deleted) is a conflict for the child's merge policy, and
    /// the push starts over, as a root context's save does with stale rows. The check and
    /// the push run in one call on the parent's queue, so nothing comes between them.
    /// Returns what was pushed.
    func pushChanges(
        to parent: NSManagedObjectContext
    ) throws -> (inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) {
        var round = 0
        while true {
            let inserted = Array(insertedSet)
            let updated = Array(updatedSet)
            let deleted = Array(deletedSet)
            let changed = updated.filter { $0.lifecycle == .persisted }
            let checked = changed + deleted
            let push = ChildPush(
                inserted: inserted.map { ($0.objectID, $0.entity) },
                writes: inserted.map { ChildWrite($0, slots: Array($0.storage.indices)) }
                    + changed.map { ChildWrite($0, slots: Array($0.changedSlots)) },
                deletedIDs: deleted.map(\.objectID),
                read: checked.map(ChildReadState.init)
            )
            let conflicts = try parent.performAndWait { try parent.receive(push) }
            guard !conflicts.isEmpty else {
                // The child's values are now its source's: committed, with nothing pending.
                for object in inserted + updated {
                    object.lifecycle = .persisted
                    object.markPushedToParent()
                }
                for object in deleted {
                    object.lifecycle = .detached
                    registryRemove(object)
                }
                return (inserted, updated, deleted)
            }
            round += 1
            let found = SaveConflictsFound(locking: conflicts.map { (checked[$0.index], $0.row) })
            try resolveConflicts(found, giveUp: round >= Self.conflictResolutionRounds)
        }
    }

    /// Applies a child's save to this context's objects (on this context's queue), unless
    /// some of the child's objects changed here since the child read them: then nothing
    /// changes, and those are returned (by their index in `push.read`, with this context's
    /// state of them now, `nil` when deleted).
    ///
    /// Every ID the child names must be one this context can reach: a permanent ID, an
    /// object it holds, or one of the child's new objects. A temporary ID it no longer
    /// knows (an object the child kept under its temporary ID across a save of this
    /// context that it was not part of) fails the child's save before anything changes,
    /// rather than leaving an empty stand-in here that would break this context's saves.
    private func receive(_ push: ChildPush) throws -> [(index: Int, row: StoreRow?)] {
        servesChildren = true
        let incoming = Set(push.inserted.map(\.0))
        var referenced = push.deletedIDs + push.writes.map(\.objectID)
        for write in push.writes { referenced += write.values.flatMap(\.value.objectIDs) }
        for id in referenced where resolvedForChild(id).isTemporaryID && !incoming.contains(id) && registry[id] == nil {
            throw CoreDataError.make(
                NSManagedObjectReferentialIntegrityError,
                "The child context's save refers to an object by a temporary ID its parent no longer knows (\(id.uriRepresentation().absoluteString)); call obtainPermanentIDs(for:) in the child before saving objects you keep using",
                [NSAffectedObjectsErrorKey: [id]])
        }
        var conflicts: [(index: Int, row: StoreRow?)] = []
        for (index, state) in push.read.enumerated() {
            let row = try snapshotForChild(of: state.objectID)
            if let row, state.matches(row, in: self) { continue }
            conflicts.append((index, row))
        }
        guard conflicts.isEmpty else { return conflicts }
        // New objects first, so writes can point at them.
        for (id, entity) in push.inserted where registry[id] == nil {
            let object = entity.instantiate(insertInto: nil)
            object.objectID = id
            // Recorded while still new, so this context's undo takes the insert back.
            registry.undoRecorder?.objectWillChange(object, slot: nil)
            object.lifecycle = .inserted
            register(object)
            adoptInsertFromChild(object)
        }
        for write in push.writes {
            let id = resolvedForChild(write.objectID)
            let object = registry[id] ?? self.object(with: id)
            object.fireFaultIfNeeded()
            guard object.lifecycle != .deleted else { continue }
            for (slot, value) in write.values {
                let property = object.entityFacts.slots[slot]
                if case let .toManyChanges(added, removed) = value,
                    let relationship = property as? NSRelationshipDescription
                {
                    // Only the child's additions and removals: members this context added
                    // meanwhile stay.
                    var members = object.toMany(relationship).members
                    for id in removed { if let member = registry[resolvedForChild(id)] { members.remove(member) } }
                    for id in added { members.append(self.object(forChild: id)) }
                    object.primitiveSetMembers(relationship, members)
                } else {
                    object.assign(value.resolved(in: self), to: property, maintainingInverse: false)
                }
            }
        }
        for id in push.deletedIDs {
            let id = resolvedForChild(id)
            delete(registry[id] ?? self.object(with: id))
        }
        processPendingChanges()
        return []
    }
}

/// Everything one push of a child's save hands its parent, as IDs and values rather
/// than the child's objects, which belong to the child's queue.
struct ChildPush: @unchecked Sendable {
    /// The child's new objects.
    let inserted: [(NSManagedObjectID, NSEntityDescription)]
    /// Values of new objects (all) and of changed ones (their changes).
    let writes: [ChildWrite]
    let deletedIDs: [NSManagedObjectID]
    /// What the child read of each changed or deleted object, to check against the parent.
    let read: [ChildReadState]
}

/// The values a child read of one object it changes or deletes: the parent's state then.
struct ChildReadState {
    let objectID: NSManagedObjectID
    /// The committed values (to-ones as IDs); `nil` when the child never loaded them.
    let values: SlotValues?

    init(_ object: NSManagedObject) {
        objectID = object.objectID
        values = object.committed
    }

    /// Whether `row`, the parent's state now, still holds what the child read, compared
    /// as a snapshot is: attributes and to-ones, by value. A to-one the child knows by a
    /// temporary ID matches the permanent ID the parent's save gave the same object.
    func matches(_ row: StoreRow, in parent: NSManagedObjectContext) -> Bool {
        guard let values else { return true }
        let facts = objectID.entity.facts
        for slot in facts.rowColumnSlots where slot < values.count {
            let property = facts.slots[slot]
            var read = values[slot]
            if let id = read as? NSManagedObjectID { read = parent.resolvedForChild(id) }
            if !MergeResolution.same(read, row.values[slot], property) { return false }
        }
        return true
    }
}

extension NSManagedObjectContext {
    /// This context's object for an ID a child names.
    func object(forChild id: NSManagedObjectID) -> NSManagedObject {
        let id = resolvedForChild(id)
        return registeredObject(for: id) ?? object(with: id)
    }
}

/// One child object's values for the parent, as IDs rather than the child's objects,
/// which belong to the child's queue.
struct ChildWrite {
    /// A value the parent stores: attributes as they are, relationships by object ID.
    enum Value {
        case attribute(Any?)
        case toOne(NSManagedObjectID?)
        /// An ordered to-many: the whole member list, since order is part of the change.
        case toMany([NSManagedObjectID])
        /// An unordered to-many: what the child added and removed.
        case toManyChanges(added: [NSManagedObjectID], removed: [NSManagedObjectID])

        /// The value in `context`'s terms (its objects for the IDs).
        func resolved(in context: NSManagedObjectContext) -> Any? {
            switch self {
            case let .attribute(value): value
            case let .toOne(id): id.map(context.object(forChild:))
            case let .toMany(ids): ids.map(context.object(forChild:))
            case let .toManyChanges(added, _): added.map(context.object(forChild:))
            }
        }

        /// The objects the value names.
        var objectIDs: [NSManagedObjectID] {
            switch self {
            case .attribute: []
            case let .toOne(id): id.map { [$0] } ?? []
            case let .toMany(ids): ids
            case let .toManyChanges(added, removed): added + removed
            }
        }
    }

    let objectID: NSManagedObjectID
    let values: [(slot: Int, value: Value)]

    init(_ object: NSManagedObject, slots: [Int]) {
        objectID = object.objectID
        let facts = object.entityFacts
        values = slots.sorted().compactMap { slot in
            switch facts.slotFacts[slot].kind {
            case .attribute:
                // Fetched properties are results, not values.
                guard !(facts.slots[slot] is NSFetchedPropertyDescription) else { return nil }
                return (slot, .attribute(object.storage[slot]))
            case .toOne:
                return (slot, .toOne(NSManagedObject.objectID(of: object.storage[slot])))
            case .toMany:
                // An unloaded to-many did not change.
                guard let loaded = object.storage[slot] as? ToManyRelationship else { return nil }
                if (facts.slots[slot] as? NSRelationshipDescription)?.isOrdered == true || loaded.committed == nil {
                    return (slot, .toMany(loaded.members.map(\.objectID)))
                }
                return (
                    slot, .toManyChanges(added: loaded.added.map(\.objectID), removed: loaded.removed.map(\.objectID))
                )
            }
        }
    }
}

extension NSManagedObject {
    /// The object's current values as a row a child context loads: to-ones as IDs,
    /// to-manys left to load on demand (through this context), transients left out.
    func snapshotForChild() -> StoreRow {
        var values = rowValues()
        for slot in entityFacts.transientSlots { values[slot] = nil }
        return StoreRow.make(objectID: objectID, version: storedVersion, values: values, timestamp: StoreRow.now())
    }

    /// After a child's save: its values are its parent's now, so they are committed
    /// (to-ones as IDs, as a loaded snapshot holds them).
    func markPushedToParent() {
        committed = rowValues()
        for slot in entityFacts.toManySlots {
            if let loaded = storage[slot] as? ToManyRelationship { loaded.committed = loaded.members }
        }
        changedSlots.removeAll()
    }
}
