import Foundation
import OpenCoreData
import Synchronization

/// Saves made to the store by other processes, as a count that grows: each listener (a
/// page's event stream) gets the new count when `NSPersistentStoreRemoteChange` arrives
/// for the browser's coordinator.
public final class ChangeFeed: @unchecked Sendable {
    private struct State {
        var count = 0
        var listeners: [UUID: AsyncStream<Int>.Continuation] = [:]
    }

    private let state = Mutex(State())
    /// Set once in `init`, read in `deinit` (what makes the class `@unchecked Sendable`).
    private var observer: (any NSObjectProtocol)?

    init(coordinator: NSPersistentStoreCoordinator) {
        observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { [weak self] _ in self?.changed() }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    /// The counts from now on, one per remote change, until the listener stops listening.
    public func updates() -> AsyncStream<Int> {
        let id = UUID()
        // Counts are cumulative: a listener behind needs only the newest.
        return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            state.withLock { $0.listeners[id] = continuation }
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) }
            }
        }
    }

    private func changed() {
        let (count, listeners) = state.withLock { state -> (Int, [AsyncStream<Int>.Continuation]) in
            state.count += 1
            return (state.count, Array(state.listeners.values))
        }
        for listener in listeners { listener.yield(count) }
    }
}
