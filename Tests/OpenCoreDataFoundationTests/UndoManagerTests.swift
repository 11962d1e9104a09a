import Foundation
// Only `import OpenCoreData`, as ported code has it: `UndoManager` and the
// `NSUndoManager…` notification names must resolve to OpenCoreData's, without ambiguity.
import OpenCoreDataFoundation
import Testing

/// A value an undo manager changes back and forth.
private final class Document {
    var text: String
    init(_ text: String) { self.text = text }

    /// Sets the text and registers the change's inverse, the usual undo pattern (which
    /// makes undoing register the redo, and redoing the undo).
    func setText(_ newText: String, undoManager: UndoManager) {
        let old = text
        undoManager.registerUndo(withTarget: self) { document in
            document.setText(old, undoManager: undoManager)
        }
        text = newText
    }

    /// ``setText(_:undoManager:)`` in a group of its own.
    func setTextInGroup(_ newText: String, undoManager: UndoManager) {
        undoManager.beginUndoGrouping()
        setText(newText, undoManager: undoManager)
        undoManager.endUndoGrouping()
    }
}

/// Records the notifications one undo manager posts.
private final class UndoNotificationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(name: String, info: [AnyHashable: Any]?)] = []
    private var observers: [any NSObjectProtocol] = []

    static let names: [Notification.Name] = [
        .NSUndoManagerCheckpoint, .NSUndoManagerDidOpenUndoGroup, .NSUndoManagerWillCloseUndoGroup,
        .NSUndoManagerDidCloseUndoGroup, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange,
        .NSUndoManagerWillRedoChange, .NSUndoManagerDidRedoChange,
    ]

    init(_ manager: UndoManager) {
        for name in Self.names {
            observers.append(
                NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { [weak self] note in
                    self?.append(note.name.rawValue, note.userInfo)
                })
        }
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }

    private func append(_ name: String, _ info: [AnyHashable: Any]?) {
        lock.lock()
        entries.append((name, info))
        lock.unlock()
    }

    /// The names posted since the last call, without the "NSUndoManager" prefix and "Notification" suffix.
    func take() -> [String] {
        lock.lock()
        defer { entries.removeAll(); lock.unlock() }
        return entries.map { String($0.name.dropFirst("NSUndoManager".count).dropLast("Notification".count)) }
    }

    /// The userInfo of the last notification named `name` since the last `take()`.
    func info(of name: Notification.Name) -> [AnyHashable: Any]? {
        lock.lock()
        defer { lock.unlock() }
        return entries.last { $0.name == name.rawValue }?.info
    }
}

@Suite struct UndoManagerTests {
    @Test func namesAreFoundationsAndResolveToOpenCoreData() {
        let manager: UndoManager = UndoManager()
        #expect(manager.groupsByEvent)
        #expect(manager.levelsOfUndo == 0)
        #expect(manager.isUndoRegistrationEnabled)
        #expect(Notification.Name.NSUndoManagerCheckpoint.rawValue == "NSUndoManagerCheckpointNotification")
        #expect(Notification.Name.NSUndoManagerDidOpenUndoGroup.rawValue == "NSUndoManagerDidOpenUndoGroupNotification")
        #expect(
            Notification.Name.NSUndoManagerWillCloseUndoGroup.rawValue == "NSUndoManagerWillCloseUndoGroupNotification")
        #expect(
            Notification.Name.NSUndoManagerDidCloseUndoGroup.rawValue == "NSUndoManagerDidCloseUndoGroupNotification")
        #expect(Notification.Name.NSUndoManagerWillUndoChange.rawValue == "NSUndoManagerWillUndoChangeNotification")
        #expect(Notification.Name.NSUndoManagerDidUndoChange.rawValue == "NSUndoManagerDidUndoChangeNotification")
        #expect(Notification.Name.NSUndoManagerWillRedoChange.rawValue == "NSUndoManagerWillRedoChangeNotification")
        #expect(Notification.Name.NSUndoManagerDidRedoChange.rawValue == "NSUndoManagerDidRedoChangeNotification")
        #expect(NSUndoManagerGroupIsDiscardableKey == "NSUndoManagerGroupIsDiscardableKey")
    }

    @Test func undoRegistersRedoAndRedoRegistersUndo() {
        let manager = UndoManager()
        let document = Document("a")
        #expect(!manager.canUndo)
        document.setText("b", undoManager: manager)
        // Off the main queue, the event's group stays open until undo() closes it.
        #expect(manager.groupingLevel == 1)
        #expect(manager.canUndo)
        #expect(!manager.canRedo)

        manager.undo()
        #expect(document.text == "a")
        #expect(manager.groupingLevel == 0)
        #expect(!manager.canUndo)
        #expect(manager.canRedo)

        manager.redo()
        #expect(document.text == "b")
        #expect(manager.canUndo)
        #expect(!manager.canRedo)

        manager.undo()
        manager.redo()
        manager.undo()
        #expect(document.text == "a")
        #expect(manager.canRedo)
    }

    @Test func undoingAndRedoingAreReportedWhileTheyRun() {
        let manager = UndoManager()
        let document = Document("a")
        var seen: [(Bool, Bool)] = []
        manager.registerUndo(withTarget: document) { _ in seen.append((manager.isUndoing, manager.isRedoing)) }
        manager.undo()
        #expect(seen.count == 1 && seen[0] == (true, false))
        #expect(!manager.isUndoing && !manager.isRedoing)

        document.setText("b", undoManager: manager)
        manager.undo()
        manager.registerUndo(withTarget: document) { _ in }
        // The registration above happened outside undo: it emptied the redo stack.
        #expect(!manager.canRedo)
    }

    @Test func aNewActionEmptiesTheRedoStack() {
        let manager = UndoManager()
        let document = Document("a")
        document.setTextInGroup("b", undoManager: manager)
        document.setTextInGroup("c", undoManager: manager)
        manager.undo()
        manager.undo()
        #expect(document.text == "a")
        #expect(manager.canRedo)

        document.setTextInGroup("z", undoManager: manager)
        #expect(!manager.canRedo)
        manager.redo()
        #expect(document.text == "z")
        manager.undo()
        #expect(document.text == "a")
        #expect(!manager.canUndo)
    }

    @Test func groupsUndoAsOneAndNest() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let document = Document("a")

        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 1)
        document.setText("b", undoManager: manager)
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 2)
        document.setText("c", undoManager: manager)
        document.setText("d", undoManager: manager)
        manager.endUndoGrouping()
        document.setText("e", undoManager: manager)
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)

        manager.undo()
        #expect(document.text == "a")
        #expect(!manager.canUndo)
        manager.redo()
        #expect(document.text == "e")
        manager.undo()
        #expect(document.text == "a")
    }

    @Test func undoNestedGroupUndoesTheLastClosedNestedGroup() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let document = Document("a")
        manager.beginUndoGrouping()
        document.setText("b", undoManager: manager)
        document.setTextInGroup("c", undoManager: manager)
        #expect(manager.groupingLevel == 1)

        manager.undoNestedGroup()
        #expect(document.text == "b")
        #expect(manager.groupingLevel == 1)
        #expect(manager.canRedo)

        manager.endUndoGrouping()
        manager.undo()
        #expect(document.text == "a")
    }

    @Test func emptyGroupsAreDropped() {
        let manager = UndoManager()
        manager.beginUndoGrouping()
        manager.beginUndoGrouping()
        manager.endUndoGrouping()
        manager.endUndoGrouping()
        #expect(!manager.canUndo)
        manager.undo()
        #expect(!manager.canRedo)
    }

    @Test func undoClosesTheOpenTopLevelGroup() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let document = Document("a")
        manager.beginUndoGrouping()
        document.setText("b", undoManager: manager)
        document.setText("c", undoManager: manager)
        manager.undo()
        #expect(manager.groupingLevel == 0)
        #expect(document.text == "a")
    }

    @Test func levelsOfUndoDropTheOldestGroups() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let document = Document("0")
        for text in ["1", "2", "3"] {
            document.setTextInGroup(text, undoManager: manager)
        }
        manager.undo()
        manager.undo()
        #expect(document.text == "1")
        #expect(!manager.canUndo)
        manager.redo()
        manager.redo()
        #expect(document.text == "3")

        manager.levelsOfUndo = 1
        manager.undo()
        #expect(document.text == "2")
        #expect(!manager.canUndo)

        manager.levelsOfUndo = 0
        for text in ["4", "5", "6", "7"] {
            document.setTextInGroup(text, undoManager: manager)
        }
        for _ in 0..<4 { manager.undo() }
        #expect(document.text == "2")
    }

    @Test func actionNamesFollowTheGroups() {
        let manager = UndoManager()
        let document = Document("a")
        #expect(manager.undoActionName == "")
        #expect(manager.undoMenuItemTitle == "Undo")
        #expect(manager.redoMenuItemTitle == "Redo")

        manager.beginUndoGrouping()
        document.setText("b", undoManager: manager)
        manager.setActionName("Typing")
        manager.endUndoGrouping()
        #expect(manager.undoActionName == "Typing")
        #expect(manager.undoMenuItemTitle == "Undo Typing")

        document.setText("c", undoManager: manager)
        manager.setActionName("Paste")
        #expect(manager.undoActionName == "Paste")
        manager.undo()
        #expect(manager.redoActionName == "Paste")
        #expect(manager.redoMenuItemTitle == "Redo Paste")
        #expect(manager.undoActionName == "Typing")
        manager.redo()
        #expect(manager.undoActionName == "Paste")

        // With no group open, the name goes to the newest group; "" removes it.
        manager.setActionName("")
        #expect(manager.undoActionName == "")
        #expect(manager.undoMenuTitle(forUndoActionName: "Move") == "Undo Move")
        #expect(manager.redoMenuTitle(forUndoActionName: "") == "Redo")
    }

    @Test func disabledRegistrationRecordsNothingAndNests() {
        let manager = UndoManager()
        let document = Document("a")
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        document.setText("b", undoManager: manager)
        manager.enableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        document.setText("c", undoManager: manager)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        #expect(!manager.canUndo)
        manager.undo()
        #expect(document.text == "c")

        document.setText("d", undoManager: manager)
        manager.undo()
        #expect(document.text == "c")
    }

    @Test func removeAllActionsClearsBothStacksAndEnables() {
        let manager = UndoManager()
        let document = Document("a")
        for text in ["b", "c"] {
            document.setTextInGroup(text, undoManager: manager)
        }
        manager.undo()
        manager.disableUndoRegistration()
        manager.removeAllActions()
        #expect(!manager.canUndo)
        #expect(!manager.canRedo)
        #expect(manager.isUndoRegistrationEnabled)
    }

    @Test func removeAllActionsWithTargetKeepsOtherTargets() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let first = Document("a")
        let second = Document("x")
        manager.beginUndoGrouping()
        first.setText("b", undoManager: manager)
        second.setText("y", undoManager: manager)
        manager.endUndoGrouping()
        first.setTextInGroup("c", undoManager: manager)

        manager.disableUndoRegistration()
        manager.removeAllActions(withTarget: first)
        #expect(!manager.isUndoRegistrationEnabled)
        manager.enableUndoRegistration()

        // The group of "c" held only `first`'s action and is gone; the other keeps `second`'s.
        manager.undo()
        #expect(first.text == "c")
        #expect(second.text == "x")
        #expect(!manager.canUndo)
    }

    @Test func aTargetThatIsGoneIsNotKeptAlive() {
        let manager = UndoManager()
        weak var gone: Document?
        do {
            let document = Document("a")
            gone = document
            document.setText("b", undoManager: manager)
        }
        #expect(gone == nil)
        manager.undo()
        #expect(!manager.canRedo)
    }

    @Test func notificationsAndTheirUserInfo() {
        let manager = UndoManager()
        let log = UndoNotificationLog(manager)
        let document = Document("a")

        manager.beginUndoGrouping()
        #expect(log.take() == ["Checkpoint", "DidOpenUndoGroup"])
        document.setText("b", undoManager: manager)
        manager.setActionIsDiscardable(true)
        manager.endUndoGrouping()
        #expect(log.info(of: .NSUndoManagerWillCloseUndoGroup)?[NSUndoManagerGroupIsDiscardableKey] as? Bool == true)
        #expect(log.info(of: .NSUndoManagerDidCloseUndoGroup)?[NSUndoManagerGroupIsDiscardableKey] as? Bool == true)
        #expect(log.take() == ["Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup"])
        #expect(manager.undoActionIsDiscardable)

        manager.undo()
        // The group collecting the redo operations opens without a checkpoint, as Apple's
        // does during an undo, and closes like any group.
        #expect(
            log.take() == [
                "Checkpoint", "WillUndoChange", "DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup",
                "DidCloseUndoGroup", "DidUndoChange",
            ])
        #expect(manager.redoActionIsDiscardable == false)

        _ = manager.canRedo
        #expect(log.take() == ["Checkpoint"])
        manager.redo()
        #expect(
            log.take() == [
                "Checkpoint", "WillRedoChange", "DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup",
                "DidCloseUndoGroup", "DidRedoChange",
            ])

        // A group that is not all discardable has no userInfo.
        document.setTextInGroup("c", undoManager: manager)
        #expect(log.info(of: .NSUndoManagerDidCloseUndoGroup) == nil)
        _ = log.take()

        // Registering with no group open opens the event's group (no checkpoint: it is a top-level one).
        document.setText("d", undoManager: manager)
        #expect(log.take() == ["DidOpenUndoGroup"])
    }

    @MainActor @Test func onTheMainQueueAnEventGroupClosesAtTheEndOfTheTurn() async {
        let manager = UndoManager()
        let document = Document("a")
        document.setText("b", undoManager: manager)
        document.setText("c", undoManager: manager)
        #expect(manager.groupingLevel == 1)
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume() }
        }
        #expect(manager.groupingLevel == 0)
        document.setText("d", undoManager: manager)
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume() }
        }
        manager.undo()
        #expect(document.text == "c")
        manager.undo()
        #expect(document.text == "a")
    }
}
