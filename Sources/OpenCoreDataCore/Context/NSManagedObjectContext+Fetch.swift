extension NSManagedObjectContext {
    /// Returns the objects (or IDs, dictionaries, counts) that match `request`.
    ///
    /// The predicate and sort descriptors run in the store as SQL. With
    /// `includesPendingChanges` (the default), unsaved inserts, updates and deletes
    /// of this context count too, as in Core Data, except for dictionary results,
    /// which reflect the store alone. No match is `[]`; a bad request (unknown
    /// entity or key) throws.
    ///
    /// - Parameter request: What to fetch; its result type decides what the array holds.
    /// - Returns: The matching results in the request's order, within its limit and offset.
    /// - Throws: An `NSError` when the request is invalid (no entity, a result type that does
    ///   not match `T`, an unknown key), the context has no store, or the store cannot run the
    ///   predicate or sort; fetching has then changed nothing.
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        let (coordinator, entity) = try fetchTarget(request)
        try checkResultOptions(request)
        switch request.resultType {
        case .countResultType:
            return try results([NSNumber(value: try count(for: request))], of: request, kind: "a count")
        case .dictionaryResultType:
            return try fetchDictionaries(request, entity: entity, coordinator: coordinator)
        case .managedObjectIDResultType:
            if parent == nil, let ids = try fetchObjectIDsFromStore(request, entity: entity, coordinator: coordinator) {
                return ids
            }
        default:
            break
        }
        // A typed request names the class its objects must have: bind it, so a class of the
        // same bare name from another module is not the one instantiated.
        if let objectClass = T.self as? NSManagedObject.Type, objectClass != NSManagedObject.self {
            entity.facts.noteInstantiated(objectClass, entity: entity)
        }
        let objects = try fetchObjects(request, entity: entity, coordinator: coordinator)
        switch request.resultType {
        case .managedObjectIDResultType:
            return try results(objects.map(\.objectID), of: request, kind: "object IDs")
        default:
            // Objects of exactly the requested class (the usual case) are reinterpreted,
            // not cast: the runtime's general cast costs more per object than registering it.
            let exactClass = T.self as? NSManagedObject.Type
            return try converted(objects) { object in
                if let exactClass, type(of: object) == exactClass { return unsafeBitCast(object, to: T.self) }
                guard let typed = object as? T else {
                    throw CoreDataError.make(
                        NSCoreDataError,
                        "Fetched a \(type(of: object)) for entity '\(object.entity.name ?? "?")', which is not a \(T.self); check the entity's managedObjectClassName"
                    )
                }
                return typed
            }
        }
    }

    /// The number of objects `request` would return, without loading them.
    ///
    /// - Parameter request: The request whose results to count; its limit and offset apply.
    /// - Returns: How many results a fetch would return, unsaved changes included when the
    ///   request includes pending changes.
    /// - Throws: An `NSError` for the same reasons ``fetch(_:)`` throws.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        let (coordinator, entity) = try fetchTarget(request)
        if let store = incrementalStore(for: request, coordinator) {
            return try incrementalCount(request, entity: entity, store: store, coordinator)
        }
        // A child counts what its parent holds, unsaved changes included.
        if parent != nil { return try fetchObjects(request, entity: entity, coordinator: coordinator).count }
        var fetch = storeFetch(request, entity: entity)
        fetch.limit = 0
        fetch.offset = 0
        let pending = request.includesPendingChanges ? pendingObjects(matching: fetch) : PendingObjects()
        let generation = readGeneration
        var total: Int
        do {
            total = try coordinator.count(fetch, at: generation)
        } catch is StoreFetchInMemory {
            // The objects, counted after evaluating in memory (the window applied there).
            return try fetchObjects(request, entity: entity, coordinator: coordinator).count
        }
        if !pending.changedPersisted.isEmpty {
            var check = fetch
            check.restrictedToKeys = pending.changedPersisted.compactMap(\.objectID.primaryKey)
            total -= try coordinator.count(check, at: generation)
            total += InheritanceTreeKeys.readingAsNil {
                pending.changedPersisted.filter { $0.lifecycle != .deleted && matches($0, fetch) }.count
            }
        }
        total += InheritanceTreeKeys.readingAsNil { pending.inserted.filter { matches($0, fetch) }.count }
        if request.fetchOffset > 0 { total = max(0, total - request.fetchOffset) }
        if request.fetchLimit > 0 { total = min(total, request.fetchLimit) }
        return total
    }

    // MARK: Internals

    func fetchTarget<T>(_ request: NSFetchRequest<T>) throws -> (NSPersistentStoreCoordinator, NSEntityDescription) {
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(NSCoreDataError, "This context has no persistent store coordinator")
        }
        let entity = try request.resolveEntity(in: coordinator.managedObjectModel)
        if request.includesPendingChanges { processPendingChanges() }
        return (coordinator, entity)
    }

    func storeFetch<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) -> StoreFetch {
        StoreFetch(request, entity: entity)
    }

    /// Unsaved objects that can change a fetch's result.
    struct PendingObjects {
        var inserted: [NSManagedObject] = []
        /// Saved objects that were changed or deleted in the context.
        var changedPersisted: [NSManagedObject] = []
        var isEmpty: Bool { inserted.isEmpty && changedPersisted.isEmpty }
    }

    func pendingObjects(matching fetch: StoreFetch) -> PendingObjects {
        let entities = Set(fetch.matchingEntities.map(ObjectIdentifier.init))
        func relevant(_ object: NSManagedObject) -> Bool { entities.contains(ObjectIdentifier(object.entity)) }
        return PendingObjects(
            inserted: insertedSet.filter(relevant),
            changedPersisted: (updatedSet.filter(relevant) + deletedSet.filter(relevant))
        )
    }

    /// Whether `object` matches the fetch's predicate. Callers run it inside
    /// `InheritanceTreeKeys.readingAsNil`, once per fetch, so keys read as the store does.
    func matches(_ object: NSManagedObject, _ fetch: StoreFetch) -> Bool {
        fetch.predicate?.evaluate(with: object) ?? true
    }

    /// The rows a fetch reads from the context's source: the store, or for a child
    /// context its parent's objects (their unsaved changes included).
    private func sourceRows<T>(
        _ fetch: StoreFetch, _ request: NSFetchRequest<T>, _ coordinator: NSPersistentStoreCoordinator
    ) throws -> [StoreRow] {
        if let parent {
            learnSourcePermanentIDs()
            return try parent.rowsForChild(request, limit: fetch.limit, offset: fetch.offset)
        }
        return try coordinator.fetch(fetch, at: readGeneration)
    }

    /// The objects for rows a fetch read, registered (as faults when the request says so).
    private func registerFetched<T>(_ rows: [StoreRow], for request: NSFetchRequest<T>) -> [NSManagedObject] {
        registry.reserveCapacity(forAdditional: rows.count)
        // Read once: each of the request's properties is a checked access.
        let asFault = request.returnsObjectsAsFaults, refresh = request.shouldRefreshRefetchedObjects
        return rows.map { register($0, asFault: asFault, refresh: refresh) }
    }

    func fetchObjects<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator
    ) throws -> [NSManagedObject] {
        if let store = incrementalStore(for: request, coordinator) {
            return try incrementalObjects(request, entity: entity, store: store, coordinator)
        }
        do {
            return try fetchObjectsFromStore(request, entity: entity, coordinator: coordinator)
        } catch let inMemory as StoreFetchInMemory {
            return try fetchObjectsInMemory(
                request, entity: entity, coordinator: coordinator, prefilter: inMemory.prefilter)
        }
    }

    /// The objects of a fetch whose predicate and sort the store runs.
    private func fetchObjectsFromStore<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator
    ) throws -> [NSManagedObject] {
        var fetch = storeFetch(request, entity: entity)
        let pending = request.includesPendingChanges ? pendingObjects(matching: fetch) : PendingObjects()
        if pending.isEmpty {
            let objects: [NSManagedObject]
            if request.includesPropertyValues || parent != nil {
                objects = registerFetched(try sourceRows(fetch, request, coordinator), for: request)
            } else {
                // Identities only: each object fires its own query (or uses the row cache) when touched.
                let list = try coordinator.fetchObjectIDs(fetch, at: readGeneration)
                guard let store = coordinator.persistentStores.first else { return [] }
                objects = (0..<list.count).map { object(with: list.objectID(at: $0, store: store)) }
            }
            try prefetch(request.relationshipKeyPathsForPrefetching, of: objects, entity: entity)
            return objects
        }
        // Fetch enough rows to survive pending changes moving objects out of the
        // window, then apply the changes and the window in memory.
        if fetch.limit > 0 {
            // Saturating: a limit of Int.max means "all" and must not overflow.
            let (window, overflow) = max(fetch.offset, 0).addingReportingOverflow(fetch.limit)
            let (needed, overflowAgain) = window.addingReportingOverflow(pending.changedPersisted.count)
            fetch.limit = overflow || overflowAgain ? 0 : needed
        }
        fetch.offset = 0
        // The store fetch runs first, so a predicate with unknown keys throws before any
        // in-memory evaluation.
        let fetched = registerFetched(try sourceRows(fetch, request, coordinator), for: request)
        // The store matched the rows; only objects changed here can have stopped matching.
        return try finishInMemory(
            fetched,
            keeping: { $0.lifecycle != .deleted && (!self.updatedSet.contains($0) || self.matches($0, fetch)) },
            fetch: fetch, pending: pending, request: request, entity: entity)
    }

    /// The objects of a fetch the store cannot evaluate exactly (``StoreFetchInMemory``):
    /// the rows `prefilter` selects, registered, then the predicate, the context's unsaved
    /// changes, the sort and the window applied in memory.
    private func fetchObjectsInMemory<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator,
        prefilter: NSPredicate?
    ) throws -> [NSManagedObject] {
        let fetch = storeFetch(request, entity: entity)
        var candidates = fetch
        candidates.predicate = prefilter
        candidates.sortDescriptors = []
        candidates.limit = 0
        candidates.offset = 0
        let pending = request.includesPendingChanges ? pendingObjects(matching: fetch) : PendingObjects()
        let rows = try sourceRows(candidates, request, coordinator)
        guard parent == nil else {
            // A child's rows are its parent's objects, unsaved changes included: evaluate them as they are.
            return try finishInMemory(
                registerFetched(rows, for: request), keeping: { $0.lifecycle != .deleted && self.matches($0, fetch) },
                fetch: fetch, pending: pending, request: request, entity: entity)
        }
        // The predicate and sort see the rows as the store holds them, as SQL would: in a
        // context of their own, since this one's objects may hold unsaved changes or values
        // older than the rows just read.
        let scratch = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        scratch.persistentStoreCoordinator = coordinator
        try scratch.setQueryGenerationFrom(queryGenerationToken)
        let matchedIDs = scratch.performAndWait {
            let objects = rows.map { scratch.register($0, asFault: false, refresh: true) }
            return InheritanceTreeKeys.readingAsNil {
                let matched = objects.filter { fetch.predicate?.evaluate(with: $0) ?? true }
                return (fetch.sortDescriptors.isEmpty ? matched : matched.sorted(using: fetch.sortDescriptors))
                    .map(\.objectKey)
            }
        }
        let registered = Dictionary(
            registerFetched(rows, for: request).map { ($0.objectKey, $0) }, uniquingKeysWith: { first, _ in first })
        let stored = matchedIDs.compactMap { registered[$0] }
        guard pending.isEmpty else {
            // The store's answer, then this context's unsaved changes over it, as a store fetch gets them.
            return try finishInMemory(
                stored,
                keeping: { $0.lifecycle != .deleted && (!self.updatedSet.contains($0) || self.matches($0, fetch)) },
                fetch: fetch, pending: pending, request: request, entity: entity)
        }
        return try windowed(stored, request, entity: entity)
    }

    /// Completes a fetch in memory: the `fetched` objects that `keep` keeps, then the unsaved
    /// changes that match `fetch`, sorted by its descriptors, windowed as `request` says, and
    /// prefetched. Keys read as the store reads them (`InheritanceTreeKeys.readingAsNil`).
    func finishInMemory<T>(
        _ fetched: [NSManagedObject], keeping keep: (NSManagedObject) -> Bool, fetch: StoreFetch,
        pending: PendingObjects, request: NSFetchRequest<T>, entity: NSEntityDescription
    ) throws -> [NSManagedObject] {
        let objects = InheritanceTreeKeys.readingAsNil {
            var objects = fetched.filter(keep)
            var present = Set(objects)
            for object in pending.changedPersisted
            where object.lifecycle != .deleted && !present.contains(object) && matches(object, fetch) {
                objects.append(object)
                present.insert(object)
            }
            objects += pending.inserted.filter { !present.contains($0) && matches($0, fetch) }
            return fetch.sortDescriptors.isEmpty ? objects : objects.sorted(using: fetch.sortDescriptors)
        }
        return try windowed(objects, request, entity: entity)
    }

    /// The request's window of `objects`, prefetched as it asks.
    private func windowed<T>(
        _ objects: [NSManagedObject], _ request: NSFetchRequest<T>, entity: NSEntityDescription
    ) throws -> [NSManagedObject] {
        // Negative offsets read as none; limits are compared without adding (Int.max limits).
        let start = min(max(request.fetchOffset, 0), objects.count)
        let end = request.fetchLimit > 0 ? start + min(request.fetchLimit, objects.count - start) : objects.count
        let result = Array(objects[start..<end])
        try prefetch(request.relationshipKeyPathsForPrefetching, of: result, entity: entity)
        return result
    }
}
