import Foundation
@testable import OpenCoreDataCore
import Synchronization
import Testing

/// The coordinator's lock: shared by readers, held alone by everything else, reentrant
/// on one thread either way, writers ahead of new readers.
@Suite struct CoordinatorLockTests {
    /// Runs `body` on a thread of its own; the semaphore returned is signalled when it ends.
    static func start(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done
    }

    /// Whether `body`, run on a thread of its own, finishes within `seconds`.
    static func finishes(within seconds: TimeInterval, _ body: @escaping @Sendable () -> Void) -> Bool {
        start(body).wait(timeout: .now() + seconds) == .success
    }

    /// Starts a read of `lock` on a thread of its own and returns once it is inside;
    /// signal the semaphore returned to end it.
    static func holdRead(of lock: CoordinatorLock) -> DispatchSemaphore {
        let inside = DispatchSemaphore(value: 0)
        let leave = DispatchSemaphore(value: 0)
        Thread {
            lock.shared {
                inside.signal()
                _ = leave.wait(timeout: .now() + 10)
            }
        }.start()
        #expect(inside.wait(timeout: .now() + 10) == .success)
        return leave
    }

    @Test func aThreadTakesTheLockAgainEitherWay() {
        let lock = CoordinatorLock()
        var steps: [String] = []
        lock.exclusively {
            lock.exclusively { steps.append("alone in alone") }
            lock.shared { steps.append("shared in alone") }
        }
        lock.shared {
            lock.shared { steps.append("shared in shared") }
            // Asking to hold it alone while reading gives the read up meanwhile.
            lock.exclusively { steps.append("alone in shared") }
            lock.shared { steps.append("shared after the upgrade") }
        }
        #expect(
            steps == [
                "alone in alone", "shared in alone", "shared in shared", "alone in shared", "shared after the upgrade",
            ])
        // Nothing is left held: another thread takes it alone at once.
        #expect(Self.finishes(within: 10) { lock.exclusively {} })
    }

    @Test func readersShareTheLock() {
        let lock = CoordinatorLock()
        let leave = Self.holdRead(of: lock)
        #expect(Self.finishes(within: 5) { lock.shared {} })
        leave.signal()
    }

    @Test func aWriterWaitsForReadersAndNewReadersWaitForIt() {
        let lock = CoordinatorLock()
        let inside = DispatchSemaphore(value: 0)
        let leave = DispatchSemaphore(value: 0)
        let order = Mutex<[String]>([])
        Thread {
            lock.shared {
                inside.signal()
                _ = leave.wait(timeout: .now() + 10)
                // The reader may read again although a writer waits.
                lock.shared { order.withLock { $0.append("reader again") } }
                order.withLock { $0.append("reader") }
            }
        }.start()
        #expect(inside.wait(timeout: .now() + 10) == .success)
        let writerDone = Self.start { lock.exclusively { order.withLock { $0.append("writer") } } }
        #expect(waitUntil { lock.waiting.writers == 1 })
        let lateDone = Self.start { lock.shared { order.withLock { $0.append("late reader") } } }
        #expect(waitUntil { lock.waiting.readers == 1 })
        // Neither the writer nor the late reader gets in while the first reader reads.
        #expect(writerDone.wait(timeout: .now() + 0.2) == .timedOut)
        #expect(lateDone.wait(timeout: .now() + 0.1) == .timedOut)
        leave.signal()
        #expect(writerDone.wait(timeout: .now() + 10) == .success)
        #expect(lateDone.wait(timeout: .now() + 10) == .success)
        #expect(order.withLock { $0 } == ["reader again", "reader", "writer", "late reader"])
    }

    @Test func tryingToHoldItAloneNeverWaits() {
        let lock = CoordinatorLock()
        var ran = 0
        #expect(lock.exclusivelyIfFree { ran += 1 })
        lock.exclusively { #expect(lock.exclusivelyIfFree { ran += 1 }) }
        let leave = Self.holdRead(of: lock)
        #expect(!lock.exclusivelyIfFree { ran += 1 })
        leave.signal()
        #expect(ran == 2)
    }

    @Test func twoReadersAskingToHoldItAloneBothGetIt() {
        let lock = CoordinatorLock()
        let bothReading = DispatchGroup()
        let count = Mutex(0)
        let finished = DispatchGroup()
        for _ in 0..<2 {
            bothReading.enter()
            finished.enter()
            Thread {
                lock.shared {
                    bothReading.leave()
                    _ = bothReading.wait(timeout: .now() + 10)
                    lock.exclusively { count.withLock { $0 += 1 } }
                }
                finished.leave()
            }.start()
        }
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(count.withLock { $0 } == 2)
    }
}
