extension NSManagedObjectContext {
    /// Runs `request` and returns its result as a ``BatchFaultingArray``: only the
    /// matching keys are read now, objects load `fetchBatchSize` at a time as you read them.
    ///
    /// This is what `fetch(_:)` returns on Apple platforms when `fetchBatchSize` is set.
    /// A `fetchBatchSize` of 0 loads everything in one batch on first read. When the
    /// context has unsaved changes that affect the result (and `includesPendingChanges`
    /// is true), the result is computed in memory at once, as `fetch(_:)` does.
    /// Managed object and object ID result types only.
    ///
    /// - Parameter request: The request to run; its `fetchBatchSize` sets how many objects
    ///   one read loads. Its result type must be managed objects or object IDs.
    /// - Returns: A collection that holds the matching keys and loads objects as they are read.
    /// - Throws: An `NSError` when the request cannot run: a dictionary or count result type,
    ///   a result type that does not match `T`, no store, or a predicate or sort the store
    ///   cannot translate.
    public func fetchBatched<T>(_ request: NSFetchRequest<T>) throws -> BatchFaultingArray<T> {
        try fetchBatched(request, restoring: nil)
    }

    /// The batched fetch, or, given the keys an earlier run of the same request found in
    /// an unchanged store (a results controller's section cache), those keys without a
    /// query. Either way, unsaved changes (this context's, or a parent's) are computed in
    /// memory.
    func fetchBatched<T>(
        _ request: NSFetchRequest<T>, restoring cachedKeys: StoreObjectList?
    ) throws -> BatchFaultingArray<T> {
        let (coordinator, entity) = try fetchTarget(request)
        let returnsIDs = request.resultType == .managedObjectIDResultType
        guard request.resultType == .managedObjectResultType || returnsIDs else {
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "fetchBatched(_:) returns managed objects or object IDs; use fetch(_:) for dictionary and count results"
            )
        }
        guard returnsIDs ? T.self == NSManagedObjectID.self : T.self is NSManagedObject.Type else {
            throw CoreDataError.make(
                NSCoreDataError,
                "The fetch returns \(returnsIDs ? "object IDs" : "managed objects"), but the request is an NSFetchRequest<\(T.self)>"
            )
        }
        if !returnsIDs, let objectType = T.self as? NSManagedObject.Type {
            for candidate in request.includesSubentities ? entity.facts.selfAndDescendants : [entity]
            where !(candidate.managedObjectClass is T.Type) && objectType != NSManagedObject.self {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "Entity '\(candidate.name ?? "?")' makes \(candidate.managedObjectClass) objects, which are not \(T.self); check its managedObjectClassName"
                )
            }
        }
        let fetch = storeFetch(request, entity: entity)
        let pending = request.includesPendingChanges ? pendingObjects(matching: fetch) : PendingObjects()
        // An incremental store answers with objects: batching them saves nothing.
        guard pending.isEmpty, parent == nil, incrementalStore(for: request, coordinator) == nil else {
            return BatchFaultingArray(
                objects: try fetchObjects(request, entity: entity, coordinator: coordinator),
                batchSize: request.fetchBatchSize, returnsIDs: returnsIDs)
        }
        guard let store = coordinator.persistentStores.first else {
            throw CoreDataError.make(
                NSCoreDataError,
                "This NSPersistentStoreCoordinator has no persistent stores. It cannot perform a fetch.")
        }
        let list: StoreObjectList
        do {
            list = try cachedKeys ?? coordinator.fetchObjectIDs(fetch, at: readGeneration)
        } catch is StoreFetchInMemory {
            // Evaluated in memory: the objects are loaded anyway, so batching saves nothing.
            return BatchFaultingArray(
                objects: try fetchObjects(request, entity: entity, coordinator: coordinator),
                batchSize: request.fetchBatchSize, returnsIDs: returnsIDs)
        }
        let batchSize = request.fetchBatchSize > 0 ? request.fetchBatchSize : max(list.count, 1)
        return BatchFaultingArray(
            list: list, store: store, batchSize: batchSize, context: self, asFaults: request.returnsObjectsAsFaults,
            returnsIDs: returnsIDs)
    }
}
