/// The result of a request that finishes later (an asynchronous fetch): the
/// context it runs in, its progress, and the error it ended with, if any.
///
/// It is handed out as soon as the request starts; its values change when the
/// request ends, from the context's queue, and may be read from any thread.
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult, @unchecked Sendable {
    /// The context the request runs in.
    public let managedObjectContext: NSManagedObjectContext
    /// Follows the request: cancel it to cancel the request.
    public let progress: Progress?
    private let lock = NSLock()
    private var error: Error?

    init(context: NSManagedObjectContext, progress: Progress) {
        managedObjectContext = context
        self.progress = progress
        super.init()
    }

    /// Why the request failed or stopped (`NSUserCancelledError` after `cancel()`); `nil` on success.
    open var operationError: Error? { locked { error } }

    /// Stops the request: the completion block is not called and no result arrives.
    /// Nothing happens when the request has already finished.
    open func cancel() {
        progress?.cancel()
    }

    /// Whether the request was cancelled.
    var isCancelled: Bool { progress?.isCancelled ?? false }

    /// Records the error the request ended with.
    func fail(with error: Error) {
        locked { self.error = error }
    }

    /// Runs `body` with the result's state locked.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
