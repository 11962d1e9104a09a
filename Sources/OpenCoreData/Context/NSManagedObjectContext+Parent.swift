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
        return try coordinator.row(for: objectID, maxAge: stalenessInterval)
    }

    /// This context's current state of `objectID`, for a child: the registered object's
    /// values (unsaved changes included), else what this context's own source holds.
    /// A deleted object has no state. Runs on this context's queue.
    private func snapshotForChild(of objectID: NSManagedObjectID) throws -> StoreRow? {
        try performAndWait {
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
            try fetch(copy).map { $0.snapshotForChild() }
        }
    }

    /// The IDs of the objects a to-many relationship of `objectID` holds in this context
    /// (unsaved changes included), for a child loading that relationship.
    func relatedObjectIDsForChild(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription) -> [NSManagedObjectID] {
        performAndWait {
            let object = registry[objectID] ?? self.object(with: objectID)
            guard object.lifecycle != .deleted else { return [] }
            object.fireFaultIfNeeded()
            return object.toMany(relationship).members.map(\.objectID)
        }
    }

    // MARK: Saving into the parent

    /// A child's save: its inserts, changes and deletes become unsaved changes of the
    /// parent, on the parent's queue; nothing reaches the store until the parent saves.
    func pushChanges(to parent: NSManagedObjectContext) {
        let inserted = Array(insertedSet)
        let updated = Array(updatedSet)
        let deleted = Array(deletedSet)
        let writes = inserted.map { ChildWrite($0, slots: Array($0.storage.indices)) }
            + updated.filter { $0.lifecycle == .persisted }.map { ChildWrite($0, slots: Array($0.changedSlots)) }
        let deletedIDs = deleted.map(\.objectID)
        parent.performAndWait {
            parent.receive(insertedIDs: inserted.map { ($0.objectID, $0.entity) }, writes: writes, deletedIDs: deletedIDs)
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
    private func receive(insertedIDs: [(NSManagedObjectID, NSEntityDescription)], writes: [ChildWrite], deletedIDs: [NSManagedObjectID]) {
        // New objects first, so writes can point at them.
        for (id, entity) in insertedIDs where registry[id] == nil {
            let object = entity.instantiate(insertInto: nil)
            object.objectID = id
            object.lifecycle = .inserted
            register(object)
            adoptInsertFromChild(object)
        }
        for write in writes {
            let object = registry[write.objectID] ?? self.object(with: write.objectID)
            object.fireFaultIfNeeded()
            guard object.lifecycle != .deleted else { continue }
            for (slot, value) in write.values {
                let property = object.entityFacts.slots[slot]
                object.assign(value.resolved(in: self), to: property, maintainingInverse: false)
            }
        }
        for id in deletedIDs {
            let object = registry[id] ?? self.object(with: id)
            delete(object)
        }
        processPendingChanges()
    }
}

/// One child object's values for the parent, as IDs rather than the child's objects,
/// which belong to the child's queue.
struct ChildWrite: @unchecked Sendable {
    /// A value the parent stores: attributes as they are, relationships by object ID.
    enum Value {
        case attribute(Any?)
        case toOne(NSManagedObjectID?)
        case toMany([NSManagedObjectID])

        /// The value in `context`'s terms (its objects for the IDs).
        func resolved(in context: NSManagedObjectContext) -> Any? {
            switch self {
            case let .attribute(value): value
            case let .toOne(id): id.map { context.registeredObject(for: $0) ?? context.object(with: $0) }
            case let .toMany(ids): ids.map { context.registeredObject(for: $0) ?? context.object(with: $0) }
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
                return (slot, .toMany(loaded.members.map(\.objectID)))
            }
        }
    }
}

extension NSManagedObject {
    /// The object's current values as a row a child context loads: to-ones as IDs,
    /// to-manys left to load on demand (through this context), transients left out.
    func snapshotForChild() -> StoreRow {
        let facts = entityFacts
        var values = storage
        for slot in values.indices {
            switch facts.slotFacts[slot].kind {
            case .attribute: continue
            case .toOne: values[slot] = Self.objectID(of: values[slot])
            case .toMany: values[slot] = nil
            }
        }
        for slot in facts.transientSlots { values[slot] = nil }
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
