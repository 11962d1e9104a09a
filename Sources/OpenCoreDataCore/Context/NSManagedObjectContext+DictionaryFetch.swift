extension NSManagedObjectContext {
    /// The results of a `.dictionaryResultType` request, computed by the store.
    ///
    /// As in Core Data, dictionaries (and their aggregates) reflect the store alone:
    /// the context's unsaved inserts, changes and deletes do not count, whatever
    /// `includesPendingChanges` says.
    func fetchDictionaries<T>(
        _ request: NSFetchRequest<T>, entity: NSEntityDescription, coordinator: NSPersistentStoreCoordinator
    ) throws -> [T] {
        if let store = incrementalStore(for: request, coordinator) {
            return try incrementalDictionaries(request, entity: entity, store: store, coordinator)
        }
        let fetch = try StoreDictionaryFetch(
            fetch: StoreFetch(request, entity: entity),
            propertiesToFetch: request.propertiesToFetch,
            propertiesToGroupBy: request.propertiesToGroupBy,
            having: request.havingPredicate,
            returnsDistinctResults: request.returnsDistinctResults
        )
        do {
            return try results(
                try coordinator.fetchDictionaries(fetch, at: readGeneration), of: request, kind: "dictionaries")
        } catch let inMemory as StoreFetchInMemory {
            // Values and aggregates are the store's to compute: memory cannot take over here.
            throw inMemory.unsupported
        }
    }
}
