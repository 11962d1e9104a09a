import Foundation

/// A value behind a lock that Thread Sanitizer can see.
///
/// `Synchronization.Mutex` locks with atomics in the uninstrumented standard library on
/// Linux, so Thread Sanitizer sees no order between two threads' critical sections and
/// reports every access in them as a race. State that reads touch from several threads at
/// once (the row cache, the SQLite store's connection pool and layouts) is kept here
/// instead, behind `NSLock` (a pthread mutex, which the sanitizer understands), so that the
/// concurrency suites stay clean under `--sanitize=thread`.
package final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    /// Only touched under the lock, which already excludes overlapping access.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
