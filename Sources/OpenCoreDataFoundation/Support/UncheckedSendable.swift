import Foundation
/// Carries a value into a dispatch block under strict concurrency checking.
///
/// Used only where the context's queue discipline makes the hand-off safe: the value is
/// touched on the context's queue alone, as Core Data's confinement rules require.
package struct UncheckedSendable<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
