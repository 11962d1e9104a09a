import Foundation
/// Operations that undo (or redo) as one: actions and nested groups, in the order they
/// were registered. Undoing runs them newest first.
package final class UndoGroup {
    package enum Item {
        case action(UndoAction)
        case group(UndoGroup)
    }

    package var items: [Item] = []
    /// The name menus show ("Undo Typing"); empty when none was set.
    package var actionName = ""
    /// Whether `groupsByEvent` opened the group (at a registration with none open), as
    /// opposed to `beginUndoGrouping()`. Only such a group closes on its own.
    package let isEventGroup: Bool

    package init(isEventGroup: Bool) {
        self.isEventGroup = isEventGroup
    }

    package var isEmpty: Bool { items.isEmpty }

    /// Whether every operation in the group, nested ones included, was marked discardable.
    package var isDiscardable: Bool {
        !items.isEmpty
            && items.allSatisfy { item in
                switch item {
                case .action(let action): action.isDiscardable
                case .group(let group): group.isDiscardable
                }
            }
    }

    /// Runs every operation, the newest first (nested groups likewise).
    package func performReversed() {
        for item in items.reversed() {
            switch item {
            case .action(let action): action.perform()
            case .group(let group): group.performReversed()
            }
        }
    }

    /// Drops the operations acting on `identity`, and nested groups left empty.
    package func removeActions(actingOn identity: ObjectIdentifier) {
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
