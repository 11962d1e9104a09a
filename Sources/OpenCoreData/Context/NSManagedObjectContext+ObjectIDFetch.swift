extension NSManagedObjectContext {
    /// The IDs for a `.managedObjectIDResultType` request straight from the store
    /// (keys and entity numbers only, no objects), or `nil` when unsaved changes of
    /// this context can change the answer and the objects must be consulted.
    func fetchObjectIDsFromStore<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator) throws -> [T]? {
        let fetch = StoreFetch(request, entity: entity)
        if request.includesPendingChanges && hasPendingChanges(affecting: fetch) { return nil }
        return try results(try coordinator.fetchObjectIDs(fetch), of: request, kind: "object IDs")
    }

    /// Whether an unsaved insert, change or delete concerns an entity the fetch reads.
    private func hasPendingChanges(affecting fetch: StoreFetch) -> Bool {
        let entities = Set(fetch.matchingEntities.map(ObjectIdentifier.init))
        let relevant = { (object: NSManagedObject) in entities.contains(ObjectIdentifier(object.entity)) }
        return insertedSet.contains(where: relevant) || updatedSet.contains(where: relevant) || deletedSet.contains(where: relevant)
    }
}
