/// Store option: record every save and batch request of the store in its persistent
/// history (`true`, as an `NSNumber` or `Bool`).
///
/// Once a store has history, opening it without this option opens it read-only, as
/// Core Data does: saves made then would leave holes in the history that readers of it
/// could not notice.
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"

/// Store option: post ``Foundation/NSNotification/Name/NSPersistentStoreRemoteChange``
/// whenever the store's file changes, whichever process or coordinator wrote it.
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"

/// userInfo key of a remote change notification: the store's current
/// ``NSPersistentHistoryToken`` (present when the store tracks history).
public let NSPersistentHistoryTokenKey = "historyToken"

/// userInfo key of a remote change notification: the URL of the store that changed.
public let NSPersistentStoreURLKey = "storeURL"

extension Notification.Name {
    /// Posted by a coordinator, as the notification's object, when a store added with
    /// ``NSPersistentStoreRemoteChangeNotificationPostOptionKey`` changed on disk.
    ///
    /// The userInfo holds ``NSStoreUUIDKey``, ``NSPersistentStoreURLKey`` and, with
    /// history tracking, ``NSPersistentHistoryTokenKey``. Fetch the history after your
    /// last token to learn what changed.
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}
