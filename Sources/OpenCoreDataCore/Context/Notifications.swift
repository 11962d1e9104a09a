// Core Data's notification names and userInfo keys, spelled as Apple spells them, so
// observers written for Core Data work unchanged. The three oldest names have raw
// values that differ from their constants' names (Core Data kept its original
// strings); code that builds a `Notification.Name` from the string sees them too.

extension Notification.Name {
    /// Posted by a context when its objects changed (at the end of an event, in `processPendingChanges()`).
    public static let NSManagedObjectContextObjectsDidChange = Notification.Name(
        "NSObjectsChangedInManagingContextNotification")
    /// Posted by a context at the start of `save()`.
    public static let NSManagedObjectContextWillSave = Notification.Name("NSManagingContextWillSaveChangesNotification")
    /// Posted by a context after a successful save, with the saved objects.
    public static let NSManagedObjectContextDidSave = Notification.Name("NSManagingContextDidSaveChangesNotification")
    /// Posted after a successful save, with the IDs of the saved objects.
    public static let NSManagedObjectContextDidSaveObjectIDs = Notification.Name(
        "NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted after a context merged changes, with the IDs of the merged objects.
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = Notification.Name(
        "NSManagedObjectContextDidMergeChangesObjectIDsNotification")
    /// Posted by a coordinator after stores were added or removed; the userInfo names them
    /// under ``NSAddedPersistentStoresKey`` and ``NSRemovedPersistentStoresKey``.
    public static let NSPersistentStoreCoordinatorStoresDidChange = Notification.Name(
        "NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Posted by a coordinator before stores are added or removed, with the same userInfo
    /// as the did-change notification that follows.
    public static let NSPersistentStoreCoordinatorStoresWillChange = Notification.Name(
        "NSPersistentStoreCoordinatorStoresWillChangeNotification")
    /// Posted before a store is removed from its coordinator; the notification's object is the store.
    public static let NSPersistentStoreCoordinatorWillRemoveStore = Notification.Name(
        "NSPersistentStoreCoordinatorWillRemoveStoreNotification")
}

extension NSManagedObjectContext {
    /// Swift name of `NSManagedObjectContextObjectsDidChange`.
    public static let didChangeObjectsNotification = Notification.Name.NSManagedObjectContextObjectsDidChange
    /// Swift name of `NSManagedObjectContextWillSave`.
    public static let willSaveObjectsNotification = Notification.Name.NSManagedObjectContextWillSave
    /// Swift name of `NSManagedObjectContextDidSave`.
    public static let didSaveObjectsNotification = Notification.Name.NSManagedObjectContextDidSave
    /// Swift name of `NSManagedObjectContextDidSaveObjectIDs`.
    public static let didSaveObjectIDsNotification = Notification.Name.NSManagedObjectContextDidSaveObjectIDs
    /// Swift name of `NSManagedObjectContextDidMergeChangesObjectIDs`.
    public static let didMergeChangesObjectIDsNotification = Notification.Name
        .NSManagedObjectContextDidMergeChangesObjectIDs

    /// The userInfo keys of context notifications.
    public enum NotificationKey: String, Sendable {
        /// The objects inserted (``NSInsertedObjectsKey``).
        case insertedObjects = "inserted"
        /// The objects updated (``NSUpdatedObjectsKey``).
        case updatedObjects = "updated"
        /// The objects deleted (``NSDeletedObjectsKey``).
        case deletedObjects = "deleted"
        /// The objects refreshed (``NSRefreshedObjectsKey``).
        case refreshedObjects = "refreshed"
        /// The objects invalidated (``NSInvalidatedObjectsKey``).
        case invalidatedObjects = "invalidated"
        /// Every object was invalidated, by a reset (``NSInvalidatedAllObjectsKey``).
        case invalidatedAllObjects = "invalidatedAll"
        /// The IDs of the objects inserted (``NSInsertedObjectIDsKey``).
        case insertedObjectIDs = "inserted_objectIDs"
        /// The IDs of the objects updated (``NSUpdatedObjectIDsKey``).
        case updatedObjectIDs = "updated_objectIDs"
        /// The IDs of the objects deleted (``NSDeletedObjectIDsKey``).
        case deletedObjectIDs = "deleted_objectIDs"
        /// The IDs of the objects refreshed (``NSRefreshedObjectIDsKey``).
        case refreshedObjectIDs = "refreshed_objectIDs"
        /// The IDs of the objects invalidated (``NSInvalidatedObjectIDsKey``).
        case invalidatedObjectIDs = "invalidated_objectIDs"
        /// Core Data's key for a query generation token; no notification here carries one.
        case queryGeneration = "managedObjectContextQueryGenerationKey"
    }
}

/// userInfo key: the objects inserted (a `Set<NSManagedObject>`).
public let NSInsertedObjectsKey = "inserted"
/// userInfo key: the objects updated.
public let NSUpdatedObjectsKey = "updated"
/// userInfo key: the objects deleted.
public let NSDeletedObjectsKey = "deleted"
/// userInfo key: the objects refreshed.
public let NSRefreshedObjectsKey = "refreshed"
/// userInfo key: the objects invalidated.
public let NSInvalidatedObjectsKey = "invalidated"
/// userInfo key: present when all objects were invalidated (after `reset()`).
public let NSInvalidatedAllObjectsKey = "invalidatedAll"
/// userInfo key: the IDs of inserted objects (a `Set<NSManagedObjectID>`).
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
/// userInfo key: the IDs of updated objects.
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
/// userInfo key: the IDs of deleted objects.
public let NSDeletedObjectIDsKey = "deleted_objectIDs"
/// userInfo key: the stores added to a coordinator.
public let NSAddedPersistentStoresKey = "added"
/// userInfo key: the stores removed from a coordinator.
public let NSRemovedPersistentStoresKey = "removed"
/// userInfo key: a store whose UUID changed, as the old store followed by the new one.
public let NSUUIDChangedPersistentStoresKey = "changedUUID"
