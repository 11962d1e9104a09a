// Nested contexts: a child context's "store" is its parent context. The child reads the
// parent's current state (its unsaved changes included) and its save hands its changes
// to the parent, which writes them to the store only when it saves itself.
extension NSManagedObjectContext {
    // MARK: Reading through the parent

    /// The state of `objectID` as this context's source holds it: the parent's current
    /// values for a child context, the row cache (within `stalenessInterval`) or the store
    /// for a root context. `nil` when the source has no such object.
    func sourceRow(for objectID: NSManagedObjectID) throws -> StoreRow? {
        if let parent { return try parent.snapshotForChild(of: objectID) }
        guard let coordinator = persistentStoreCoordinator, !objectID.isTemporaryID else { return nil }
        return try coordinator.row(for: objectID, maxAge: stalenessInterval, at: readGeneration)
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
            return try fetch(copy).map { $0.snapshotForChild() }
        }
    }

    /// The IDs of the objects a to-many relationship of `objectID` holds in this context
    /// (unsaved changes included), for a child loading that relationship.
    func relatedObjectIDsForChild(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription) -> [NSManagedObjectID] {
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
    func pushChanges(to parent: NSManagedObjectContext) throws {
        let inserted = Array(insertedSet)
        let updated = Array(updatedSet)
        let deleted = Array(deletedSet)
        let writes = inserted.map { ChildWrite($0, slots: Array($0.storage.indices)) }
            + updated.filter { $0.lifecycle == .persisted }.map { ChildWrite($0, slots: Array($0.changedSlots)) }
        let deletedIDs = deleted.map(\.objectID)
        try parent.performAndWait {
            try parent.receive(insertedIDs: inserted.map { ($0.objectID, $0.entity) }, writes: writes, deletedIDs: deletedIDs)
        }
        // The child's values are now its source's: committed, with nothing pending.
        for object in inserted + updated {
            object.lifecycle = .persisted
            object.markPushedToParent()
        }
        for object in deleted {
            object.lifecycle = .detached
            registryRemove(object)
        }
    }

    /// Applies a child's save to this context's objects (on this context's queue).
    ///
    /// Every ID the child names must be one this context can reach: a permanent ID, an
    /// object it holds, or one of the child's new objects. A temporary ID it no longer
    /// knows (an object the child kept under its temporary ID across a save of this
    /// context that it was not part of) fails the child's save before anything changes,
    /// rather than leaving an empty stand-in here that would break this context's saves.
    private func receive(insertedIDs: [(NSManagedObjectID, NSEntityDescription)], writes: [ChildWrite], deletedIDs: [NSManagedObjectID]) throws {
        servesChildren = true
        let incoming = Set(insertedIDs.map(\.0))
        var referenced = deletedIDs + writes.map(\.objectID)
        for write in writes { referenced += write.values.flatMap(\.value.objectIDs) }
        for id in referenced where resolvedForChild(id).isTemporaryID && !incoming.contains(id) && registry[id] == nil {
            throw CoreDataError.make(NSManagedObjectReferentialIntegrityError, "The child context's save refers to an object by a temporary ID its parent no longer knows (\(id.uriRepresentation().absoluteString)); call obtainPermanentIDs(for:) in the child before saving objects you keep using", [NSAffectedObjectsErrorKey: [id]])
        }
        // New objects first, so writes can point at them.
        for (id, entity) in insertedIDs where registry[id] == nil {
            let object = entity.instantiate(insertInto: nil)
            object.objectID = id
            // Recorded while still new, so this context's undo takes the insert back.
            registry.undoRecorder?.objectWillChange(object, slot: nil)
            object.lifecycle = .inserted
            register(object)
            adoptInsertFromChild(object)
        }
        for write in writes {
            let id = resolvedForChild(write.objectID)
            let object = registry[id] ?? self.object(with: id)
            object.fireFaultIfNeeded()
            guard object.lifecycle != .deleted else { continue }
            for (slot, value) in write.values {
                let property = object.entityFacts.slots[slot]
                if case let .toManyChanges(added, removed) = value, let relationship = property as? NSRelationshipDescription {
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
        for id in deletedIDs {
            let id = resolvedForChild(id)
            delete(registry[id] ?? self.object(with: id))
        }
        processPendingChanges()
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
struct ChildWrite: @unchecked Sendable {
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
                return (slot, .toManyChanges(added: loaded.added.map(\.objectID), removed: loaded.removed.map(\.objectID)))
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
        return StoreRow(objectID: objectID, version: storedVersion, values: values, timestamp: StoreRow.now())
    }

    /// After a child's save: its values are its parent's now, so they are committed.
    func markPushedToParent() {
        committed = storage
        for slot in entityFacts.toManySlots {
            if let loaded = storage[slot] as? ToManyRelationship { loaded.committed = loaded.members }
        }
        changedSlots.removeAll()
    }
}
