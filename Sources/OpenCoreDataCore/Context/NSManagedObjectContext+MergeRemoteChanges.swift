extension NSManagedObjectContext {
    /// Brings contexts up to date with changes made elsewhere: another process, a
    /// batch request, or a serialized notification.
    ///
    /// `changeNotificationData` holds arrays or sets of `NSManagedObjectID`s (or their
    /// URIs) under `NSInsertedObjectsKey`, `NSUpdatedObjectsKey` and
    /// `NSDeletedObjectsKey` (the `…ObjectIDsKey` spellings are read too). In each
    /// context, on its queue: updated objects it has registered are refreshed (they
    /// reload from the store; unsaved changes are kept), deleted ones leave the context
    /// (`isDeleted` becomes true, `managedObjectContext` nil, unsaved changes to them
    /// are dropped), inserted ones are registered as faults. The context then posts
    /// `NSManagedObjectContextObjectsDidChange` (`NSInsertedObjectsKey`,
    /// `NSRefreshedObjectsKey`, `NSDeletedObjectsKey`) and
    /// `NSManagedObjectContextDidMergeChangesObjectIDs`. IDs from another coordinator
    /// on the same store file are matched through their URIs.
    ///
    /// - Parameters:
    ///   - changeNotificationData: The IDs (or URIs) of inserted, updated and deleted objects,
    ///     under the keys of a did-save notification.
    ///   - contexts: The contexts to update; each is updated on its own queue.
    public static func mergeChanges(
        fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]
    ) {
        var forgotten = Set<ObjectIdentifier>()
        for context in contexts {
            guard let coordinator = context.persistentStoreCoordinator else { continue }
            let inserted = objectIDs(
                in: changeNotificationData, [NSInsertedObjectsKey, NSInsertedObjectIDsKey], coordinator)
            let updated = objectIDs(
                in: changeNotificationData, [NSUpdatedObjectsKey, NSUpdatedObjectIDsKey], coordinator)
            let deleted = objectIDs(
                in: changeNotificationData, [NSDeletedObjectsKey, NSDeletedObjectIDsKey], coordinator)
            // The store changed behind the coordinator's back: cached rows must not answer the refresh.
            if forgotten.insert(ObjectIdentifier(coordinator)).inserted, !(updated + deleted).isEmpty {
                coordinator.forgetCachedRows(for: updated + deleted)
            }
            context.performAndWait {
                context.mergeRemoteChanges(inserted: inserted, updated: updated, deleted: deleted)
            }
        }
    }

    /// The merge in one context, on its queue.
    func mergeRemoteChanges(inserted: [NSManagedObjectID], updated: [NSManagedObjectID], deleted: [NSManagedObjectID]) {
        // Changes made before the merge are announced on their own.
        processPendingChanges()
        undoGeneration &+= 1
        // A pinned context moves on with the merge, so refreshed objects show the saved data.
        advanceQueryGeneration()
        var removed: [NSManagedObject] = []
        for id in deleted {
            guard let object = registeredObject(for: id) else { continue }
            forgetUnsavedChanges(of: object)
            registryRemove(object)
            object.lifecycle = .deleted
            removed.append(object)
        }
        var refreshed: [NSManagedObject] = []
        for id in updated {
            guard let object = registeredObject(for: id) else { continue }
            refresh(object, mergeChanges: true)
            pendingRefreshed.remove(object)  // announced below, with the merge
            refreshed.append(object)
        }
        var added: [NSManagedObject] = []
        for id in inserted where registeredObject(for: id) == nil {
            added.append(object(with: id))
        }
        var info: [AnyHashable: Any] = [:]
        if !added.isEmpty { info[NSInsertedObjectsKey] = Set(added) }
        if !refreshed.isEmpty { info[NSRefreshedObjectsKey] = Set(refreshed) }
        if !removed.isEmpty { info[NSDeletedObjectsKey] = Set(removed) }
        if !info.isEmpty {
            NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: info)
        }
        let idInfo: [AnyHashable: Any] = [
            NotificationKey.insertedObjectIDs.rawValue: Set(added.map(\.objectID)),
            NotificationKey.refreshedObjectIDs.rawValue: Set(refreshed.map(\.objectID)),
            NotificationKey.updatedObjectIDs.rawValue: Set(refreshed.map(\.objectID)),
            NotificationKey.deletedObjectIDs.rawValue: Set(removed.map(\.objectID)),
        ]
        NotificationCenter.default.post(
            name: .NSManagedObjectContextDidMergeChangesObjectIDs, object: self, userInfo: idInfo)
    }

    /// The IDs under `keys`, as IDs of `coordinator`'s model; unknown values are skipped.
    static func objectIDs(
        in data: [AnyHashable: Any], _ keys: [String], _ coordinator: NSPersistentStoreCoordinator
    ) -> [NSManagedObjectID] {
        var result: [NSManagedObjectID] = []
        var seen = Set<NSManagedObjectID>()
        for key in keys {
            for element in CollectionValue.elements(of: data[AnyHashable(key)]) ?? [] {
                guard let id = resolve(element, coordinator), seen.insert(id).inserted else { continue }
                result.append(id)
            }
        }
        return result
    }

    private static func resolve(_ element: Any?, _ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectID? {
        switch element {
        case let id as NSManagedObjectID:
            guard !id.isTemporaryID else { return nil }
            // An ID of another coordinator (even on the same model) names a store object of
            // that coordinator; this one's own ID for the row comes from the URI.
            if id.entity.managedObjectModel === coordinator.managedObjectModel,
                coordinator.persistentStores.contains(where: { $0 === id.persistentStore })
            {
                return id
            }
            return coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation())
        case let url as URL:
            return coordinator.managedObjectID(forURIRepresentation: url)
        case let object as NSManagedObject:
            return resolve(object.objectID, coordinator)
        default:
            return nil
        }
    }
}
