extension NSManagedObjectContext {
    /// The work of `save()`, kept out of the class body so the overridable method stays short.
    func saveChanges() throws {
        // The app's changes and what `willSave()` adds are one event, so one undo group:
        // the first call registers the app's changes without closing the group.
        holdsUndoEvent = true
        processPendingChanges()
        guard hasChanges else {
            holdsUndoEvent = false
            closeUndoEvent()
            // Metadata set on a store is saved even when no object changed, as in Core Data.
            if parent == nil, let coordinator = persistentStoreCoordinator { try coordinator.saveMetadata() }
            return
        }
        NotificationCenter.default.post(name: .NSManagedObjectContextWillSave, object: self)
        for object in insertedSet.union(updatedSet).union(deletedSet) { object.willSave() }
        for object in insertedSet { object.applyDerivations() }
        for object in updatedSet { object.applyDerivations() }
        holdsUndoEvent = false
        processPendingChanges()
        // Closed even when `willSave()` changed nothing (then nothing was registered just now).
        closeUndoEvent()
        try refuseUnreadChanges()
        try validatePendingChanges()

        if let parent {
            // Conflicts with the parent's state go to the merge policy, which may change
            // the sets (NSManagedObjectContext+Parent.swift); these are what was pushed.
            let (inserted, updated, deleted) = try pushChanges(to: parent)
            undoGeneration &+= 1
            clearSavedChanges()
            for object in inserted + updated + deleted { object.didSave() }
            postDidSave(inserted: inserted, updated: updated, deleted: deleted)
            return
        }

        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "This context has no persistent store coordinator")
        }
        guard let store = coordinator.persistentStores.first else {
            throw CoreDataError.make(
                NSPersistentStoreSaveError,
                "This NSPersistentStoreCoordinator has no persistent stores. It cannot perform a save operation.")
        }

        if store is NSAtomicStore || store.isIncremental {
            // An atomic or incremental store hands new objects to its subclass, which needs
            // their permanent IDs: Core Data obtains them before such a store saves.
            let pending = insertedSet.filter { $0.objectID.isTemporaryID }
            let temporaryIDs = pending.map(\.objectID)
            try obtainPermanentIDs(for: pending)
            if servesChildren {
                for (object, temporary) in zip(pending, temporaryIDs) {
                    temporaryIDAliases[temporary] = object.objectID
                }
            }
        }

        // Conflicts found in the write's transaction go to the merge policy, which may
        // change the sets (NSManagedObjectContext+ConflictResolution.swift, MergeResolution.swift); these are what was written.
        let (inserted, updated, deleted, assignedKeys) = try writeResolvingConflicts(to: store, coordinator)

        // The store committed: bring objects and the registry up to date.
        // Every new object gets its permanent ID before any snapshot is taken, so
        // snapshots of relationships between new objects hold permanent IDs.
        var promoted: [NSManagedObject] = []
        var temporaryIDs: [NSManagedObjectID] = []
        for object in inserted {
            if object.objectID.isTemporaryID, let key = assignedKeys[ObjectIdentifier(object)] {
                temporaryIDs.append(object.objectID)
                promoted.append(object)
                object.objectID = NSManagedObjectID(entity: object.entity, store: store, primaryKey: key)
            }
            object.lifecycle = .persisted
        }
        promoteRegistrations(promoted, from: temporaryIDs)
        if servesChildren {
            for (object, temporary) in zip(promoted, temporaryIDs) { temporaryIDAliases[temporary] = object.objectID }
        }
        undoGeneration &+= 1
        let now = StoreRow.now()
        var snapshots: [StoreRow] = []
        snapshots.reserveCapacity(inserted.count + updated.count)
        for object in inserted { snapshots.append(object.commitSavedState(version: 1, timestamp: now)) }
        for object in updated where object.lifecycle == .persisted {
            snapshots.append(object.commitSavedState(version: object.storedVersion + 1, timestamp: now))
        }
        coordinator.cacheSavedRows(snapshots, deleted: deleted.map(\.objectID))
        // A pinned context sees the store after its own save (at its next read).
        advanceQueryGeneration()
        for object in deleted {
            object.lifecycle = .detached
            registryRemove(object)
        }
        clearSavedChanges()
        for object in inserted + updated + deleted { object.didSave() }
        postDidSave(inserted: inserted, updated: updated, deleted: deleted)
    }

    /// Validates every inserted, updated and deleted object, throwing all errors at once
    /// (`NSValidationMultipleErrorsError` when several). It goes through the overridable
    /// methods so subclasses' rules count.
    func validatePendingChanges() throws {
        var errors: [NSError] = []
        func collect(_ validate: () throws -> Void) {
            do { try validate() } catch let error as NSError {
                errors +=
                    (error.code == NSValidationMultipleErrorsError
                        ? error.userInfo[NSDetailedErrorsKey] as? [NSError] : nil) ?? [error]
            }
        }
        for object in insertedSet { collect(object.validateForInsert) }
        for object in updatedSet { collect(object.validateForUpdate) }
        for object in deletedSet { collect(object.validateForDelete) }
        if let error = CoreDataError.combine(errors) { throw error }
    }

    /// `NSManagedObjectContextDidSave` and its object-ID twin, for a save that completed.
    private func postDidSave(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) {
        let info: [AnyHashable: Any] = [
            NSInsertedObjectsKey: Set(inserted),
            NSUpdatedObjectsKey: Set(updated),
            NSDeletedObjectsKey: Set(deleted),
        ]
        NotificationCenter.default.post(name: .NSManagedObjectContextDidSave, object: self, userInfo: info)
        let idInfo: [AnyHashable: Any] = [
            NSInsertedObjectIDsKey: Set(inserted.map(\.objectID)),
            NSUpdatedObjectIDsKey: Set(updated.map(\.objectID)),
            NSDeletedObjectIDsKey: Set(deleted.map(\.objectID)),
        ]
        NotificationCenter.default.post(name: .NSManagedObjectContextDidSaveObjectIDs, object: self, userInfo: idInfo)
    }
}

/// Turns the context's changed objects into one store request: all stored values of
/// inserted rows, only the changed columns of updated rows, deleted rows, and the
/// membership changes of to-many relationships that live outside the rows.
struct SaveRequestBuilder {
    /// Primary keys for objects that have no permanent ID yet.
    let keys: [ObjectIdentifier: Int64]

    func request(
        inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]
    ) throws -> StoreSaveRequest {
        var request = StoreSaveRequest()
        request.inserts.reserveCapacity(inserted.count)
        for object in inserted {
            let facts = object.entity.facts
            request.inserts.append(try write(object, slots: facts.rowColumnSlots))
            if !facts.storedToManySlots.isEmpty { request.memberships += try memberships(of: object) }
        }
        for object in updated where object.lifecycle == .persisted {
            let facts = object.entity.facts
            var changed: [Int] = []
            for slot in object.changedSlots
            where facts.slotFacts[slot].isRowColumn && object.isChanged(facts.slots[slot]) {
                changed.append(slot)
            }
            request.updates.append(try write(object, slots: changed))
            if !facts.storedToManySlots.isEmpty { request.memberships += try memberships(of: object) }
        }
        for object in deleted {
            request.deletes.append((try reference(object), object.storedVersion))
        }
        return request
    }

    /// The row write of `slots`, sharing the object's storage; only to-ones are
    /// rewritten, as row references.
    private func write(_ object: NSManagedObject, slots: [Int]) throws -> StoreSaveRequest.RowWrite {
        let facts = object.entity.facts
        var values = object.storage
        if facts.hasRelationships {
            for slot in slots where facts.slotFacts[slot].kind == .toOne {
                switch values[slot] {
                case let target as NSManagedObject: values[slot] = try reference(target)
                case let id as NSManagedObjectID: values[slot] = try reference(id)
                default: values[slot] = nil
                }
            }
        }
        return StoreSaveRequest.RowWrite(
            entity: object.entity, primaryKey: try reference(object).primaryKey, values: values, slots: slots,
            expectedVersion: object.storedVersion)
    }

    private func memberships(of object: NSManagedObject) throws -> [StoreSaveRequest.MembershipChange] {
        var result: [StoreSaveRequest.MembershipChange] = []
        let facts = object.entity.facts
        for slot in facts.storedToManySlots {
            guard let relationship = facts.slots[slot] as? NSRelationshipDescription,
                let loaded = object.storage[slot] as? ToManyRelationship,
                loaded.hasChanges(ordered: relationship.isOrdered)
            else { continue }
            result.append(
                StoreSaveRequest.MembershipChange(
                    relationship: relationship,
                    source: try reference(object),
                    added: try loaded.added.map(reference),
                    removed: try loaded.removed.filter {
                        !$0.objectID.isTemporaryID || keys[ObjectIdentifier($0)] != nil
                    }.map(reference),
                    orderedMembers: relationship.isOrdered ? try loaded.members.map(reference) : nil
                ))
        }
        return result
    }

    private func reference(_ object: NSManagedObject) throws -> StoreSaveRequest.RowReference {
        if let key = object.objectID.primaryKey ?? keys[ObjectIdentifier(object)] {
            return StoreSaveRequest.RowReference(entity: object.entity, primaryKey: key)
        }
        throw CoreDataError.make(
            NSManagedObjectReferentialIntegrityError,
            "\(object.entity.name ?? "?") object \(object.objectID.uriRepresentation().absoluteString) is related to a saved object but is not being saved itself",
            [NSAffectedObjectsErrorKey: [object]]
        )
    }

    private func reference(_ id: NSManagedObjectID) throws -> StoreSaveRequest.RowReference {
        guard let key = id.primaryKey else {
            throw CoreDataError.make(
                NSManagedObjectReferentialIntegrityError, "Dangling reference to an unsaved object \(id)")
        }
        return StoreSaveRequest.RowReference(entity: id.entity, primaryKey: key)
    }
}
