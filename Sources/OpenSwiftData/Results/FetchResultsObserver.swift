import OpenCoreData
import OpenCoreDataCore

/// The engine behind ``ModelContext/changes(for:)``: a fetched results controller in a
/// private context of its own, fed with every save to the container's stores.
///
/// The controller works in a context of its own rather than in the caller's: a model
/// context confines its models to its actor or thread, and the observation runs whenever
/// a save happens, wherever that is. That context holds saved data only, so each save (of
/// any context of the container, or of another process) is one step, and the results only
/// ever hold what the store holds.
///
/// Every save reaches the context through persistent history, from the last transaction
/// merged: saves of the container's contexts announce themselves
/// (`NSManagedObjectContextDidSaveObjectIDs`), other coordinators and processes through
/// `NSPersistentStoreRemoteChange`. One path for both means a save heard of twice is merged
/// once. The controller then reports only the results that changed (work per save follows
/// the save's size, not the results'), which becomes the next snapshot.
///
/// Confined to its context's queue, except ``start(_:)`` (before any notification can
/// arrive) and ``stop()`` (hence `@unchecked Sendable`).
final class FetchResultsObserver: NSFetchedResultsControllerDelegate, @unchecked Sendable {
    /// Keeps the stores open while the observation lasts.
    private let container: ModelContainer
    private let coordinator: NSPersistentStoreCoordinator
    /// The private context the controller fetches in and follows.
    let context: NSManagedObjectContext
    private let controller: NSFetchedResultsController<NSFetchRequestResult>
    /// The entity of the request, to tell which updated objects may become results.
    private let entity: NSEntityDescription?
    /// The descriptor's page: the controller follows every matching model (a page cannot
    /// be followed otherwise: a removal pulls in the next one), snapshots show the page.
    private let offset: Int
    private let limit: Int?

    private var continuation: AsyncStream<FetchResultsStep>.Continuation?
    /// The last history transaction merged, per store; `nil` when no store keeps history
    /// (the saves of the container's contexts are then merged as announced).
    private var historyPositions: [String: Int64]?
    /// Every result, in order, as of the last snapshot.
    private var allResults: [PersistentIdentifier] = []
    /// The page the last snapshot showed.
    private var shown: [PersistentIdentifier] = []
    /// The steps of the report being received from the controller.
    private var steps: [CollectionDifference<PersistentIdentifier>.Change] = []
    private var updated: Set<PersistentIdentifier> = []
    /// Set while the results are fetched again: the controller's report of it is not used.
    private var ignoresReports = false
    private var isStopped = false

    private let observersLock = NSLock()
    private var observers: [any NSObjectProtocol] = []

    /// An observer of `request`'s results in `container`'s stores, showing `offset` and
    /// `limit` of them; nothing happens before ``start(_:)``.
    init(container: ModelContainer, request: NSFetchRequest<NSFetchRequestResult>, offset: Int, limit: Int?) {
        self.container = container
        coordinator = container.persistentContainer.persistentStoreCoordinator
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.name = "OpenSwiftData.FetchResultsObserver"
        let model = coordinator.managedObjectModel
        entity = request.entity ?? request.entityName.flatMap { model.entitiesByName[$0] }
        self.offset = offset
        self.limit = limit
        controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
    }

    // MARK: Starting and stopping

    /// Fetches the results, yields the first snapshot to `continuation`, and follows saves
    /// from then on.
    ///
    /// - Throws: What the fetch throws, or an `NSError` when a store's file cannot be watched.
    func start(_ continuation: AsyncStream<FetchResultsStep>.Continuation) throws {
        self.continuation = continuation
        do {
            // Other processes' saves are heard of only while someone watches the file.
            try coordinator.startPostingRemoteChanges()
            // Listening starts before the position in history is taken, so no save falls between.
            listen()
            try context.performAndWait {
                historyPositions = coordinator.currentPersistentHistoryToken(fromStores: nil)?.transactionNumbers
                controller.delegate = self
                try controller.performFetch()
                allResults = identifiers(of: controller.fetchedObjects ?? [])
                shown = page(of: allResults)
                continuation.yield(
                    FetchResultsStep(identifiers: shown, difference: shown.difference(from: []), updatedIdentifiers: [])
                )
            }
        } catch {
            stop()
            throw error
        }
    }

    private func listen() {
        let saves = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSaveObjectIDs, object: nil, queue: nil
        ) { [weak self] note in
            // On the saving context's queue: only the IDs cross to ours.
            guard let self, let saver = note.object as? NSManagedObjectContext, saver !== context,
                saver.persistentStoreCoordinator === coordinator
            else { return }
            let saved = note.userInfo ?? [:]
            context.perform { self.catchUp(announced: saved) }
        }
        let remote = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { [weak self] _ in
            guard let self else { return }
            context.perform { self.catchUp(announced: nil) }
        }
        observersLock.withLock { observers = [saves, remote] }
    }

    /// Ends the observation: no more snapshots; the controller and the notification
    /// observers go. Safe from any thread, and more than once.
    func stop() {
        let removed = observersLock.withLock {
            defer { observers = [] }
            return observers
        }
        removed.forEach(NotificationCenter.default.removeObserver)
        // The controller is the context's: it is let go on the context's queue.
        context.perform {
            self.isStopped = true
            self.controller.delegate = nil
            self.continuation?.finish()
            self.continuation = nil
        }
    }

    // MARK: Following saves

    /// Merges what was saved since the last merge: the history after it, or, without
    /// history, the save `announced`.
    private func catchUp(announced: [AnyHashable: Any]?) {
        guard !isStopped else { return }
        guard let positions = historyPositions else {
            if let announced {
                merge(
                    inserted: Self.objectIDs(announced[NSInsertedObjectIDsKey]),
                    updated: Self.objectIDs(announced[NSUpdatedObjectIDsKey]),
                    deleted: Self.objectIDs(announced[NSDeletedObjectIDsKey]))
            }
            return
        }
        let transactions: [NSPersistentHistoryTransaction]
        do {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(
                after: NSPersistentHistoryToken(transactionNumbers: positions))
            transactions =
                (try context.execute(request) as? NSPersistentHistoryResult)?.result
                as? [NSPersistentHistoryTransaction] ?? []
        } catch {
            // The history after the position was deleted: what changed is unknown.
            fetchAgain()
            return
        }
        // The objects are read as they are now, not as of each transaction: the transactions
        // waiting are merged as one, so that a snapshot never shows a later save's values
        // before the save itself is merged.
        var inserted = Set<NSManagedObjectID>(), updated = Set<NSManagedObjectID>(), deleted = Set<NSManagedObjectID>()
        for transaction in transactions {
            let info = transaction.objectIDNotification().userInfo ?? [:]
            inserted.formUnion(Self.objectIDs(info[NSInsertedObjectsKey]))
            updated.formUnion(Self.objectIDs(info[NSUpdatedObjectsKey]))
            deleted.formUnion(Self.objectIDs(info[NSDeletedObjectsKey]))
            historyPositions?[transaction.storeID] = transaction.transactionNumber
        }
        inserted.subtract(deleted)
        updated.subtract(deleted)
        updated.subtract(inserted)
        merge(inserted: Array(inserted), updated: Array(updated), deleted: Array(deleted))
    }

    /// Merges saved changes into the context; the controller reports what they did to the results.
    private func merge(inserted: [NSManagedObjectID], updated: [NSManagedObjectID], deleted: [NSManagedObjectID]) {
        guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) else { return }
        // A merge refreshes only objects the context holds, and it holds only results: an
        // object of the entity that now matches would be missed, so it is held (as a fault)
        // for the merge, which makes the controller test it.
        let candidates = updated.compactMap { id -> NSManagedObject? in
            guard context.registeredObject(for: id) == nil, fits(id.entity) else { return nil }
            return context.object(with: id)
        }
        let save = Notification(
            name: .NSManagedObjectContextDidSave, object: nil,
            userInfo: [
                NSInsertedObjectsKey: Set(inserted), NSUpdatedObjectsKey: Set(updated),
                NSDeletedObjectsKey: Set(deleted),
            ])
        withExtendedLifetime(candidates) {
            context.mergeChanges(fromContextDidSave: save)
        }
    }

    private func fits(_ candidate: NSEntityDescription) -> Bool {
        guard let entity else { return false }
        return controller.fetchRequest.includesSubentities
            ? candidate.isKindOf(entity: entity) : candidate.name == entity.name
    }

    /// After history was lost: the results are fetched again and compared with the last ones;
    /// any that stayed may have changed, so they count as updated.
    private func fetchAgain() {
        historyPositions = coordinator.currentPersistentHistoryToken(fromStores: nil)?.transactionNumbers
        ignoresReports = true
        // A reset makes the controller fetch again.
        context.reset()
        ignoresReports = false
        let current = identifiers(of: controller.fetchedObjects ?? [])
        publish(
            current, difference: current.difference(from: allResults).inferringMoves(),
            updated: Set(current).intersection(allResults))
    }

    // MARK: The controller's reports

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        steps = []
        updated = []
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
        at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        guard !ignoresReports, let object = anObject as? NSManagedObject else { return }
        let id = PersistentIdentifier(object.objectID)
        // One section (no section key path): an index path's row is the offset in the results.
        switch (type, indexPath?.last, newIndexPath?.last) {
        case let (.insert, _, new?):
            steps.append(.insert(offset: new, element: id, associatedWith: nil))
        case let (.delete, old?, _):
            steps.append(.remove(offset: old, element: id, associatedWith: nil))
        case let (.move, old?, new?):
            steps.append(.remove(offset: old, element: id, associatedWith: new))
            steps.append(.insert(offset: new, element: id, associatedWith: old))
        case (.update, _, _):
            updated.insert(id)
        default:
            break
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        guard !ignoresReports else { return }
        guard let difference = CollectionDifference(steps), let current = allResults.applying(difference) else {
            assertionFailure("the controller reported changes that do not apply to its results")
            return
        }
        publish(current, difference: difference, updated: updated)
    }

    /// Yields the snapshot of `current` (its page, when the descriptor has one) unless nothing
    /// in it changed.
    private func publish(
        _ current: [PersistentIdentifier], difference: CollectionDifference<PersistentIdentifier>,
        updated: Set<PersistentIdentifier>
    ) {
        guard !isStopped else { return }
        allResults = current
        guard offset > 0 || limit != nil else {
            guard !difference.isEmpty || !updated.isEmpty else { return }
            shown = current
            continuation?.yield(
                FetchResultsStep(identifiers: current, difference: difference, updatedIdentifiers: updated))
            return
        }
        // A page changes by what enters or leaves it, or shifts through it: compared
        // directly, at a cost bounded by the page's size.
        let page = page(of: current)
        let pageDifference = page.difference(from: shown).inferringMoves()
        let moved = Set(
            pageDifference.insertions.compactMap { change -> PersistentIdentifier? in
                guard case let .insert(_, element, associatedWith) = change, associatedWith != nil else { return nil }
                return element
            })
        let pageUpdated = updated.intersection(page).subtracting(moved)
        guard !pageDifference.isEmpty || !pageUpdated.isEmpty else { return }
        shown = page
        continuation?.yield(
            FetchResultsStep(identifiers: page, difference: pageDifference, updatedIdentifiers: pageUpdated))
    }

    private func page(of results: [PersistentIdentifier]) -> [PersistentIdentifier] {
        guard offset > 0 || limit != nil else { return results }
        return Array(results.dropFirst(offset).prefix(limit ?? Int.max))
    }

    private func identifiers(of objects: [NSFetchRequestResult]) -> [PersistentIdentifier] {
        objects.compactMap { ($0 as? NSManagedObject).map { PersistentIdentifier($0.objectID) } }
    }

    private static func objectIDs(_ value: Any?) -> [NSManagedObjectID] {
        switch value {
        case let ids as Set<NSManagedObjectID>: Array(ids)
        case let ids as [NSManagedObjectID]: ids
        default: []
        }
    }
}

/// One snapshot as the observer makes it, before it is typed for the sequence's model.
struct FetchResultsStep: Sendable {
    let identifiers: [PersistentIdentifier]
    let difference: CollectionDifference<PersistentIdentifier>
    let updatedIdentifiers: Set<PersistentIdentifier>
}
