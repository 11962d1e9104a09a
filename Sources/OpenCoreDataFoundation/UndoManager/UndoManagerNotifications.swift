import Foundation
// The notifications an undo manager posts, under Foundation's names and strings, so
// observers written for Apple's `UndoManager` work unchanged. Foundation on Apple
// platforms declares the same names (with the same strings), so these are only
// declared where it does not: declaring them twice would make them ambiguous.

#if !canImport(Darwin)
extension Notification.Name {
    /// Posted when an undo manager opens or closes a group, before it undoes or redoes,
    /// and when `canRedo` is read: observers (contexts) register their pending changes then.
    public static let NSUndoManagerCheckpoint = Notification.Name("NSUndoManagerCheckpointNotification")
    /// Posted after an undo manager opened a group.
    public static let NSUndoManagerDidOpenUndoGroup = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    /// Posted before an undo manager closes a group; `userInfo` has
    /// `NSUndoManagerGroupIsDiscardableKey` when every operation in it is discardable.
    public static let NSUndoManagerWillCloseUndoGroup = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    /// Posted after an undo manager closed a group; `userInfo` as for the will-close notification.
    public static let NSUndoManagerDidCloseUndoGroup = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")
    /// Posted before an undo manager undoes a group.
    public static let NSUndoManagerWillUndoChange = Notification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Posted after an undo manager undid a group.
    public static let NSUndoManagerDidUndoChange = Notification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Posted before an undo manager redoes a group.
    public static let NSUndoManagerWillRedoChange = Notification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Posted after an undo manager redid a group.
    public static let NSUndoManagerDidRedoChange = Notification.Name("NSUndoManagerDidRedoChangeNotification")
}

/// userInfo key of the close-group notifications: `true` (an `NSNumber`) when the group
/// holds only operations marked discardable, which a document may drop when it cannot save.
public let NSUndoManagerGroupIsDiscardableKey = "NSUndoManagerGroupIsDiscardableKey"
#endif
