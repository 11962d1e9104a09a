/// Collects, for a context with an undo manager, how each object was before the changes
/// of the current event, until `processPendingChanges()` turns them into an undo step.
///
/// Objects reach it through their registry on every property write (without the weak
/// load of their context), so the check for "already recorded" is one dictionary
/// lookup. Used on the context's queue only.
final class ContextUndoRecorder {
    /// The manager the context had when the recorder was made. Weak: the manager's stack
    /// holds objects, which hold their registry and this recorder, so a strong reference
    /// would keep the manager and every recorded object alive after the context is gone.
    weak var manager: UndoManager?
    private weak var context: NSManagedObjectContext?
    private var entries: [Entry] = []
    private var positions: [ObjectIdentifier: Int] = [:]
    /// Set while the context applies an undo step: restoring is not a change to record.
    var isSuspended = false

    private struct Entry {
        let object: NSManagedObject
        var before: ObjectUndoState
        var slots = SlotSet()
    }

    init(manager: UndoManager, context: NSManagedObjectContext) {
        self.manager = manager
        self.context = context
    }

    /// Records `object`'s state before its first change of the event, and the value of
    /// `slot` (when given) before its first change; later changes keep the first record.
    func objectWillChange(_ object: NSManagedObject, slot: Int?) {
        guard !isSuspended, manager?.isUndoRegistrationEnabled == true else { return }
        let position: Int
        if let known = positions[ObjectIdentifier(object)] {
            position = known
        } else {
            guard let context else { return }
            position = entries.count
            entries.append(Entry(object: object, before: context.undoState(of: object)))
            positions[ObjectIdentifier(object)] = position
        }
        guard let slot, !entries[position].slots.contains(slot) else { return }
        entries[position].slots.insert(slot)
        entries[position].before.values.append((slot, object.undoValue(ofSlot: slot)))
    }

    /// The event's changes as one step (objects now as `after`), or `nil` when there are
    /// none or registration is disabled; the recorder starts over either way.
    func takeStep(in context: NSManagedObjectContext) -> ContextUndoStep? {
        defer { discard() }
        guard manager?.isUndoRegistrationEnabled == true else { return nil }
        var changes: [ObjectUndoChange] = []
        changes.reserveCapacity(entries.count)
        for entry in entries {
            let object = entry.object
            // Inserted and deleted within the event: nothing to undo.
            if entry.before.lifecycle == .detached, object.lifecycle == .detached { continue }
            if object.managedObjectContext === context { object.fireFaultIfNeeded() }
            var after = context.undoState(of: object)
            after.values = entry.before.values.map { ($0.slot, object.undoValue(ofSlot: $0.slot)) }
            changes.append(ObjectUndoChange(object: object, before: entry.before, after: after))
        }
        return changes.isEmpty ? nil : ContextUndoStep(changes: changes)
    }

    /// Forgets the recorded states.
    func discard() {
        entries.removeAll()
        positions.removeAll()
    }
}
