/// One object as an undo group restores it: its place in the context and the values of
/// the properties the group's event changed.
struct ObjectUndoState {
    /// Inserted, saved, deleted, or out of the context.
    var lifecycle: NSManagedObject.Lifecycle
    /// Whether the context counted the object as updated.
    var isUpdated: Bool
    /// The object's slots changed since its last save.
    var changedSlots: SlotSet
    /// Assignments refused since its last save (reported by the next save).
    var rejectedAssignments: [String: String]
    /// The context's ``NSManagedObjectContext/undoGeneration`` when the state was taken.
    /// While it is unchanged the flags above still hold exactly; after a save (or a
    /// refresh or merge) they are recomputed against the new saved values instead.
    var generation: Int
    /// Slot values (a to-many's members as a ``ManagedObjectSet``), for the slots the event changed.
    var values: [(slot: Int, value: Any?)] = []
}

/// One object's change within one undo group: how it was before and after the event.
struct ObjectUndoChange {
    let object: NSManagedObject
    var before: ObjectUndoState
    var after: ObjectUndoState
}

/// The changes one `processPendingChanges()` registered as one undo operation. Undoing
/// restores every object's `before`, redoing its `after`.
final class ContextUndoStep {
    let changes: [ObjectUndoChange]

    init(changes: [ObjectUndoChange]) {
        self.changes = changes
    }
}
