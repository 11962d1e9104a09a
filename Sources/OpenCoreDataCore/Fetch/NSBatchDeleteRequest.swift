/// What executing an ``NSBatchDeleteRequest`` returns; raw values are Core Data's.
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    /// `true` when the delete succeeded.
    case resultTypeStatusOnly = 0
    /// The `[NSManagedObjectID]` of the objects the request matched and deleted.
    case resultTypeObjectIDs = 1
    /// The number of objects the request matched and deleted.
    case resultTypeCount = 2
}

/// Deletes every object a fetch request matches (or the objects with the given IDs)
/// in set-based SQL, without loading them.
///
/// Relationship delete rules apply in the store as in Core Data: Cascade deletes the
/// destinations too (recursively), Nullify clears the inverse relationship of the
/// objects left behind, Deny fails the request while destinations remain. Nothing
/// is deleted when the request fails. Objects in contexts stay until merged with
/// ``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)`` (ask for
/// `.resultTypeObjectIDs` to get the IDs).
open class NSBatchDeleteRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// A copy of the fetch request naming the objects to delete (entity, predicate,
    /// subentities, limit and offset count; for ``init(objectIDs:)``, `SELF IN` the IDs).
    public let fetchRequest: NSFetchRequest<NSFetchRequestResult>
    /// What the result holds. Default `.resultTypeStatusOnly`.
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly
    /// The IDs given to ``init(objectIDs:)``.
    let objectIDs: [NSManagedObjectID]?

    /// A batch delete.
    open override var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }

    /// Deletes the objects `fetch` matches.
    ///
    /// Any `NSFetchRequest<T>` is accepted, as Objective-C's lightweight generics let
    /// Core Data's take any request.
    public init<T>(fetchRequest fetch: NSFetchRequest<T>) {
        fetchRequest = fetch.copied(as: NSFetchRequestResult.self)
        objectIDs = nil
        super.init()
    }

    /// Deletes the objects with these IDs, which must all be of one entity.
    public init(objectIDs objects: [NSManagedObjectID]) {
        let request = NSFetchRequest<NSFetchRequestResult>()
        if let entity = objects.first?.entity { request.entity = entity }
        request.predicate = try? NSPredicate.parse(format: "SELF IN %@", argumentArray: [objects])
        request.includesSubentities = false
        fetchRequest = request
        objectIDs = objects
        super.init()
    }

    /// The request in the store's terms; `nil` when there is nothing to delete.
    func storeRequest(in model: NSManagedObjectModel, store: NSPersistentStore) throws -> StoreBatchDelete? {
        let wantsIDs = resultType == .resultTypeObjectIDs
        guard let objectIDs else {
            let named = try fetchRequest.resolveEntity(in: model)
            let entity = try BatchRequestEntity.resolve(
                named, name: named.name ?? "", in: model, request: "batch delete")
            let fetch = StoreFetch(fetchRequest, entity: entity)
            return StoreBatchDelete(fetch: fetch, wantsObjectIDs: wantsIDs)
        }
        guard let first = objectIDs.first else { return nil }
        var keys: [Int64] = []
        for id in objectIDs {
            guard id.entity.name == first.entity.name else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "A batch delete by object IDs takes IDs of one entity; given \(first.entity.name ?? "?") and \(id.entity.name ?? "?")",
                    [NSAffectedObjectsErrorKey: objectIDs])
            }
            guard let key = id.primaryKey,
                id.persistentStore === store || id.uriRepresentation().host == store.identifier
            else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "Cannot batch delete \(id.uriRepresentation().absoluteString): it is temporary or not in this coordinator's store",
                    [NSAffectedObjectsErrorKey: [id]])
            }
            keys.append(key)
        }
        let entity = try BatchRequestEntity.resolve(
            first.entity, name: first.entity.name ?? "", in: model, request: "batch delete")
        let fetch = StoreFetch(
            entity: entity, predicate: nil, sortDescriptors: [], limit: 0, offset: 0, includesSubentities: false,
            restrictedToKeys: keys)
        return StoreBatchDelete(fetch: fetch, wantsObjectIDs: wantsIDs)
    }
}
