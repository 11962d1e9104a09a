extension NSManagedObjectContext {
    /// Brings this context up to date with another context's save, given its
    /// `NSManagedObjectContextDidSave` notification (call it on this context's queue, or
    /// let it run there: it waits for the queue).
    ///
    /// As in Core Data: registered objects the other context updated are refreshed, and
    /// this context's unsaved changes to them stay on top; registered objects it deleted
    /// become deleted here and leave the context (unsaved changes to them are dropped);
    /// objects it inserted become available as faults. The context then posts
    /// `NSManagedObjectContextObjectsDidChange` (`NSInsertedObjectsKey`,
    /// `NSRefreshedObjectsKey`, `NSDeletedObjectsKey`) and
    /// `NSManagedObjectContextDidMergeChangesObjectIDs` with the IDs. The userInfo may hold
    /// objects or IDs under `NSInsertedObjectsKey`, `NSUpdatedObjectsKey` and
    /// `NSDeletedObjectsKey`, or IDs under the `…ObjectIDsKey` keys (the
    /// `NSManagedObjectContextDidSaveObjectIDs` notification works too). A save through
    /// another coordinator on the same store file is matched through object URIs, and the
    /// refreshed objects then read the store rather than this coordinator's cached rows.
    ///
    /// - Parameter notification: An `NSManagedObjectContextDidSave` or
    ///   `NSManagedObjectContextDidSaveObjectIDs` notification from another context, or the
    ///   notification of a history transaction's `objectIDNotification()`.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        guard let coordinator = persistentStoreCoordinator, let info = notification.userInfo else { return }
        let sender = notification.object as? NSManagedObjectContext
        if sender === self { return }
        let inserted = Self.objectIDs(in: info, [NSInsertedObjectsKey, NSInsertedObjectIDsKey], coordinator)
        let updated = Self.objectIDs(in: info, [NSUpdatedObjectsKey, NSUpdatedObjectIDsKey], coordinator)
        let deleted = Self.objectIDs(in: info, [NSDeletedObjectsKey, NSDeletedObjectIDsKey], coordinator)
        // A save through this coordinator left its rows in the cache; another coordinator's did not.
        if sender?.persistentStoreCoordinator !== coordinator, !(updated + deleted).isEmpty {
            coordinator.forgetCachedRows(for: updated + deleted)
        }
        performAndWait {
            mergeRemoteChanges(inserted: inserted, updated: updated, deleted: deleted)
        }
    }
}

/// userInfo key of the object-ID notifications: the IDs of refreshed objects.
public let NSRefreshedObjectIDsKey = "refreshed_objectIDs"
/// userInfo key of the object-ID notifications: the IDs of invalidated objects.
public let NSInvalidatedObjectIDsKey = "invalidated_objectIDs"
