extension NSManagedObjectContext {
    /// The IDs for a `.managedObjectIDResultType` request straight from the store
    /// (keys and entity numbers only, no objects), or `nil` when unsaved changes of
    /// this context can change the answer and the objects must be consulted.
    func fetchObjectIDsFromStore<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator
    ) throws -> [T]? {
        if let store = incrementalStore(for: request, coordinator) {
            return try incrementalObjectIDs(request, entity: entity, store: store, coordinator)
        }
        let fetch = storeFetch(request, entity: entity)
        if request.includesPendingChanges && !pendingObjects(matching: fetch).isEmpty { return nil }
        let list: StoreObjectList
        do {
            list = try coordinator.fetchObjectIDs(fetch, at: readGeneration)
        } catch is StoreFetchInMemory {
            return nil  // the objects' path evaluates it in memory
        }
        guard let store = coordinator.persistentStores.first else { return [] }
        return try results(
            (0..<list.count).map { list.objectID(at: $0, store: store) }, of: request, kind: "object IDs")
    }
}
