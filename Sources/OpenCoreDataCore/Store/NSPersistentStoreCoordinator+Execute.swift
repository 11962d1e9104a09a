extension NSPersistentStoreCoordinator {
    /// Runs a batch insert, update or delete, or a persistent-history request, in the
    /// store and returns its ``NSPersistentStoreResult`` (an ``NSBatchInsertResult``,
    /// ``NSBatchUpdateResult``, ``NSBatchDeleteResult`` or ``NSPersistentHistoryResult``).
    ///
    /// Values are checked and batch-insert handlers run before the store is locked;
    /// the store work itself is serialized with the coordinator's other calls. No
    /// context's objects change: merge the result's IDs with
    /// ``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``. Other
    /// request types throw `NSPersistentStoreUnsupportedRequestTypeError`.
    ///
    /// - Parameters:
    ///   - request: A batch insert, update or delete request, or a persistent-history request.
    ///   - context: The context the request runs for; batch results are reported against it.
    /// - Returns: The request's result.
    /// - Throws: An `NSError` when the request is invalid or the store fails it; nothing is
    ///   written then.
    public func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> Any {
        switch request {
        case let insert as NSBatchInsertRequest:
            let store = try batchStore(for: insert)
            var storeRequest = try insert.storeRequest(in: managedObjectModel)
            storeRequest.origin = context.historyOrigin
            let outcome = try runBatch(on: store) { try $0.batchInsert(storeRequest) }
            return NSBatchInsertResult(
                resultType: insert.resultType, result: Self.result(outcome, insert.resultType.rawValue))
        case let update as NSBatchUpdateRequest:
            let store = try batchStore(for: update)
            var storeRequest = try update.storeRequest(in: managedObjectModel)
            storeRequest.origin = context.historyOrigin
            let outcome = try runBatch(on: store) { try $0.batchUpdate(storeRequest) }
            return NSBatchUpdateResult(
                resultType: update.resultType, result: Self.result(outcome, update.resultType.rawValue))
        case let delete as NSBatchDeleteRequest:
            let store = try batchStore(for: delete)
            var outcome = StoreBatchOutcome(count: 0, objectIDs: [])
            if var storeRequest = try delete.storeRequest(in: managedObjectModel, store: store) {
                storeRequest.origin = context.historyOrigin
                outcome = try runBatch(on: store) { try $0.batchDelete(storeRequest) }
            }
            return NSBatchDeleteResult(
                resultType: delete.resultType, result: Self.result(outcome, delete.resultType.rawValue))
        case let history as NSPersistentHistoryChangeRequest:
            return try execute(history)
        default:
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "Unsupported request type \(type(of: request)) (requestType \(request.requestType.rawValue)): execute(_:) runs NSBatchInsertRequest, NSBatchUpdateRequest, NSBatchDeleteRequest and NSPersistentHistoryChangeRequest; use fetch(_:) for fetch requests"
            )
        }
    }

    /// The store a batch request writes to: its first affected store, else the first store.
    private func batchStore(for request: NSPersistentStoreRequest) throws -> NSPersistentStore {
        guard let store = request.affectedStores?.first ?? persistentStores.first else {
            throw CoreDataError.make(
                NSCoreDataError,
                "This NSPersistentStoreCoordinator has no persistent stores. It cannot perform a batch request.")
        }
        guard !store.isReadOnly else {
            throw store.readOnlyError
        }
        return store
    }

    /// Runs the store work and tells the row cache what changed, both under the
    /// coordinator's lock, so no fault fires from a row the batch made stale.
    private func runBatch(
        on store: NSPersistentStore, _ work: (any PersistentStoreBackend) throws -> StoreBatchOutcome
    ) throws -> StoreBatchOutcome {
        try performAndWait {
            guard let backend = store.backend, persistentStores.contains(where: { $0 === store }) else {
                throw CoreDataError.make(NSPersistentStoreOperationError, "The store was removed from its coordinator")
            }
            let outcome = try work(backend)
            if !outcome.changedObjectIDs.isEmpty { forgetCachedRows(for: outcome.changedObjectIDs) }
            if !outcome.changedEntities.isEmpty { forgetCachedRows(of: outcome.changedEntities) }
            return outcome
        }
    }

    /// The result value for a result type's raw value (0 status, 1 object IDs, 2 count, as all three enums number them).
    private static func result(_ outcome: StoreBatchOutcome, _ resultType: UInt) -> Any {
        switch resultType {
        case 1: return outcome.objectIDs ?? []
        case 2: return outcome.count
        default: return true
        }
    }
}
