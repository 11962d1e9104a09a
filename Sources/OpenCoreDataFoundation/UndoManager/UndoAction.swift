import Foundation
/// One registered undo operation: a closure and the object it acts on.
///
/// The target is held weakly: the undo stack must not keep documents or contexts alive
/// (Apple's manager keeps an unowned reference), and an operation whose target is gone
/// does nothing when undone.
package final class UndoAction {
    private weak var target: AnyObject?
    /// The target's identity, for `removeAllActions(withTarget:)` after it is gone too.
    package let targetIdentity: ObjectIdentifier
    private let handler: (AnyObject) -> Void
    /// Set by `setActionIsDiscardable(_:)` after registration.
    package var isDiscardable = false

    package init<Target: AnyObject>(target: Target, handler: @escaping (Target) -> Void) {
        self.target = target
        self.targetIdentity = ObjectIdentifier(target)
        self.handler = { object in
            if let typed = object as? Target { handler(typed) }
        }
    }

    /// Runs the handler with the target, if the target still exists.
    package func perform() {
        if let target { handler(target) }
    }

    /// Whether the operation acts on `identity` (or on an object that no longer exists).
    package func acts(on identity: ObjectIdentifier) -> Bool {
        targetIdentity == identity
    }
}
