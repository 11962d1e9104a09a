import OpenCoreData

extension ModelContext {
    /// The models `descriptor` describes.
    ///
    /// - Throws: ``SwiftDataError/unsupportedPredicate``, ``SwiftDataError/unsupportedSortDescriptor``
    ///   or ``SwiftDataError/unsupportedKeyPath`` naming what the store cannot run; the store's error.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let request = try fetchRequest(descriptor, resultType: .managedObjectResultType)
        return try storeFetch(request).map { object in
            guard let model = (object as? SwiftDataManagedObject)?.resolvedModel(as: T.self) else {
                throw SwiftDataError.unknownSchema.explained(
                    "the store gave a \(type(of: object)) of entity '\((object as? NSManagedObject)?.entity.name ?? "?")' for a fetch of \(T.self)"
                )
            }
            return model
        }
    }

    /// The models `descriptor` describes, loaded `batchSize` at a time as the collection is read.
    ///
    /// Only the matching rows' keys are read now; reading an element loads its batch with one
    /// query, and models of batches read earlier are let go unless something holds them, so
    /// walking a large result keeps memory bounded.
    ///
    /// - Parameters:
    ///   - descriptor: The models to fetch, in its order.
    ///   - batchSize: How many models one read loads.
    /// - Returns: The models, as a random-access collection.
    /// - Throws: As ``fetch(_:)``.
    public func fetch<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> FetchResultsCollection<T> {
        let request = try fetchRequest(
            descriptor, resultType: .managedObjectResultType, as: SwiftDataManagedObject.self)
        request.fetchBatchSize = max(1, batchSize)
        do {
            return FetchResultsCollection(objects: try objectContext.fetchBatched(request))
        } catch {
            throw SwiftDataError.storeFetchError(error) ?? error
        }
    }

    /// How many models `descriptor` describes, counted in SQL.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let request = try fetchRequest(descriptor, resultType: .countResultType)
        do {
            return try objectContext.count(for: request)
        } catch {
            throw SwiftDataError.storeFetchError(error) ?? error
        }
    }

    /// The identifiers of the models `descriptor` describes, without loading the models.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier]
    {
        let request = try fetchRequest(descriptor, resultType: .managedObjectIDResultType)
        return try storeFetch(request).compactMap { ($0 as? NSManagedObjectID).map(PersistentIdentifier.init) }
    }

    /// Calls `block` with each model `descriptor` describes, loading `batchSize` at a time and
    /// letting go of each batch's unchanged models after it.
    ///
    /// - Parameters:
    ///   - descriptor: The models to visit, in its order.
    ///   - batchSize: How many models to load at a time.
    ///   - allowEscapingMutations: Whether `block` may change models; when `false`, a change made
    ///     by `block` throws at the end of its batch rather than being kept in memory.
    ///   - block: Called with each model.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000,
        allowEscapingMutations: Bool = false, block: (T) throws -> Void
    ) throws {
        let identifiers = try fetchIdentifiers(descriptor).compactMap(\.objectID)
        let size = max(1, batchSize)
        var start = 0
        while start < identifiers.count {
            let batch = Array(identifiers[start..<min(start + size, identifiers.count)])
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: Schema.entityName(for: T.self))
            request.predicate = NSPredicate(format: "SELF IN %@", batch)
            let objects = try objectContext.fetch(request).compactMap { $0 as? SwiftDataManagedObject }
            let byID = Dictionary(objects.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
            for id in batch {
                guard let object = byID[id], let model = object.resolvedModel(as: T.self) else { continue }
                try block(model)
            }
            for object in objects where !object.hasChanges {
                objectContext.refresh(object, mergeChanges: false)
            }
            if !allowEscapingMutations, objects.contains(where: \.hasChanges) {
                throw SwiftDataError.modelValidationFailure.explained(
                    "enumerate(_:batchSize:allowEscapingMutations:block:) changed models with allowEscapingMutations false; save inside the block or allow escaping mutations"
                )
            }
            start += size
        }
    }

    /// Runs `request`, reporting what the store cannot run in SQL as SwiftData does.
    private func storeFetch(_ request: NSFetchRequest<NSFetchRequestResult>) throws -> [NSFetchRequestResult] {
        do {
            return try objectContext.fetch(request)
        } catch {
            throw SwiftDataError.storeFetchError(error) ?? error
        }
    }

    /// The Core Data fetch request of `descriptor`.
    func fetchRequest<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, resultType: NSFetchRequestResultType
    ) throws -> NSFetchRequest<NSFetchRequestResult> {
        try fetchRequest(descriptor, resultType: resultType, as: NSFetchRequestResult.self)
    }

    /// The Core Data fetch request of `descriptor`, typed for results of type `Result`.
    func fetchRequest<T: PersistentModel, Result>(
        _ descriptor: FetchDescriptor<T>, resultType: NSFetchRequestResultType, as _: Result.Type
    ) throws -> NSFetchRequest<Result> {
        let translator = Self.translator
        let request = NSFetchRequest<Result>(entityName: Schema.entityName(for: T.self))
        request.resultType = resultType
        request.predicate = try descriptor.predicate.map { try translator.predicate($0) }
        request.sortDescriptors = try translator.sortDescriptors(descriptor.sortBy)
        if let limit = descriptor.fetchLimit { request.fetchLimit = max(0, limit) }
        if let offset = descriptor.fetchOffset { request.fetchOffset = max(0, offset) }
        request.includesPendingChanges = descriptor.includePendingChanges
        let table = ModelTable.of(T.self)
        if !descriptor.propertiesToFetch.isEmpty, resultType == .managedObjectResultType {
            request.propertiesToFetch = try descriptor.propertiesToFetch.map { keyPath in
                guard let property = table.property(at: keyPath) else {
                    throw SwiftDataError.unsupportedKeyPath.explained(
                        "propertiesToFetch names \(keyPath), which is not a persisted property of \(T.self)")
                }
                return property.name
            }
        }
        request.relationshipKeyPathsForPrefetching = try descriptor.relationshipKeyPathsForPrefetching.map { keyPath in
            guard let property = table.property(at: keyPath), property.isRelationship else {
                throw SwiftDataError.unsupportedKeyPath.explained(
                    "relationshipKeyPathsForPrefetching names \(keyPath), which is not a relationship of \(T.self)")
            }
            return property.name
        }
        return request
    }
}
