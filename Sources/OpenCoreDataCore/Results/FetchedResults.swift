/// What a fetched results controller knows: the fetched objects in order, their sections,
/// and, while it has a delegate, how each change of its context moves them.
///
/// Shared by a controller's typed face and its `NSFetchRequestResult` face (the one its
/// delegate is given), so both see one state. The objects are kept as one flat array in
/// the request's order with each object's sort key as it was when last placed: sections
/// are runs of equal section names, and a changed object is found and placed again by
/// those keys, so an object whose related objects changed (a sort key path such as
/// `photographer.name`) keeps its place until it changes itself, as in Core Data.
/// Confined to its context's queue, as the context's objects are: the context posts the
/// notifications it follows on that queue (hence `@unchecked Sendable`).
final class FetchedResults: @unchecked Sendable {
    let context: NSManagedObjectContext
    let request: any ErasedFetchRequest
    let sectionNameKeyPath: String?

    /// The results, in order; `nil` before the first fetch.
    private(set) var fetchedObjects: [AnyObject]?
    var objects: [AnyObject] { fetchedObjects ?? [] }
    /// Each result's sort key when it was placed (managed object results only).
    private var keys: [SortKey] = []
    private(set) var sections: [FetchedResultsSection] = []

    /// The delegate; changes are followed only while there is one (as in Core Data).
    weak var delegate: NSFetchedResultsControllerDelegate? {
        didSet { updateObservation() }
    }
    /// The face handed to the delegate.
    weak var face: NSFetchedResultsController<NSFetchRequestResult>?
    /// The section index title of a section name (the controller's overridable method).
    var indexTitle: (String) -> String? = { _ in nil }
    /// Set by the default of the delegate's difference callback: the delegate did not
    /// implement it.
    var differenceCallbackIsDefault = false
    /// Whether the delegate implements the difference callback; `nil` until the first
    /// change asks it.
    private var usesDifference: Bool?
    /// The object IDs the difference callback last described (a save turns temporary IDs
    /// into permanent ones, which that callback is told).
    private var reportedIDs: [NSManagedObjectID] = []
    private var observers: [NSObjectProtocol] = []

    init(context: NSManagedObjectContext, request: any ErasedFetchRequest, sectionNameKeyPath: String?) {
        self.context = context
        self.request = request
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    deinit {
        observers.forEach(NotificationCenter.default.removeObserver)
    }

    // MARK: Fetching

    func performFetch() throws {
        guard let descriptors = request.sortDescriptors, !descriptors.isEmpty else {
            throw CoreDataError.make(NSCoreDataError, "A fetched results controller needs a fetch request with sort descriptors")
        }
        let results = try request.results(in: context).map { $0 as AnyObject }
        if tracksObjects {
            var placed = results.compactMap { $0 as? NSManagedObject }.map { ($0 as AnyObject, sortKey(of: $0)) }
            // The store's order and the in-memory comparison must agree for changes to be
            // placed by binary search; where they differ (string collation), memory wins.
            if zip(placed, placed.dropFirst()).contains(where: { compare($0.1, $1.1) == .orderedDescending }) {
                placed = placed.enumerated().sorted { a, b in
                    let order = compare(a.element.1, b.element.1)
                    return order == .orderedSame ? a.offset < b.offset : order == .orderedAscending
                }.map(\.element)
            }
            fetchedObjects = placed.map(\.0)
            keys = placed.map(\.1)
        } else {
            fetchedObjects = results
            keys = []
        }
        sections = makeSections()
        usesDifference = nil
        reportedIDs = currentIDs
        updateObservation()
    }

    /// Changes are followed for managed object results.
    private var tracksObjects: Bool { request.resultType == .managedObjectResultType }

    private var entity: NSEntityDescription? {
        request.entity ?? request.entityName.flatMap { context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[$0] }
    }

    // MARK: Keys and sections

    struct SortKey {
        let section: String
        let values: [Any?]
    }

    private var descriptors: [NSSortDescriptor] { request.sortDescriptors ?? [] }

    private func sortKey(of object: AnyObject) -> SortKey {
        SortKey(section: sectionName(of: object), values: descriptors.map { $0.value(of: object) })
    }

    private func compare(_ a: SortKey, _ b: SortKey) -> ComparisonResult {
        for (index, descriptor) in descriptors.enumerated() {
            let order = descriptor.compareKeyValues(a.values[index], b.values[index])
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }

    /// The section name of a result: its section key path's value as text ("" for nil).
    private func sectionName(of object: AnyObject) -> String {
        guard let path = sectionNameKeyPath else { return "" }
        switch KeyPathEvaluation.value(forKeyPath: path, of: object) {
        case nil: return ""
        case let text as String: return text
        case let value?: return String(describing: value)
        }
    }

    /// Sections are the runs of results with one section name (the first sort descriptor
    /// is expected to order by the section key path, as Core Data requires).
    private func makeSections() -> [FetchedResultsSection] {
        guard fetchedObjects != nil else { return [] }
        let names = tracksObjects ? keys.map(\.section) : objects.map(sectionName(of:))
        guard sectionNameKeyPath != nil else {
            return [FetchedResultsSection(name: "", indexTitle: nil, start: 0, count: names.count, results: self)]
        }
        var sections: [FetchedResultsSection] = []
        var start = 0
        while start < names.count {
            var end = start + 1
            while end < names.count, names[end] == names[start] { end += 1 }
            sections.append(FetchedResultsSection(name: names[start], indexTitle: indexTitle(names[start]), start: start, count: end - start, results: self))
            start = end
        }
        return sections
    }

    /// The index path of the result at flat position `index`.
    func indexPath(atFlatIndex index: Int, in sections: [FetchedResultsSection]) -> IndexPath {
        var low = 0, high = sections.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sections[middle].start <= index { low = middle } else { high = middle - 1 }
        }
        return IndexPath(indexes: [low, index - sections[low].start])
    }

    // MARK: Following changes

    private func updateObservation() {
        let wanted = delegate != nil && fetchedObjects != nil && tracksObjects
        if wanted, observers.isEmpty {
            observers = [
                NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { [weak self] note in
                    self?.contextDidChange(note.userInfo ?? [:])
                },
                NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { [weak self] _ in
                    self?.contextDidSave()
                },
            ]
        } else if !wanted, !observers.isEmpty {
            observers.forEach(NotificationCenter.default.removeObserver)
            observers = []
        }
    }

    private func contextDidChange(_ info: [AnyHashable: Any]) {
        let old = (objects: objects, keys: keys, sections: sections)
        if info[NSInvalidatedAllObjectsKey] != nil {
            // The context was reset: its objects are gone; the results are fetched again.
            guard (try? performFetch()) != nil else { return }
            report(from: old, changed: [:], updated: [])
            return
        }
        var changed: [ObjectIdentifier: NSManagedObject] = [:]
        var updated = Set<ObjectIdentifier>()
        var gone = Set<ObjectIdentifier>()
        for key in [NSInsertedObjectsKey, NSUpdatedObjectsKey, NSRefreshedObjectsKey, NSDeletedObjectsKey, NSInvalidatedObjectsKey] {
            for case let object as NSManagedObject in CollectionValue.members(of: info[key]) ?? [] where fits(object.entity) {
                changed[ObjectIdentifier(object)] = object
                if key == NSUpdatedObjectsKey || key == NSRefreshedObjectsKey { updated.insert(ObjectIdentifier(object)) }
                if key == NSDeletedObjectsKey || key == NSInvalidatedObjectsKey { gone.insert(ObjectIdentifier(object)) }
            }
        }
        guard !changed.isEmpty else { return }
        var remaining: [(AnyObject, SortKey)] = []
        remaining.reserveCapacity(old.objects.count + changed.count)
        var wasPresent = Set<ObjectIdentifier>()
        for (object, key) in zip(old.objects, old.keys) {
            if changed[ObjectIdentifier(object)] != nil { wasPresent.insert(ObjectIdentifier(object)) } else { remaining.append((object, key)) }
        }
        for (id, object) in changed.sorted(by: { $0.value.objectID.uriRepresentation().absoluteString < $1.value.objectID.uriRepresentation().absoluteString })
        where !gone.contains(id) && matches(object) {
            let key = sortKey(of: object)
            var low = 0, high = remaining.count
            while low < high {
                let middle = (low + high) / 2
                if compare(remaining[middle].1, key) == .orderedDescending { high = middle } else { low = middle + 1 }
            }
            remaining.insert((object, key), at: low)
        }
        let isPresent = Set(remaining.lazy.map { ObjectIdentifier($0.0) }.filter { changed[$0] != nil })
        guard !wasPresent.isEmpty || !isPresent.isEmpty else { return }
        fetchedObjects = remaining.map(\.0)
        keys = remaining.map(\.1)
        sections = makeSections()
        report(from: old, changed: changed, updated: updated)
    }

    /// Whether objects of `entity` can be results.
    private func fits(_ entity: NSEntityDescription) -> Bool {
        guard let target = self.entity else { return false }
        return request.includesSubentities ? entity.isKindOf(entity: target) : entity === target || entity.name == target.name
    }

    /// Whether a changed object is a result now.
    private func matches(_ object: NSManagedObject) -> Bool {
        guard !object.isDeleted, object.managedObjectContext === context else { return false }
        return request.predicate?.evaluate(with: object) ?? true
    }

    private var currentIDs: [NSManagedObjectID] { objects.compactMap { ($0 as? NSManagedObject)?.objectID } }

    /// A save gives inserted objects permanent IDs: the difference callback hears of it
    /// (nothing moves, so the change-by-change callbacks have nothing to say).
    private func contextDidSave() {
        guard usesDifference == true, let delegate, let face else { return }
        let after = currentIDs
        guard after != reportedIDs else { return }
        let difference = after.difference(from: reportedIDs)
        reportedIDs = after
        delegate.controller(face, didChangeContentWith: difference)
    }

    // MARK: Reporting

    /// Tells the delegate how the results went from `old` to the current ones. With
    /// `changed` empty (after a reset), every object is compared.
    private func report(from old: (objects: [AnyObject], keys: [SortKey], sections: [FetchedResultsSection]),
                        changed: [ObjectIdentifier: NSManagedObject], updated: Set<ObjectIdentifier>) {
        guard let delegate, let face else { return }
        if usesDifference != false {
            let after = currentIDs
            differenceCallbackIsDefault = false
            delegate.controller(face, didChangeContentWith: after.difference(from: reportedIDs))
            reportedIDs = after
            usesDifference = !differenceCallbackIsDefault
            if usesDifference == true { return }
        }
        let changes = FetchedResultsChanges(old: old.objects, oldSections: old.sections, new: objects, newSections: sections,
                                            changed: changed.isEmpty ? nil : Set(changed.keys), updated: updated, results: self) { _, before, after in
            let (a, b) = (old.keys[before], self.keys[after])
            return a.section != b.section || self.compare(a, b) != .orderedSame
        }
        guard !changes.isEmpty else { return }
        delegate.controllerWillChangeContent(face)
        for (index, section) in changes.deletedSections { delegate.controller(face, didChange: section, atSectionIndex: index, for: .delete) }
        for (index, section) in changes.insertedSections { delegate.controller(face, didChange: section, atSectionIndex: index, for: .insert) }
        for change in changes.objectChanges {
            delegate.controller(face, didChange: change.object, at: change.oldPath, for: change.type, newIndexPath: change.newPath)
        }
        delegate.controllerDidChangeContent(face)
    }
}
