/// Carries a value into a dispatch block under strict concurrency checking.
///
/// Used only where the context's queue discipline makes the hand-off safe: the value is
/// touched on the context's queue alone, as Core Data's confinement rules require.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
