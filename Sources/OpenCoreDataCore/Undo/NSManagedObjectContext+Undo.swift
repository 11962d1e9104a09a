// Core Data's undo for contexts: every change made between two `processPendingChanges()`
// calls becomes one undo operation that restores the objects it touched, and whose
// undoing registers the operation that restores them again (redo).
extension NSManagedObjectContext {
    typealias Lifecycle = NSManagedObject.Lifecycle

    /// How `object` stands now, as an undo record (values are added by the recorder).
    func undoState(of object: NSManagedObject) -> ObjectUndoState {
        ObjectUndoState(
            lifecycle: object.lifecycle,
            isUpdated: updatedSet.contains(object),
            changedSlots: object.changedSlots,
            rejectedAssignments: object.rejectedAssignments,
            generation: undoGeneration
        )
    }

    /// Follows a new `undoManager`: a recorder for it, and an observer of its checkpoints,
    /// at which the context registers its pending changes, as Core Data's does.
    func undoManagerDidChange(from old: UndoManager?) {
        guard old !== undoManager else { return }
        if let undoCheckpointObserver { NotificationCenter.default.removeObserver(undoCheckpointObserver) }
        undoCheckpointObserver = nil
        registry.undoRecorder = nil
        guard let manager = undoManager else { return }
        registry.undoRecorder = ContextUndoRecorder(manager: manager, context: self)
        undoCheckpointObserver = NotificationCenter.default.addObserver(
            forName: .NSUndoManagerCheckpoint, object: manager, queue: nil
        ) { [weak self] _ in
            // Checkpoints come from whichever thread uses the manager (a UI reading `canUndo`
            // for a private-queue context); the pending changes belong to the context's queue.
            // On that queue already, this runs inline.
            guard let self else { return }
            performAndWait { processPendingChanges() }
        }
    }

    /// Registers the changes recorded since the last call as one undo operation, then ends
    /// the current event's group. It goes into the open group; with none open and
    /// `groupsByEvent` off, into a group of its own.
    func registerUndoableChanges() {
        guard let recorder = registry.undoRecorder else { return }
        guard let manager = undoManager, manager === recorder.manager, let step = recorder.takeStep(in: self) else {
            recorder.discard()
            return
        }
        let ownGroup = manager.groupingLevel == 0 && !manager.groupsByEvent
        if ownGroup { manager.beginUndoGrouping() }
        manager.registerUndo(withTarget: self) { context in
            context.applyUndoStep(step, undoing: true)
        }
        if ownGroup { manager.endUndoGrouping() } else if !holdsUndoEvent { manager.closeEventGroup() }
    }

    /// Ends the current event's undo group, as `processPendingChanges()` does after
    /// registering changes (for a save that held the group open).
    func closeUndoEvent() {
        guard let manager = undoManager, registry.undoRecorder?.manager === manager else { return }
        manager.closeEventGroup()
    }

    /// Forgets unregistered changes and removes the context's operations from its undo
    /// manager: `rollback()` and `reset()` leave nothing the operations could restore.
    func discardUndoHistory() {
        registry.undoRecorder?.discard()
        undoManager?.removeAllActions(withTarget: self)
    }

    /// Restores every object of `step` as it was before (`undoing`) or after its event,
    /// registers the opposite operation, and announces the changes.
    func applyUndoStep(_ step: ContextUndoStep, undoing: Bool) {
        let recorder = registry.undoRecorder
        recorder?.isSuspended = true
        for change in step.changes {
            restore(change.object, to: undoing ? change.before : change.after)
        }
        recorder?.isSuspended = false
        undoManager?.registerUndo(withTarget: self) { context in
            context.applyUndoStep(step, undoing: !undoing)
        }
        processPendingChanges()
    }

    /// Puts `object` back in `state`.
    ///
    /// While no save (or refresh or merge) happened since the state was taken, everything
    /// is restored exactly: the change sets the object is in, its changed slots and refused
    /// assignments. After one, the state is applied to the object as it is saved now: an
    /// object that should exist and has no row is inserted again, one that should not and
    /// has a row is deleted, and it counts as updated when its values differ from the saved ones.
    ///
    /// An object whose row was deleted elsewhere (a merged delete, or a conflict that found
    /// its row gone) is left as it is: that delete is committed, the merge policies never
    /// write such a row back either, and an object put back as saved would be written to
    /// no row at the next save.
    private func restore(_ object: NSManagedObject, to state: ObjectUndoState) {
        guard !object.isDeletedElsewhere else { return }
        let exact = state.generation == undoGeneration
        let current = object.lifecycle
        let target = exact ? state.lifecycle : Self.lifecycle(restoring: state.lifecycle, from: current)
        if target != current { move(object, from: current, to: target) }
        if target != .detached { object.fireFaultIfNeeded() }
        for (slot, value) in state.values { object.restoreUndoValue(value, slot: slot) }
        if exact {
            object.changedSlots = state.changedSlots
            object.rejectedAssignments = state.rejectedAssignments
        } else {
            for (slot, _) in state.values { object.changedSlots.insert(slot) }
        }
        let updated: Bool
        if target != .persisted {
            updated = false
        } else if exact {
            updated = state.isUpdated
        } else {
            // A deletion undone after other work (a refresh, a merge) brings back the
            // object's own unsaved changes too, not only the restored values.
            updated =
                updatedSet.contains(object)
                || state.values.contains { object.isChanged(object.entityFacts.slots[$0.slot]) }
                || (current == .deleted && !object.changedValues().isEmpty)
        }
        if updated { updatedSet.append(object) } else { updatedSet.remove(object) }
        announce(object, from: current, to: target, valuesChanged: !state.values.isEmpty)
    }

    /// Where an object stands after a save to be in `state`: rows deleted by the save come
    /// back as inserts, rows the save wrote go as deletes.
    private static func lifecycle(restoring state: Lifecycle, from current: Lifecycle) -> Lifecycle {
        let hasRow = current == .persisted || current == .deleted
        if state == .inserted || state == .persisted { return hasRow ? .persisted : .inserted }
        return hasRow ? .deleted : .detached
    }

    /// Moves `object` between the change sets and in or out of the registry.
    private func move(_ object: NSManagedObject, from current: Lifecycle, to target: Lifecycle) {
        switch current {
        case .inserted: insertedSet.remove(object)
        case .deleted: deletedSet.remove(object)
        case .persisted, .detached: break
        }
        deletionQueue.removeAll { $0 === object }
        discardedInserts.removeAll { $0 === object }
        switch target {
        case .inserted:
            if current == .detached, object.committed != nil { object.forgetCommittedState() }
            insertedSet.append(object)
        case .deleted:
            deletedSet.append(object)
        case .persisted, .detached:
            break
        }
        object.lifecycle = target
        if target == .detached {
            if object.managedObjectContext === self { registryRemove(object) }
        } else if object.managedObjectContext !== self {
            register(object)
        }
    }

    /// Queues the restored object for the next `NSManagedObjectContextObjectsDidChange`:
    /// as inserted when it comes back, deleted when it goes, else updated.
    private func announce(_ object: NSManagedObject, from current: Lifecycle, to target: Lifecycle, valuesChanged: Bool)
    {
        let existed = current == .inserted || current == .persisted
        let exists = target == .inserted || target == .persisted
        if exists, !existed {
            pendingDeleted.remove(object)
            pendingInserted.append(object)
        } else if existed, !exists {
            pendingInserted.remove(object)
            pendingUpdated.remove(object)
            pendingDeleted.append(object)
        } else if exists, valuesChanged {
            pendingUpdated.append(object)
        }
    }
}
