import Foundation
/// Records operations so they can be undone and redone, with Foundation's API.
///
/// Foundation on Linux has no undo manager, and Core Data's contexts need one. Register
/// an operation with ``registerUndo(withTarget:handler:)``; ``undo()`` runs the newest
/// group of operations, and whatever those register while undoing becomes the group
/// ``redo()`` runs. Registering anything new (not while undoing or redoing) empties the
/// redo stack.
///
/// **Groups and events.** Operations are undone in groups. ``beginUndoGrouping()`` and
/// ``endUndoGrouping()`` make groups explicitly (they nest). With ``groupsByEvent`` (the
/// default), registering while no group is open opens one for the current event. Linux
/// has no AppKit event loop, so an event ends:
/// - on the main queue, when the current turn of the main queue ends (a block scheduled
///   with `DispatchQueue.main.async` closes the group);
/// - for a managed object context using this manager, at its `processPendingChanges()`,
///   which each `perform` block runs at its end, so each block is one undo group;
/// - in any case, at ``undo()``, ``redo()`` or ``endUndoGrouping()``.
///
/// **Confinement.** Like Apple's, an undo manager is used from one thread or queue: the
/// one of the context it serves, or the main queue. It is `Sendable` only so the
/// main-queue block that closes an event's group can reach it; calls from other threads
/// while it is in use are a data race.
open class UndoManager: NSObject, @unchecked Sendable {
    private var undoStack: [UndoGroup] = []
    private var redoStack: [UndoGroup] = []
    /// Open groups, outermost first; while undoing or redoing, the group collecting the
    /// inverse operations is the outermost.
    private var openGroups: [UndoGroup] = []
    private var disableCount = 0
    private var lastRegistered: UndoAction?
    /// How many `endUndoGrouping()` calls are running: a group being closed must not be
    /// closed again by an observer of its checkpoint.
    private var closingDepth = 0

    /// Creates an undo manager with empty stacks that groups by event.
    public override init() {
        super.init()
    }

    // MARK: Settings

    /// Whether registering with no open group opens one for the current event (see the
    /// type's discussion for what an event is on Linux). When `false`, operations must be
    /// registered inside ``beginUndoGrouping()``/``endUndoGrouping()``.
    open var groupsByEvent = true

    /// How many top-level groups the undo stack (and the redo stack) keeps; 0 means no
    /// limit. The oldest groups are dropped first, also when the limit is lowered.
    open var levelsOfUndo = 0 {
        didSet { trimStacks() }
    }

    // MARK: State

    /// How many groups are open (nested); 0 when none is.
    open var groupingLevel: Int { openGroups.count }

    /// Whether ``undo()`` has something to undo: a closed group, or operations in the open one.
    open var canUndo: Bool {
        if let top = openGroups.first, !top.isEmpty, !isUndoing, !isRedoing { return true }
        return !undoStack.isEmpty
    }

    /// Whether ``redo()`` has something to redo. Posts a checkpoint first, as Apple's does,
    /// so observers register pending changes, which empty the redo stack.
    open var canRedo: Bool {
        postCheckpoint()
        return !redoStack.isEmpty
    }

    /// Whether the manager is running ``undo()`` or ``undoNestedGroup()``; operations
    /// registered meanwhile go to the redo stack.
    open private(set) var isUndoing = false

    /// Whether the manager is running ``redo()``; operations registered meanwhile go to
    /// the undo stack without emptying the redo stack.
    open private(set) var isRedoing = false

    // MARK: Registering

    /// Records that `handler`, called with `target`, undoes a change just made.
    ///
    /// Goes into the innermost open group; with none open, ``groupsByEvent`` opens one for
    /// the current event. Ignored while registration is disabled. `target` is held weakly
    /// and names the operation for ``removeAllActions(withTarget:)``; an operation whose
    /// target no longer exists does nothing.
    ///
    /// Registering with no open group while ``groupsByEvent`` is `false` is a programmer
    /// error that traps, as Apple's raises.
    ///
    /// - Parameters:
    ///   - target: The object the operation acts on.
    ///   - handler: What undoes the change; it is given `target`, and what it registers
    ///     while undoing becomes the redo operation.
    open func registerUndo<TargetType: AnyObject>(
        withTarget target: TargetType, handler: @escaping (TargetType) -> Void
    ) {
        guard isUndoRegistrationEnabled else { return }
        if openGroups.isEmpty {
            precondition(
                groupsByEvent,
                "registerUndo(withTarget:handler:): no undo group is open and groupsByEvent is false; call beginUndoGrouping() first"
            )
            openEventGroup()
        }
        if !isUndoing, !isRedoing { redoStack.removeAll() }
        let action = UndoAction(target: target, handler: handler)
        openGroups[openGroups.count - 1].items.append(.action(action))
        lastRegistered = action
    }

    /// Marks the operation registered last as discardable (a document may drop it when it
    /// cannot save). A group whose operations are all discardable is reported so in the
    /// close-group notifications.
    open func setActionIsDiscardable(_ discardable: Bool) {
        lastRegistered?.isDiscardable = discardable
    }

    /// Whether the group ``undo()`` would undo holds only discardable operations.
    open var undoActionIsDiscardable: Bool { nextUndoGroup?.isDiscardable ?? false }

    /// Whether the group ``redo()`` would redo holds only discardable operations.
    open var redoActionIsDiscardable: Bool { redoStack.last?.isDiscardable ?? false }

    /// Stops recording operations until as many ``enableUndoRegistration()`` calls.
    open func disableUndoRegistration() {
        disableCount += 1
    }

    /// Balances one ``disableUndoRegistration()``. Calling it while registration is
    /// enabled is a programmer error that traps, as Apple's raises.
    open func enableUndoRegistration() {
        precondition(disableCount > 0, "enableUndoRegistration() may only be called after disableUndoRegistration()")
        disableCount -= 1
    }

    /// Whether operations registered now are recorded.
    open var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    // MARK: Grouping

    /// Opens a group: operations registered until the matching ``endUndoGrouping()`` undo
    /// together. Groups nest. Posts a checkpoint (unless undoing or redoing) and then
    /// `NSUndoManagerDidOpenUndoGroup`.
    open func beginUndoGrouping() {
        if !isUndoing, !isRedoing { postCheckpoint() }
        openGroups.append(UndoGroup(isEventGroup: false))
        post(.NSUndoManagerDidOpenUndoGroup)
    }

    /// Closes the innermost open group. A closed top-level group goes onto the undo stack
    /// (the redo stack while undoing); a nested one becomes part of its parent; an empty
    /// one is dropped. Posts a checkpoint, `NSUndoManagerWillCloseUndoGroup` and
    /// `NSUndoManagerDidCloseUndoGroup`.
    ///
    /// Calling it with no open group is a programmer error that traps, as Apple's raises.
    open func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "endUndoGrouping() called with no matching beginUndoGrouping()")
        closingDepth += 1
        defer { closingDepth -= 1 }
        // Observers register their pending changes into the group before it closes.
        postCheckpoint()
        guard let group = openGroups.last else { return }
        let info: [AnyHashable: Any]? =
            group.isDiscardable ? [NSUndoManagerGroupIsDiscardableKey: NSNumber(value: true)] : nil
        post(.NSUndoManagerWillCloseUndoGroup, info)
        openGroups.removeLast()
        if let parent = openGroups.last {
            if !group.isEmpty { parent.items.append(.group(group)) }
        } else if !group.isEmpty {
            if isUndoing { redoStack.append(group) } else { undoStack.append(group) }
            trimStacks()
        }
        post(.NSUndoManagerDidCloseUndoGroup, info)
    }

    /// Closes the group ``groupsByEvent`` opened, when it is the only one open: the end of
    /// an event. Contexts call it from `processPendingChanges()`.
    package func closeEventGroup() {
        guard openGroups.count == 1, openGroups[0].isEventGroup, closingDepth == 0, !isUndoing, !isRedoing else {
            return
        }
        endUndoGrouping()
    }

    /// Opens the group of the current event; on the main queue, the end of the current
    /// turn of the queue closes it.
    private func openEventGroup() {
        let group = UndoGroup(isEventGroup: true)
        openGroups.append(group)
        post(.NSUndoManagerDidOpenUndoGroup)
        guard MainQueue.isDraining else { return }
        let weakGroup = UncheckedSendable(WeakGroup(group: group))
        DispatchQueue.main.async { [weak self] in
            guard let self, let group = weakGroup.value.group else { return }
            if self.openGroups.count == 1, self.openGroups[0] === group, self.closingDepth == 0, !self.isUndoing,
                !self.isRedoing
            {
                self.endUndoGrouping()
            }
        }
    }

    private struct WeakGroup {
        weak var group: UndoGroup?
    }

    // MARK: Undoing and redoing

    /// Undoes the newest top-level group. Closes the open group first when exactly one is
    /// open (the current event's, or one begun explicitly). Posts a checkpoint,
    /// `NSUndoManagerWillUndoChange` and `NSUndoManagerDidUndoChange`.
    ///
    /// Calling it with nested groups open is a programmer error that traps, as Apple's
    /// raises: close them and use ``undoNestedGroup()``.
    open func undo() {
        guard !isUndoing, !isRedoing else { return }
        if openGroups.count == 1 { endUndoGrouping() }
        precondition(
            openGroups.isEmpty,
            "undo() called with \(openGroups.count) undo groups open; close the nested ones and call undoNestedGroup()")
        undoNestedGroup()
    }

    /// Undoes the newest group: the last group closed inside the open group when one is
    /// open, else the top of the undo stack. What the operations register while undoing
    /// becomes one group on the redo stack, with the same action name.
    open func undoNestedGroup() {
        guard !isUndoing, !isRedoing else { return }
        postCheckpoint()
        closeEventGroup()
        let group: UndoGroup
        if let open = openGroups.last {
            guard case .group(let nested)? = open.items.last else { return }
            open.items.removeLast()
            group = nested
        } else {
            guard let top = undoStack.popLast() else { return }
            group = top
        }
        post(.NSUndoManagerWillUndoChange)
        replay(group, undoing: true)
        post(.NSUndoManagerDidUndoChange)
    }

    /// Redoes the newest group on the redo stack; what it registers goes onto the undo
    /// stack. Posts a checkpoint (observers' pending changes, registered then, empty the
    /// redo stack), `NSUndoManagerWillRedoChange` and `NSUndoManagerDidRedoChange`.
    /// Ignored while undoing (Apple's raises).
    open func redo() {
        guard !isUndoing, !isRedoing else { return }
        postCheckpoint()
        closeEventGroup()
        guard let group = redoStack.popLast() else { return }
        post(.NSUndoManagerWillRedoChange)
        replay(group, undoing: false)
        post(.NSUndoManagerDidRedoChange)
    }

    /// Runs `group`'s operations newest first inside a fresh top-level group that collects
    /// what they register, and files that group on the other stack.
    private func replay(_ group: UndoGroup, undoing: Bool) {
        let outer = openGroups
        openGroups = []
        if undoing { isUndoing = true } else { isRedoing = true }
        beginUndoGrouping()
        openGroups[0].actionName = group.actionName
        group.performReversed()
        // Groups the operations began and left open close with the collecting group.
        while !openGroups.isEmpty { endUndoGrouping() }
        isUndoing = false
        isRedoing = false
        openGroups = outer
    }

    // MARK: Clearing

    /// Empties both stacks (and the open groups) and enables registration again.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        for group in openGroups { group.items.removeAll() }
        lastRegistered = nil
        disableCount = 0
    }

    /// Removes every operation whose target is `target` from both stacks and the open
    /// groups; groups left empty go too. Registration stays disabled if it was.
    open func removeAllActions(withTarget target: Any) {
        let identity = ObjectIdentifier(target as AnyObject)
        for group in undoStack + redoStack + openGroups { group.removeActions(actingOn: identity) }
        undoStack.removeAll { $0.isEmpty }
        redoStack.removeAll { $0.isEmpty }
        if let lastRegistered, lastRegistered.acts(on: identity) { self.lastRegistered = nil }
    }

    // MARK: Action names

    /// The name of the group ``undo()`` would undo; empty when it has none or there is nothing to undo.
    open var undoActionName: String { nextUndoGroup?.actionName ?? "" }

    /// The name of the group ``redo()`` would redo; empty when it has none or there is nothing to redo.
    open var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// Names the current group: the open one (while undoing or redoing, the one collecting
    /// the inverse operations), else the newest group on the undo stack. An empty string
    /// removes the name.
    ///
    /// With no group open, posts a checkpoint first, so a context registers the changes
    /// made since its last `processPendingChanges()` and the name applies to them (Apple's
    /// AppKit event loop has a group open for the whole event).
    open func setActionName(_ actionName: String) {
        if openGroups.isEmpty, !isUndoing, !isRedoing { postCheckpoint() }
        (openGroups.first ?? undoStack.last)?.actionName = actionName
    }

    /// The title of an Undo menu item: "Undo" followed by ``undoActionName`` when it has one.
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }

    /// The title of a Redo menu item: "Redo" followed by ``redoActionName`` when it has one.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// The Undo menu title for `actionName`. English only (Linux has no localized
    /// resources for it); override to localize.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// The Redo menu title for `actionName`. English only; override to localize.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    // MARK: Helpers

    /// The group ``undo()`` would undo: the open top-level group when it holds operations,
    /// else the newest closed one.
    private var nextUndoGroup: UndoGroup? {
        if let top = openGroups.first, !top.isEmpty, !isUndoing, !isRedoing { return top }
        return undoStack.last
    }

    private func trimStacks() {
        guard levelsOfUndo > 0 else { return }
        if undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
        if redoStack.count > levelsOfUndo { redoStack.removeFirst(redoStack.count - levelsOfUndo) }
    }

    private func postCheckpoint() {
        post(.NSUndoManagerCheckpoint)
    }

    private func post(_ name: Notification.Name, _ userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
    }
}
