/// Fetches that go to an ``NSIncrementalStore``: the subclass gets the request itself
/// (its predicate, sort, window and result type) and the context, as in Core Data, and its
/// answer is merged with this context's unsaved changes as a store's rows are.
extension NSManagedObjectContext {
    /// The incremental store a root context sends `request` to, if it goes to one.
    func incrementalStore<T>(
        for request: NSFetchRequest<T>, _ coordinator: NSPersistentStoreCoordinator
    ) -> NSIncrementalStore? {
        guard parent == nil, let store = request.affectedStores?.first ?? coordinator.persistentStores.first,
            store.isIncremental
        else { return nil }
        return store as? NSIncrementalStore
    }

    /// `request` as the subclass gets it: an `NSFetchRequest<NSFetchRequestResult>` (Swift
    /// does not erase the result type, so a subclass casts to that one type), a copy when
    /// the app's request has another type or `change` alters it.
    private func requestForStore<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription,
        changing change: ((NSFetchRequest<NSFetchRequestResult>) -> Void)? = nil
    ) -> NSFetchRequest<NSFetchRequestResult> {
        if change == nil, let same = request as? NSFetchRequest<NSFetchRequestResult>,
            same.entity == nil || same.entity === entity
        {
            // A request named by entity name gets the entity it names, as Core Data resolves it.
            if same.entity == nil { same.entity = entity }
            return same
        }
        let copy = request.copied(as: NSFetchRequestResult.self)
        copy.entity = entity
        change?(copy)
        return copy
    }

    /// The subclass's answer to `request`, serialized with the coordinator's other work.
    private func execute(
        _ request: NSFetchRequest<NSFetchRequestResult>, in store: NSIncrementalStore,
        _ coordinator: NSPersistentStoreCoordinator
    ) throws -> [Any] {
        try coordinator.performAndWait {
            store.deliverPendingUnregistrations()
            return try IncrementalStoreResults.array(store.execute(request, with: self), of: request, from: store)
        }
    }

    /// The dictionaries of a `.dictionaryResultType` request, from the store alone (as
    /// every store's dictionaries are).
    func incrementalDictionaries<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, store: NSIncrementalStore,
        _ coordinator: NSPersistentStoreCoordinator
    ) throws -> [T] {
        try results(
            execute(requestForStore(request, entity: entity), in: store, coordinator), of: request,
            kind: "dictionaries")
    }

    /// The store's IDs for a `.managedObjectIDResultType` request, or `nil` when this
    /// context's unsaved changes can change the answer (the objects' path merges them).
    func incrementalObjectIDs<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, store: NSIncrementalStore,
        _ coordinator: NSPersistentStoreCoordinator
    ) throws -> [T]? {
        if request.includesPendingChanges, !pendingObjects(matching: storeFetch(request, entity: entity)).isEmpty {
            return nil
        }
        let sent = requestForStore(request, entity: entity)
        let ids = try IncrementalStoreResults.objectIDs(in: execute(sent, in: store, coordinator), from: store)
        return try results(ids, of: request, kind: "object IDs")
    }

    /// How many objects `request` matches: the store's count, or with unsaved changes that
    /// matter, the merged objects counted.
    func incrementalCount<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, store: NSIncrementalStore,
        _ coordinator: NSPersistentStoreCoordinator
    ) throws -> Int {
        if request.includesPendingChanges, !pendingObjects(matching: storeFetch(request, entity: entity)).isEmpty {
            return try incrementalObjects(request, entity: entity, store: store, coordinator).count
        }
        let sent = requestForStore(request, entity: entity) { $0.resultType = .countResultType }
        return try IncrementalStoreResults.count(in: execute(sent, in: store, coordinator), from: store)
    }

    /// The objects of a fetch of objects or IDs: the store's answer as objects of this
    /// context, then this context's unsaved changes over it, sorted and windowed as a
    /// store fetch's are, and prefetched.
    func incrementalObjects<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, store: NSIncrementalStore,
        _ coordinator: NSPersistentStoreCoordinator
    ) throws -> [NSManagedObject] {
        let fetch = storeFetch(request, entity: entity)
        let pending = request.includesPendingChanges ? pendingObjects(matching: fetch) : PendingObjects()
        // Objects or IDs, whatever the request asked (a count with unsaved changes counts objects).
        let asksObjects = request.resultType == .managedObjectResultType
        let kind: NSFetchRequestResultType = asksObjects ? .managedObjectResultType : .managedObjectIDResultType
        let sent: NSFetchRequest<NSFetchRequestResult>
        if pending.isEmpty {
            sent = requestForStore(
                request, entity: entity, changing: request.resultType == kind ? nil : { $0.resultType = kind })
        } else {
            // Enough results to survive unsaved changes moving objects out of the window,
            // which is then applied here.
            sent = requestForStore(request, entity: entity) { copy in
                let (window, overflow) = max(request.fetchOffset, 0).addingReportingOverflow(request.fetchLimit)
                let (needed, again) = window.addingReportingOverflow(pending.changedPersisted.count)
                copy.fetchLimit = request.fetchLimit <= 0 || overflow || again ? 0 : needed
                copy.fetchOffset = 0
                copy.resultType = kind
            }
        }
        let ids = try IncrementalStoreResults.objectIDs(in: execute(sent, in: store, coordinator), from: store)
        let fetched = ids.map { object(with: $0) }
        guard pending.isEmpty else {
            return try finishInMemory(
                fetched,
                keeping: { $0.lifecycle != .deleted && (!self.updatedSet.contains($0) || self.matches($0, fetch)) },
                fetch: fetch, pending: pending, request: request, entity: entity)
        }
        try prefetch(request.relationshipKeyPathsForPrefetching, of: fetched, entity: entity)
        return fetched
    }

    /// Permanent IDs for `objects` from the incremental store's subclass, checked: one
    /// ID of the store per object, of the object's entity.
    func incrementalPermanentIDs(
        for objects: [NSManagedObject], store: NSIncrementalStore, _ coordinator: NSPersistentStoreCoordinator
    ) throws -> [NSManagedObjectID] {
        let ids = try coordinator.performAndWait {
            store.deliverPendingUnregistrations()
            return try store.obtainPermanentIDs(for: objects)
        }
        guard ids.count == objects.count,
            zip(ids, objects).allSatisfy({ $0.persistentStore === store && $0.entity === $1.entity })
        else {
            throw CoreDataError.make(
                NSPersistentStoreSaveError,
                "\(type(of: store)).obtainPermanentIDs(for:) must return one ID of the store per object, of the object's entity (it returned \(ids.count) for \(objects.count) objects)",
                [NSAffectedStoresErrorKey: [store]])
        }
        return ids
    }
}
