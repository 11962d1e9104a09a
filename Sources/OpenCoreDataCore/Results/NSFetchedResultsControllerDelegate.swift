/// The kinds of change a fetched results controller reports.
public enum NSFetchedResultsChangeType: UInt, Sendable {
    /// An object (or section) was inserted.
    case insert = 1
    /// An object (or section) was deleted.
    case delete = 2
    /// An object moved: its index path changed.
    case move = 3
    /// An object changed where it is.
    case update = 4
}

/// What a fetched results controller tells about changes to its results.
///
/// Every method has a default that does nothing, as Core Data's are optional. Changes are
/// reported at the end of the event that made them (the context's
/// `processPendingChanges()`), before any save. A delegate that implements
/// the difference callback gets only that call; one that implements the snapshot callback
/// (``FetchedResultsSnapshot`` stands in for UIKit's diffable snapshot) gets only that;
/// otherwise it gets
/// ``controllerWillChangeContent(_:)``, the section and object changes (sections first;
/// then deletions at their old index paths, insertions at their new ones, moves and
/// updates), and ``controllerDidChangeContent(_:)``.
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    /// The results changed; `diff` turns the old list of object IDs into the new one.
    /// Implementing it replaces every other change callback.
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
    /// The results changed; `snapshot` holds them as they are now (objects changed in place
    /// are its `reloadedItemIdentifiers`). Implementing it replaces the change-by-change
    /// callbacks, unless the difference callback is implemented too (that one wins).
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith snapshot: FetchedResultsSnapshot)
    /// One object changed (`indexPath` is nil for an insertion, `newIndexPath` for a deletion).
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
        at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)
    /// A section was inserted (at its new index) or deleted (at its old index).
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType)
    /// Changes are about to be reported.
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)
    /// Every change has been reported.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)
    /// The index title of a section (`nil`: the controller's own).
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        sectionIndexTitleForSectionName sectionName: String
    ) -> String?
}

extension NSFetchedResultsControllerDelegate {
    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
    ) {
        // Not implemented by the delegate: the controller reports change by change instead.
        controller.results.differenceCallbackIsDefault = true
    }

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith snapshot: FetchedResultsSnapshot
    ) {
        // Not implemented by the delegate: the controller reports change by change instead.
        controller.results.snapshotCallbackIsDefault = true
    }

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
        at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {}

    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        sectionIndexTitleForSectionName sectionName: String
    ) -> String? {
        nil
    }
}
