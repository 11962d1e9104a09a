/// Operations that undo (or redo) as one: actions and nested groups, in the order they
/// were registered. Undoing runs them newest first.
final class UndoGroup {
    enum Item {
        case action(UndoAction)
        case group(UndoGroup)
    }

    var items: [Item] = []
    /// The name menus show ("Undo Typing"); empty when none was set.
    var actionName = ""
    /// Whether `groupsByEvent` opened the group (at a registration with none open), as
    /// opposed to `beginUndoGrouping()`. Only such a group closes on its own.
    let isEventGroup: Bool

    init(isEventGroup: Bool) {
        self.isEventGroup = isEventGroup
    }

    var isEmpty: Bool { items.isEmpty }

    /// Whether every operation in the group, nested ones included, was marked discardable.
    var isDiscardable: Bool {
        !items.isEmpty && items.allSatisfy { item in
            switch item {
            case .action(let action): action.isDiscardable
            case .group(let group): group.isDiscardable
            }
        }
    }

    /// Runs every operation, the newest first (nested groups likewise).
    func performReversed() {
        for item in items.reversed() {
            switch item {
            case .action(let action): action.perform()
            case .group(let group): group.performReversed()
            }
        }
    }

    /// Drops the operations acting on `identity`, and nested groups left empty.
    func removeActions(actingOn identity: ObjectIdentifier) {
        items.removeAll { item in
            switch item {
            case .action(let action):
                return action.acts(on: identity)
            case .group(let group):
                group.removeActions(actingOn: identity)
                return group.isEmpty
            }
        }
    }
}
