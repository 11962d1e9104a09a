import OpenCoreData

extension ModelContext {
    /// The results of `descriptor` as they change: an asynchronous sequence whose first
    /// element is the current results and whose next ones follow each save that changes them.
    ///
    /// ```swift
    /// let upcoming = FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate > cutoff },
    ///                                      sortBy: [SortDescriptor(\.startDate)])
    /// for await snapshot in try context.changes(for: upcoming) {
    ///     print(snapshot.insertedIdentifiers, snapshot.removedIdentifiers, snapshot.updatedIdentifiers)
    ///     let trips = snapshot.models(in: context)
    /// }
    /// ```
    ///
    /// What is followed is what is saved to the container's stores: saves of this context, of
    /// the container's other contexts and actors, and of other containers and processes on
    /// the same store files (through persistent history, which every container keeps).
    /// Changes not saved yet do not show; the main context saves by itself. Each save is
    /// applied to the results as Core Data's fetched results controller applies changes, so
    /// its cost follows the save's size: the store is not queried again.
    ///
    /// Snapshots hold ``PersistentIdentifier``s, so the sequence can be read on any task;
    /// turn a snapshot into this context's models with ``FetchResultsSnapshot/models(in:)``
    /// where the context is used. With a fetch limit or offset, snapshots show that page of
    /// the results. Without sort descriptors, results keep the store's order and new ones
    /// come last.
    ///
    /// - Parameter descriptor: The models to follow. Its `includePendingChanges`,
    ///   `propertiesToFetch` and `relationshipKeyPathsForPrefetching` do not apply.
    /// - Returns: The snapshots, starting with the current results.
    /// - Throws: ``SwiftDataError/unsupportedPredicate``, ``SwiftDataError/unsupportedSortDescriptor``
    ///   or ``SwiftDataError/unsupportedKeyPath`` naming what the store cannot run (nothing is
    ///   ever filtered in memory instead); the store's error when the first fetch fails.
    public func changes<T: PersistentModel>(for descriptor: FetchDescriptor<T>) throws -> FetchResultsChanges<T> {
        let request = try fetchRequest(descriptor, resultType: .managedObjectResultType)
        // The page is cut from the followed results: followed with a limit, the results would
        // have no next model to show when one leaves.
        request.fetchLimit = 0
        request.fetchOffset = 0
        request.propertiesToFetch = nil
        request.relationshipKeyPathsForPrefetching = nil
        if request.sortDescriptors?.isEmpty ?? true {
            // The results controller needs an order; objects have none among themselves, so
            // this keeps the store's order and puts new results last.
            request.sortDescriptors = [NSSortDescriptor(key: "objectID", ascending: true)]
        }
        let observer = FetchResultsObserver(
            container: container, request: request,
            offset: max(0, descriptor.fetchOffset ?? 0), limit: descriptor.fetchLimit.map { max(0, $0) })
        let (stream, continuation) = AsyncStream<FetchResultsStep>.makeStream()
        continuation.onTermination = { _ in observer.stop() }
        do {
            try observer.start(continuation)
        } catch {
            continuation.finish()
            throw SwiftDataError.storeFetchError(error) ?? error
        }
        return FetchResultsChanges(stream: stream, observer: observer)
    }
}
