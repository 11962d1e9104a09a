/// An asynchronous fetch request whose result type is not known statically, so
/// `execute(_:)` can start one from an `NSPersistentStoreRequest`.
protocol AsynchronousFetchStarting: NSPersistentStoreRequest {
    /// Starts the fetch in `context` (see ``NSManagedObjectContext/executeAsynchronousFetch(_:)``).
    func start(in context: NSManagedObjectContext) throws -> NSPersistentStoreAsynchronousResult
}

extension NSAsynchronousFetchRequest: AsynchronousFetchStarting {
    func start(in context: NSManagedObjectContext) throws -> NSPersistentStoreAsynchronousResult {
        try context.executeAsynchronousFetch(self)
    }
}

extension NSManagedObjectContext {
    /// Starts an asynchronous fetch and returns its result object at once.
    ///
    /// The fetch runs on the context's queue after the work already queued there
    /// (it reads the context's unsaved changes as `fetch(_:)` does). Its progress
    /// becomes a child of the current `Progress`, if any, and counts one unit per
    /// result (one unit when there are none). On success or failure the completion
    /// block runs on the context's queue; after `cancel()` it does not run, and the
    /// result's `operationError` is `NSUserCancelledError`.
    func executeAsynchronousFetch<T>(_ request: NSAsynchronousFetchRequest<T>) throws -> NSAsynchronousFetchResult<T> {
        guard persistentStoreCoordinator != nil else {
            throw CoreDataError.make(NSCoreDataError, "This context has no persistent store coordinator")
        }
        // `Progress(totalUnitCount:)` joins the caller's current progress, as Core Data's does.
        let progress = Progress(totalUnitCount: Int64(max(request.estimatedResultCount, 0)))
        let result = NSAsynchronousFetchResult(fetchRequest: request, context: self, progress: progress)
        perform {
            guard !result.isCancelled else { return result.fail(with: Self.cancellationError()) }
            do {
                let results = try self.fetch(request.fetchRequest)
                guard !result.isCancelled else { return result.fail(with: Self.cancellationError()) }
                progress.totalUnitCount = Int64(max(results.count, 1))
                progress.completedUnitCount = progress.totalUnitCount
                result.finish(with: results)
            } catch {
                result.fail(with: error)
            }
            request.completionBlock?(result)
        }
        return result
    }

    private static func cancellationError() -> NSError {
        CoreDataError.make(CocoaError.Code.userCancelled.rawValue, "The asynchronous fetch was cancelled")
    }
}
