/// Fetches the results of a request in a context, groups them into sections, and tells
/// its delegate how they change as the context changes: the model of a table or
/// collection view.
///
/// As in Core Data, the request must have sort descriptors, and when sections come from
/// `sectionNameKeyPath` the first sort descriptor must order by that key path. Changes
/// are followed only while there is a delegate, at the end of each event of the context
/// (`processPendingChanges()`), before anything is saved: inserts and deletes, updates
/// that move an object or make it start or stop matching the predicate, merges from other
/// contexts, refreshes, undo, and a reset (after which the results are fetched again).
///
/// `ResultType` is not constrained as Core Data's is, so the controller can be spelled
/// `NSFetchedResultsController<NSFetchRequestResult>`, the type the delegate's methods
/// are given: a controller of another result type hands its delegate a face of that type
/// that shares its results (and compares equal to it).
open class NSFetchedResultsController<ResultType>: NSObject, @unchecked Sendable {
    let results: FetchedResults
    private var erasedFace: NSFetchedResultsController<NSFetchRequestResult>?

    /// The request whose results are shown. Its predicate and sort descriptors may be
    /// changed, then ``performFetch()`` called again.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// The context the request runs in and whose changes are followed.
    public var managedObjectContext: NSManagedObjectContext { results.context }
    /// The key path whose value names each result's section (`nil`: one section).
    public var sectionNameKeyPath: String? { results.sectionNameKeyPath }
    /// The name of the controller's section cache on disk (`nil`: no cache). A batched
    /// fetch (`fetchBatchSize` > 0, no delegate) writes the order of its results and its
    /// sections there, and a later ``performFetch()`` of the same request on an unchanged
    /// store reads them back instead of querying; a changed request or store makes it be
    /// computed again. Names must be unique among the program's controllers.
    public let cacheName: String?

    /// Creates a controller; nothing is fetched before ``performFetch()``.
    ///
    /// - Parameters:
    ///   - fetchRequest: The request to run. It must have sort descriptors; with sections,
    ///     the first must order by `sectionNameKeyPath`.
    ///   - context: The context to fetch in and to follow.
    ///   - sectionNameKeyPath: The key path whose value names each result's section, or `nil`
    ///     for one section.
    ///   - name: The name of the section cache, or `nil` for none.
    public init(
        fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
        sectionNameKeyPath: String?, cacheName name: String?
    ) {
        self.fetchRequest = fetchRequest
        cacheName = name
        results = FetchedResults(
            context: context, request: fetchRequest, sectionNameKeyPath: sectionNameKeyPath, cacheName: name)
        super.init()
        installFace()
    }

    /// Another face of an existing controller's results.
    private init(sharing results: FetchedResults, fetchRequest: NSFetchRequest<ResultType>, cacheName: String?) {
        self.results = results
        self.fetchRequest = fetchRequest
        self.cacheName = cacheName
        super.init()
    }

    private func installFace() {
        results.face = erased
        results.indexTitle = { [weak self] name in
            guard let self else { return nil }
            let face = self.erased
            return self.results.delegate?.controller(face, sectionIndexTitleForSectionName: name)
                ?? self.sectionIndexTitle(forSectionName: name)
        }
    }

    /// The controller as the delegate sees it.
    var erased: NSFetchedResultsController<NSFetchRequestResult> {
        if let same = self as? NSFetchedResultsController<NSFetchRequestResult> { return same }
        if let face = erasedFace { return face }
        let face = NSFetchedResultsController<NSFetchRequestResult>(
            sharing: results, fetchRequest: fetchRequest.copied(as: NSFetchRequestResult.self), cacheName: cacheName)
        erasedFace = face
        return face
    }

    /// Told about changes to the results; held weakly, as in Core Data. Setting one starts
    /// following changes, clearing it stops.
    open weak var delegate: NSFetchedResultsControllerDelegate? {
        get { results.delegate }
        set { results.delegate = newValue }
    }

    /// Runs the fetch request and groups its results into sections. Throws when the
    /// request has no sort descriptors or the fetch fails. Call it on the context's queue.
    ///
    /// - Throws: `NSCoreDataError` for a request without sort descriptors or whose sort
    ///   splits a section, or what the fetch throws.
    open func performFetch() throws {
        try results.performFetch()
    }

    /// The results, in order; `nil` before ``performFetch()``.
    open var fetchedObjects: [ResultType]? {
        results.isFetched ? results.objects.map { $0 as! ResultType } : nil
    }

    /// The results as they change, for code without a delegate (a server, a command-line
    /// tool): `for await change in controller.changes`. The first element holds the
    /// current results (once fetched), each next one the results after a change and the
    /// difference from the previous ones. While a stream is read, changes are followed as
    /// for a delegate, and what other processes save to the store (announced by
    /// `NSPersistentStoreRemoteChange`, so the store needs
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`) is merged into the context
    /// from persistent history (or, without history, by refreshing and fetching again).
    /// Not in Core Data.
    public var changes: AsyncStream<FetchedResultsChange> { results.changes() }

    /// The sections of the results; `nil` before ``performFetch()``.
    open var sections: [NSFetchedResultsSectionInfo]? {
        results.isFetched ? results.sections : nil
    }

    /// The result at `indexPath` (section, then row). An index path outside the results
    /// is a programmer error and traps, as Core Data raises.
    ///
    /// - Parameter indexPath: A section and a row within it.
    /// - Returns: The result there.
    open func object(at indexPath: IndexPath) -> ResultType {
        let sections = results.sections
        precondition(
            indexPath.count == 2 && indexPath[0] >= 0 && indexPath[0] < sections.count,
            "NSFetchedResultsController: no section \(indexPath)")
        let section = sections[indexPath[0]]
        precondition(
            indexPath[1] >= 0 && indexPath[1] < section.numberOfObjects,
            "NSFetchedResultsController: no object at \(indexPath)")
        return section.object(at: indexPath[1]) as! ResultType
    }

    /// Where `object` is in the results; `nil` when it is not one of them.
    ///
    /// - Parameter object: A result to find.
    /// - Returns: Its section and row, or `nil`.
    open func indexPath(forObject object: ResultType) -> IndexPath? {
        results.indexPath(of: object as AnyObject)
    }

    /// The section index title for a section name: by default its first letter, capitalized.
    /// Override it for other titles (the delegate's
    /// `controller(_:sectionIndexTitleForSectionName:)` wins when it answers).
    ///
    /// - Parameter sectionName: A section's name.
    /// - Returns: The title to show in the section index, or `nil` for none.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The titles of the section index: each section's title once, in section order.
    open var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return results.sections.compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The section a section-index title leads to: the first section with that title
    /// (`sectionIndex` is the title's place in ``sectionIndexTitles``; used when no section
    /// has the title).
    ///
    /// - Parameters:
    ///   - title: A section index title the user picked.
    ///   - sectionIndex: The title's position in ``sectionIndexTitles``.
    /// - Returns: The index of the section to show.
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        results.sections.firstIndex { $0.indexTitle == title } ?? min(sectionIndex, max(results.sections.count - 1, 0))
    }

    /// Deletes the section cache named `name`, or every section cache of the program when
    /// `nil`. Call it before changing the request of a controller that has a cache, as
    /// Core Data asks (a changed request is also detected and its cache computed again).
    ///
    /// - Parameter name: The cache to delete, or `nil` for all of them.
    open class func deleteCache(withName name: String?) {
        SectionInfoCache.delete(named: name)
    }

    /// Two faces of one controller are equal.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? FetchedResultsFace else { return false }
        return other.sharedResults === results
    }

    open override var hash: Int { ObjectIdentifier(results).hashValue }
}

/// The faces of a controller, whatever their result type.
protocol FetchedResultsFace {
    var sharedResults: FetchedResults { get }
}

extension NSFetchedResultsController: FetchedResultsFace {
    var sharedResults: FetchedResults { results }
}
