/// What an ``NSIncrementalStore`` is to its coordinator: every read and write becomes a
/// call of the subclass's API. Faults fire through ``NSIncrementalStore/newValuesForObject(with:with:)``
/// (nodes become rows), relationships through the node or
/// ``NSIncrementalStore/newValue(forRelationship:forObjectWith:with:)``, saves through
/// ``NSIncrementalStore/execute(_:with:)`` with an ``NSSaveChangesRequest``.
///
/// Contexts send fetch requests to the subclass themselves (NSManagedObjectContext+IncrementalStores.swift),
/// with the request as the app wrote it; the fetches here serve the coordinator's own
/// reads (a save's uniqueness checks).
///
/// The coordinator calls in under its lock, so the state here needs no lock of its own.
final class IncrementalStoreBackend: SubclassStoreBackend {
    /// The store owns this backend.
    unowned let store: NSIncrementalStore
    var subclassStore: NSPersistentStore { store }
    /// The context the current call serves (``serving(_:_:)``), handed to the subclass.
    private var callingContext: NSManagedObjectContext?
    /// To-many values the last node of an object carried, by object and slot, until the
    /// relationship's fault asks for them (a node's value is used once, then the store is asked).
    private var carriedToManys: [NSManagedObjectID: [Int: [NSManagedObjectID]]] = [:]
    /// More carried values than this are dropped (the store is asked again): objects
    /// whose to-manys are never read must not pile up.
    private static let carriedLimit = 10_000

    init(store: NSIncrementalStore) {
        self.store = store
    }

    /// Runs `body` with `context` as the context the subclass is handed.
    func serving<T>(_ context: NSManagedObjectContext?, _ body: () throws -> T) rethrows -> T {
        store.deliverPendingUnregistrations()
        let previous = callingContext
        callingContext = context ?? previous
        defer { callingContext = previous }
        return try body()
    }

    /// The context to hand the subclass: the calling one, else (a read no context made) a
    /// new context of the store's coordinator, not kept (it would keep the coordinator alive).
    private var context: NSManagedObjectContext {
        if let callingContext { return callingContext }
        let made = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        made.persistentStoreCoordinator = store.persistentStoreCoordinator
        return made
    }

    // MARK: Metadata: the subclass's

    var metadata: [String: Any] { store.metadata ?? [:] }
    func setMetadata(_ metadata: [String: Any]) { store.metadata = metadata }
    /// The subclass stores its metadata itself (``NSIncrementalStore/loadMetadata()`` reads it).
    func saveMetadata() throws {}

    // MARK: Objects

    func row(for objectID: NSManagedObjectID) throws -> StoreRow? {
        guard let node = try node(for: objectID) else { return nil }
        return try row(from: node, for: objectID)
    }

    func rows(for objectIDs: [NSManagedObjectID]) throws -> [StoreRow] {
        try objectIDs.compactMap { try row(for: $0) }
    }

    /// The subclass's node for `objectID`; `nil` when it reports the object gone
    /// (`NSManagedObjectReferentialIntegrityError`). Other errors are thrown.
    func node(for objectID: NSManagedObjectID) throws -> NSIncrementalStoreNode? {
        do {
            let node = try store.newValuesForObject(with: objectID, with: context)
            guard node.objectID == objectID else {
                throw CoreDataError.make(
                    NSPersistentStoreOperationError,
                    "\(type(of: store)).newValuesForObject(with:with:) returned the node of \(node.objectID.uriRepresentation().absoluteString) for \(objectID.uriRepresentation().absoluteString)",
                    [NSAffectedStoresErrorKey: [store]])
            }
            return node
        } catch let error as NSError
            where error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectReferentialIntegrityError
        {
            return nil
        }
    }

    /// The row of a node: attributes as stored values, to-ones as IDs (from the node or
    /// asked for); the to-manys it carries are kept for the relationship's fault.
    private func row(from node: NSIncrementalStoreNode, for objectID: NSManagedObjectID) throws -> StoreRow {
        let facts = objectID.entity.facts
        var values = SlotValues(layout: facts.slotLayout)
        for slot in facts.rowColumnSlots {
            let property = facts.slots[slot]
            if let relationship = property as? NSRelationshipDescription {
                let value: Any? =
                    node.holdsValue(forKey: relationship.name)
                    ? node.value(for: relationship)
                    : try store.newValue(forRelationship: relationship, forObjectWith: objectID, with: context)
                values[slot] = try destinations(in: value, of: relationship, for: objectID).first
                continue
            }
            guard let attribute = property as? NSAttributeDescription, let value = node.value(for: attribute),
                !(value is NSNull)
            else { continue }
            values[slot] = try SubclassStoreValues.stored(
                value, for: attribute,
                heldBy: "The node \(type(of: store)) gave for \(objectID.uriRepresentation().absoluteString)")
        }
        var carried: [Int: [NSManagedObjectID]] = [:]
        for slot in facts.storedToManySlots {
            guard let relationship = facts.slots[slot] as? NSRelationshipDescription,
                node.holdsValue(forKey: relationship.name)
            else { continue }
            carried[slot] = try destinations(in: node.value(for: relationship), of: relationship, for: objectID)
        }
        if carriedToManys.count >= Self.carriedLimit { carriedToManys = [:] }
        carriedToManys[objectID] = carried.isEmpty ? nil : carried
        return StoreRow.make(
            objectID: objectID, version: Int64(clamping: node.version), values: values, timestamp: StoreRow.now())
    }

    /// The IDs a relationship value names: none for `nil` or `NSNull`, one ID, or a
    /// collection of IDs (array, set, ordered set), each an object of this store of the
    /// relationship's destination.
    private func destinations(
        in value: Any?, of relationship: NSRelationshipDescription, for objectID: NSManagedObjectID
    ) throws -> [NSManagedObjectID] {
        let members: [Any]
        switch value {
        case nil, is NSNull: return []
        case let id as NSManagedObjectID: members = [id]
        case let object as NSManagedObject: members = [object]
        case let ordered as NSOrderedSet: members = ordered.array
        case let set as NSSet: members = set.allObjects
        case let array as [Any]: members = array
        case let set as Set<NSManagedObjectID>: members = Array(set)
        default: members = [value as Any]
        }
        return try members.map { member in
            let id = (member as? NSManagedObjectID) ?? (member as? NSManagedObject)?.objectID
            guard let id, id.persistentStore === store,
                let destination = relationship.destinationEntity,
                destination.facts.selfAndDescendants.contains(where: { $0 === id.entity })
            else {
                throw CoreDataError.make(
                    NSManagedObjectReferentialIntegrityError,
                    "\(type(of: store)) gave \(member) for the relationship '\(relationship.name)' of \(objectID.uriRepresentation().absoluteString): expected IDs of this store's \(relationship.destinationEntity?.name ?? "?") objects",
                    [NSAffectedStoresErrorKey: [store]])
            }
            return id
        }
    }

    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] {
        if let carried = carriedToManys[objectID]?[relationship.slot] {
            carriedToManys[objectID]?[relationship.slot] = nil
            return carried
        }
        let value = try store.newValue(forRelationship: relationship, forObjectWith: objectID, with: context)
        return try destinations(in: value, of: relationship, for: objectID)
    }

    func relatedRows(
        of sources: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [(source: Int64, row: StoreRow)] {
        var related: [(source: Int64, row: StoreRow)] = []
        for source in sources {
            guard let key = source.primaryKey else { continue }
            for row in try rows(for: relatedObjectIDs(of: source, relationship: relationship)) {
                related.append((key, row))
            }
        }
        return related
    }

    // MARK: Fetches the coordinator makes

    /// Runs `fetch` through the subclass's `execute(_:with:)` as a request of `resultType`.
    private func execute(_ fetch: StoreFetch, as resultType: NSFetchRequestResultType) throws -> [Any] {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = fetch.entity
        request.predicate = fetch.predicate
        request.sortDescriptors = fetch.sortDescriptors.isEmpty ? nil : fetch.sortDescriptors
        request.fetchLimit = fetch.limit
        request.fetchOffset = fetch.offset
        request.includesSubentities = fetch.includesSubentities
        request.resultType = resultType
        return try IncrementalStoreResults.array(store.execute(request, with: context), of: request, from: store)
    }

    /// The IDs matching `fetch`, its key restriction applied.
    private func objectIDs(_ fetch: StoreFetch) throws -> [NSManagedObjectID] {
        let ids = try IncrementalStoreResults.objectIDs(in: execute(fetch, as: .managedObjectIDResultType), from: store)
        guard let keys = fetch.restrictedToKeys.map(Set.init) else { return ids }
        return ids.filter { $0.primaryKey.map(keys.contains) ?? false }
    }

    func fetch(_ fetch: StoreFetch) throws -> [StoreRow] { try rows(for: objectIDs(fetch)) }

    func fetchObjectIDs(_ fetch: StoreFetch) throws -> StoreObjectList {
        let entities = fetch.matchingEntities
        var list = StoreObjectList(entities: entities)
        for id in try objectIDs(fetch) {
            guard let key = id.primaryKey, let index = entities.firstIndex(where: { $0 === id.entity }) else {
                continue
            }
            list.append(key: key, entityIndex: index)
        }
        return list
    }

    func count(_ fetch: StoreFetch) throws -> Int {
        if fetch.restrictedToKeys != nil { return try objectIDs(fetch).count }
        return try IncrementalStoreResults.count(in: execute(fetch, as: .countResultType), from: store)
    }

    func fetchDictionaries(_ fetch: StoreDictionaryFetch) throws -> [NSDictionary] {
        throw CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError,
            "Dictionary fetches go to \(type(of: store)).execute(_:with:) from the context, not through the coordinator"
        )
    }

    // MARK: Saves

    /// New objects get their IDs from the subclass's `obtainPermanentIDs(for:)`, which
    /// needs the objects: contexts ask it before saving.
    func reservePrimaryKeys(for entities: [NSEntityDescription]) throws -> [Int64] {
        throw CoreDataError.make(
            NSPersistentStoreSaveError,
            "\(type(of: store)) names new objects through obtainPermanentIDs(for:), which needs the objects")
    }

    func save(_ request: StoreSaveRequest) throws -> StoreSaveOutcome {
        guard let context = request.context else {
            throw CoreDataError.make(
                NSPersistentStoreSaveError,
                "An incremental store saves a context's objects; this save came from no context")
        }
        return try serving(context) {
            if !request.checks.isEmpty,
                let conflicts = try request.checks.conflicts(
                    of: request, reading: IncrementalSaveCheckReader(backend: self))
            {
                return .conflicts(conflicts)
            }
            func object(_ entity: NSEntityDescription, _ key: Int64) throws -> NSManagedObject {
                let id = NSManagedObjectID(entity: entity, store: store, primaryKey: key)
                guard let object = context.registeredObject(for: id) else {
                    throw CoreDataError.make(
                        NSPersistentStoreSaveError,
                        "The saved object \(id.uriRepresentation().absoluteString) is not registered with the saving context"
                    )
                }
                return object
            }
            let inserted = Set(try request.inserts.map { try object($0.entity, $0.primaryKey) })
            let deleted = Set(try request.deletes.map { try object($0.row.entity, $0.row.primaryKey) })
            var updated = Set(try request.updates.map { try object($0.entity, $0.primaryKey) })
            for change in request.memberships {
                let source = try object(change.source.entity, change.source.primaryKey)
                if !inserted.contains(source), !deleted.contains(source) { updated.insert(source) }
            }
            let save = NSSaveChangesRequest(inserted: inserted, updated: updated, deleted: deleted, locked: [])
            _ = try store.execute(save, with: context)
            for object in inserted.union(updated).union(deleted) { carriedToManys[object.objectID] = nil }
            return .saved
        }
    }

    func close() { carriedToManys = [:] }
}

/// A save's checks read through the subclass: versions from its nodes, constraint
/// holders from its fetches.
private struct IncrementalSaveCheckReader: StoreSaveCheckReader {
    let backend: IncrementalStoreBackend

    func versions(ofKeys keys: [Int64], in entity: NSEntityDescription) throws -> [Int64: Int64] {
        var versions: [Int64: Int64] = [:]
        for key in keys {
            let id = NSManagedObjectID(entity: entity, store: backend.store, primaryKey: key)
            if let node = try backend.node(for: id) { versions[key] = Int64(clamping: node.version) }
        }
        return versions
    }

    func rows(for references: [StoreSaveRequest.RowReference]) throws -> [StoreRow] {
        try backend.rows(
            for: references.map {
                NSManagedObjectID(entity: $0.entity, store: backend.store, primaryKey: $0.primaryKey)
            })
    }

    func objectIDs(
        of entity: NSEntityDescription, where properties: [NSPropertyDescription], equal values: [Any?]
    ) throws -> [NSManagedObjectID] {
        let conditions = zip(properties, values).map { property, value in
            NSComparisonPredicate(
                leftExpression: NSExpression(forKeyPath: property.name),
                rightExpression: NSExpression(forConstantValue: value), modifier: .direct, type: .equalTo)
        }
        let fetch = StoreFetch(
            entity: entity, predicate: NSCompoundPredicate(andPredicateWithSubpredicates: conditions),
            sortDescriptors: [], limit: 0, offset: 0, includesSubentities: true, restrictedToKeys: nil)
        let list = try backend.fetchObjectIDs(fetch)
        return (0..<list.count).map { list.objectID(at: $0, store: backend.store) }
    }
}
