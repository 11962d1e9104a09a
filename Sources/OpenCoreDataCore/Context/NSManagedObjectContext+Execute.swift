extension NSManagedObjectContext {
    /// Runs a batch insert, update or delete, or a persistent-history request, through
    /// the context's coordinator and returns its result (cast it to ``NSBatchInsertResult``,
    /// ``NSBatchUpdateResult``, ``NSBatchDeleteResult`` or ``NSPersistentHistoryResult``), or starts an ``NSAsynchronousFetchRequest`` and
    /// returns its ``NSAsynchronousFetchResult`` at once.
    ///
    /// The request works on the store directly: the context's objects, and its unsaved
    /// changes, are left as they are. Registered objects stay stale until refreshed or
    /// merged with ``mergeChanges(fromRemoteContextSave:into:)``.
    ///
    /// - Parameter request: A batch insert, update or delete request, a persistent-history
    ///   request, or an asynchronous fetch request.
    /// - Returns: The request's result; its class depends on the request.
    /// - Throws: An `NSError` when the store refuses the request or the request is invalid
    ///   (an unknown entity, values of the wrong type, history that is not tracked).
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        if let asynchronous = request as? any AsynchronousFetchStarting {
            return try asynchronous.start(in: self)
        }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "This context has no persistent store coordinator")
        }
        guard let result = try coordinator.execute(request, with: self) as? NSPersistentStoreResult else {
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "\(type(of: request)) does not produce an NSPersistentStoreResult")
        }
        return result
    }
}
