/// What a fetched results controller knows: its sections with their objects in order
/// and, while it has a delegate, where each object is and by which sort key it was placed.
///
/// Shared by a controller's typed face and its `NSFetchRequestResult` face (the one its
/// delegate is given), so both see one state. Each section keeps its own array, so a
/// change costs a search and a shift within one section, not a pass over every result.
/// A changed object is found by the section and key it was placed with, and placed again
/// by its current key; an object whose related objects changed (a sort key path such as
/// `photographer.name`) keeps its place until it changes itself, as in Core Data.
/// Confined to its context's queue, as the context's objects are: the context posts the
/// notifications it follows on that queue (hence `@unchecked Sendable`).
final class FetchedResults: @unchecked Sendable {
    let context: NSManagedObjectContext
    let request: any ErasedFetchRequest
    let sectionNameKeyPath: String?
    /// The name of the section cache on disk; `nil`: none.
    let cacheName: String?

    private(set) var isFetched = false
    private(set) var sections: [FetchedResultsSection] = []
    private var sectionsByName: [String: FetchedResultsSection] = [:]
    /// The results in order, made when asked for.
    private var flatCache: [AnyObject]?
    /// While following changes: each result's section and the sort key it was placed by.
    private var placements: [ObjectIdentifier: Placement] = [:]
    private var isTracking = false

    /// The delegate; changes are followed only while there is one (as in Core Data).
    weak var delegate: NSFetchedResultsControllerDelegate? {
        didSet { updateTracking() }
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
    /// Results whose temporary IDs the difference callback was told: a save makes them
    /// permanent, which that callback hears of.
    private var temporaryIDs: [ObjectIdentifier: (NSManagedObject, NSManagedObjectID)] = [:]
    private var observers: [NSObjectProtocol] = []
    /// The streams of ``NSFetchedResultsController/changes`` being read.
    private var subscribers: [UUID: AsyncStream<FetchedResultsChange>.Continuation] = [:]
    /// The last history transaction merged for those streams after another process saved.
    private var remoteToken: NSPersistentHistoryToken?
    /// Set by the default of the delegate's snapshot callback: the delegate did not implement it.
    var snapshotCallbackIsDefault = false
    private var usesSnapshot: Bool?

    init(
        context: NSManagedObjectContext, request: any ErasedFetchRequest, sectionNameKeyPath: String?,
        cacheName: String?
    ) {
        self.context = context
        self.request = request
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    deinit {
        observers.forEach(NotificationCenter.default.removeObserver)
    }

    struct SortKey {
        let section: String
        let values: [Any?]
    }

    struct Placement {
        unowned let section: FetchedResultsSection
        let key: SortKey
    }

    // MARK: Fetching

    func performFetch() throws {
        guard let descriptors = request.sortDescriptors, !descriptors.isEmpty else {
            throw CoreDataError.make(
                NSCoreDataError, "A fetched results controller needs a fetch request with sort descriptors")
        }
        self.descriptors = descriptors
        sortReaders = descriptors.map { KeyReader($0.key) }
        sectionReader = sectionNameKeyPath.map(KeyReader.init)
        sectionsFollowFirstKey = sectionNameKeyPath != nil && sectionNameKeyPath == descriptors[0].key
        let batched =
            request.fetchBatchSize > 0 && !wantsTracking
            && (request.resultType == .managedObjectResultType || request.resultType == .managedObjectIDResultType)
        let cache =
            batched
            ? entity.flatMap {
                SectionInfoCache(
                    name: cacheName, request: request, entity: $0, sectionNameKeyPath: sectionNameKeyPath,
                    context: context)
            } : nil
        let cached = cache?.read()
        let list: FetchedList
        if batched {
            let batch = try request.batchedResults(in: context, restoring: cached?.keys)
            list = FetchedList(count: batch.count, keys: batch.keys, element: batch.element)
        } else {
            list = FetchedList(try request.results(in: context).map { $0 as AnyObject })
        }
        placements = [:]
        temporaryIDs = [:]
        isTracking = false
        flatCache = nil
        usesDifference = nil
        usesSnapshot = nil
        if wantsTracking, let objects = list.objects {
            try place(objects)
        } else if let cached, list.keys != nil {
            // A child context's list is computed in memory (its parent's changes count): then the cache is not used.
            var start = 0
            try install(
                cached.sections.map { name, count in
                    defer { start += count }
                    return FetchedResultsSection(
                        name: name, indexTitle: indexTitle(name), list: list, range: start..<start + count)
                })
        } else {
            try group(list)
            if let cache, let keys = list.keys {
                cache.write(
                    SectionInfoCache.Contents(keys: keys, sections: sections.map { ($0.name, $0.numberOfObjects) }))
            }
        }
        isFetched = true
        updateTracking()
    }

    /// Whether changes are followed: there is a delegate or a stream, and results are
    /// managed objects.
    private var wantsTracking: Bool {
        (delegate != nil || !subscribers.isEmpty) && request.resultType == .managedObjectResultType
    }

    /// Sections from the runs of equal section names, found by galloping and binary search:
    /// as Core Data requires, the first sort descriptor groups the sections, so only
    /// O(sections × log n) names are read (with batched results, that many batches).
    private func group(_ list: FetchedList) throws {
        var found: [FetchedResultsSection] = []
        var start = 0
        while start < list.count {
            let name = sectionName(of: list[start])
            var low = start, step = 1
            while low + step < list.count, sectionName(of: list[low + step]) == name {
                low += step
                step *= 2
            }
            var high = min(low + step, list.count)
            while high - low > 1 {
                let middle = (low + high) / 2
                if sectionName(of: list[middle]) == name { low = middle } else { high = middle }
            }
            found.append(
                FetchedResultsSection(name: name, indexTitle: indexTitle(name), list: list, range: start..<high))
            start = high
        }
        try install(found)
    }

    /// Sections from every result's sort key, remembered for following changes.
    private func place(_ objects: [AnyObject]) throws {
        var found: [FetchedResultsSection] = []
        var current: FetchedResultsSection?
        placements.reserveCapacity(objects.count)
        for object in objects {
            let key = sortKey(of: object)
            if current?.name != key.section {
                let section = FetchedResultsSection(name: key.section, indexTitle: indexTitle(key.section))
                found.append(section)
                current = section
            }
            current!.append(object)
            placements[ObjectIdentifier(object)] = Placement(section: current!, key: key)
        }
        try install(found)
        isTracking = true
        for case let object as NSManagedObject in objects where object.hasTemporaryID {
            temporaryIDs[ObjectIdentifier(object)] = (object, object.objectID)
        }
    }

    /// A request whose sort does not group its sections names one section twice: Core Data
    /// refuses it, and so does this.
    private func install(_ found: [FetchedResultsSection]) throws {
        var byName: [String: FetchedResultsSection] = [:]
        for section in found where byName.updateValue(section, forKey: section.name) != nil {
            throw CoreDataError.make(
                NSCoreDataError,
                "The fetched objects have an out of order section name '\(section.name)': the first sort descriptor must order the objects by the section name key path '\(sectionNameKeyPath ?? "")'"
            )
        }
        sections = found
        sectionsByName = byName
    }

    /// The results in order.
    var objects: [AnyObject] {
        if let flatCache { return flatCache }
        let flat = sections.flatMap(\.allObjects)
        flatCache = flat
        return flat
    }

    private var entity: NSEntityDescription? {
        request.entity
            ?? request.entityName.flatMap { context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[$0] }
    }

    // MARK: Keys and positions

    /// The request's sort descriptors and their readers, as of the last fetch (the request
    /// may change before the next one).
    private var descriptors: [NSSortDescriptor] = []
    private var sortReaders: [KeyReader] = []
    private var sectionReader: KeyReader?

    private func sortKey(of object: AnyObject) -> SortKey {
        let values = sortReaders.map { $0.read(object) }
        // Sections named by the first sort key (the usual case) read it once.
        if sectionsFollowFirstKey, let name = values.first {
            return SortKey(section: sectionName(from: name), values: values)
        }
        return SortKey(section: sectionName(of: object), values: values)
    }

    private var sectionsFollowFirstKey = false

    private func compare(_ a: SortKey, _ b: SortKey) -> ComparisonResult {
        for (index, descriptor) in descriptors.enumerated() {
            let order = descriptor.compareKeyValues(a.values[index], b.values[index])
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }

    private func sameKey(_ a: SortKey, _ b: SortKey) -> Bool {
        a.section == b.section && compare(a, b) == .orderedSame
    }

    /// The section name of a result: its section key path's value as text ("" for nil).
    private func sectionName(of object: AnyObject) -> String {
        guard let sectionReader else { return "" }
        return sectionName(from: sectionReader.read(object))
    }

    private func sectionName(from value: Any?) -> String {
        switch value {
        case nil: return ""
        case let text as String: return text
        case let value?: return String(describing: value)
        }
    }

    private func key(at row: Int, in section: FetchedResultsSection) -> SortKey {
        placements[ObjectIdentifier(section.items[row])]!.key
    }

    /// The row of a placed object: a binary search by its key, then a scan of equal keys.
    private func row(of object: AnyObject, placedBy key: SortKey, in section: FetchedResultsSection) -> Int? {
        var low = 0, high = section.items.count
        while low < high {
            let middle = (low + high) / 2
            if compare(self.key(at: middle, in: section), key) == .orderedAscending {
                low = middle + 1
            } else {
                high = middle
            }
        }
        var row = low
        while row < section.items.count {
            if section.items[row] === object { return row }
            if compare(self.key(at: row, in: section), key) != .orderedSame { break }
            row += 1
        }
        // Keys read through a relationship may have changed since placement: search it all.
        return section.items.firstIndex { $0 === object }
    }

    /// Where a placed object is now: its section, row and the key it was placed by.
    private func location(of object: AnyObject) -> (section: FetchedResultsSection, row: Int, key: SortKey)? {
        guard let placement = placements[ObjectIdentifier(object)],
            let row = row(of: object, placedBy: placement.key, in: placement.section)
        else { return nil }
        return (placement.section, row, placement.key)
    }

    /// Where an object with `key` goes in `section`: after the objects with equal keys.
    private func insertionRow(for key: SortKey, in section: FetchedResultsSection) -> Int {
        var low = 0, high = section.items.count
        while low < high {
            let middle = (low + high) / 2
            if compare(self.key(at: middle, in: section), key) == .orderedDescending {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }

    /// The section named by `key`, made (in order among the others) when there is none.
    private func section(for key: SortKey) -> FetchedResultsSection {
        if let section = sectionsByName[key.section] { return section }
        let section = FetchedResultsSection(name: key.section, indexTitle: indexTitle(key.section))
        let index =
            sections.firstIndex { other in
                !other.items.isEmpty && compare(self.key(at: 0, in: other), key) == .orderedDescending
            } ?? sections.count
        sections.insert(section, at: index)
        sectionsByName[key.section] = section
        return section
    }

    /// The index path of `row` in `section` among `sections`, and its offset in the flat results.
    private struct Layout {
        var index: [ObjectIdentifier: Int] = [:]
        var starts: [Int] = []

        init(_ sections: [FetchedResultsSection]) {
            var start = 0
            for (position, section) in sections.enumerated() {
                index[ObjectIdentifier(section)] = position
                starts.append(start)
                start += section.numberOfObjects
            }
        }

        func path(_ section: FetchedResultsSection, _ row: Int) -> IndexPath {
            IndexPath(indexes: [index[ObjectIdentifier(section)]!, row])
        }

        func offset(_ section: FetchedResultsSection, _ row: Int) -> Int {
            starts[index[ObjectIdentifier(section)]!] + row
        }
    }

    /// Where `object` is; `nil` when it is not a result.
    func indexPath(of object: AnyObject) -> IndexPath? {
        if isTracking {
            guard let location = location(of: object),
                let index = sections.firstIndex(where: { $0 === location.section })
            else { return nil }
            return IndexPath(indexes: [index, location.row])
        }
        for (index, section) in sections.enumerated() {
            if let row = section.allObjects.firstIndex(where: {
                $0 === object || (($0 as? NSObject)?.isEqual(object) ?? false)
            }) {
                return IndexPath(indexes: [index, row])
            }
        }
        return nil
    }

    // MARK: Following changes

    private func updateTracking() {
        let wanted = wantsTracking && isFetched
        if wanted, !isTracking {
            // A delegate set after the fetch: place the results from now on.
            try? place(objects)
            flatCache = nil
        }
        if wanted, observers.isEmpty {
            observers = [
                NotificationCenter.default.addObserver(
                    forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
                ) { [weak self] note in
                    self?.contextDidChange(note.userInfo ?? [:])
                },
                NotificationCenter.default.addObserver(
                    forName: .NSManagedObjectContextDidSave, object: context, queue: nil
                ) { [weak self] _ in
                    self?.contextDidSave()
                },
                // Posted from the store's watcher: what other processes saved is merged on the context's queue.
                NotificationCenter.default.addObserver(
                    forName: .NSPersistentStoreRemoteChange, object: context.persistentStoreCoordinator, queue: nil
                ) { [weak self] _ in
                    guard let self, !self.subscribers.isEmpty else { return }
                    self.context.perform { self.followRemoteChange() }
                },
            ]
        } else if !wanted, !observers.isEmpty {
            observers.forEach(NotificationCenter.default.removeObserver)
            observers = []
        }
    }

    /// Whether objects of `entity` can be results.
    private func fits(_ entity: NSEntityDescription) -> Bool {
        guard let target = self.entity else { return false }
        return request.includesSubentities
            ? entity.isKindOf(entity: target) : entity === target || entity.name == target.name
    }

    /// Whether a changed object is a result now.
    private func matches(_ object: NSManagedObject) -> Bool {
        guard !object.isDeleted, object.managedObjectContext === context else { return false }
        return request.predicate?.evaluate(with: object) ?? true
    }

    /// One changed object: where it was, and where it goes.
    private struct Change {
        let object: NSManagedObject
        var old: (section: FetchedResultsSection, row: Int, key: SortKey)?
        var newKey: SortKey?
        /// It stays where it was (its key did not change).
        var stays = false
        var isUpdated = false
        var isGone = false
    }

    private func contextDidChange(_ info: [AnyHashable: Any]) {
        guard isTracking else { return }
        if info[NSInvalidatedAllObjectsKey] != nil {
            refetchAfterReset()
            return
        }
        var changes: [Change] = []
        var position: [ObjectIdentifier: Int] = [:]
        for key in [
            NSInsertedObjectsKey, NSUpdatedObjectsKey, NSRefreshedObjectsKey, NSDeletedObjectsKey,
            NSInvalidatedObjectsKey,
        ] {
            for case let object as NSManagedObject in CollectionValue.members(of: info[key]) ?? []
            where fits(object.entity) {
                let id = ObjectIdentifier(object)
                let index = position[id] ?? changes.count
                if index == changes.count {
                    position[id] = index
                    changes.append(Change(object: object))
                }
                if key == NSUpdatedObjectsKey || key == NSRefreshedObjectsKey { changes[index].isUpdated = true }
                if key == NSDeletedObjectsKey || key == NSInvalidatedObjectsKey { changes[index].isGone = true }
            }
        }
        for index in changes.indices {
            let object = changes[index].object
            changes[index].old = location(of: object)
            if !changes[index].isGone, matches(object) { changes[index].newKey = sortKey(of: object) }
            if let old = changes[index].old, let key = changes[index].newKey, sameKey(old.key, key) {
                changes[index].stays = true
            }
        }
        guard changes.contains(where: { $0.old != nil || $0.newKey != nil }) else { return }
        let oldSections = sections
        let before = Layout(oldSections)
        let oldPaths = changes.map { change in
            change.old.map { (before.path($0.section, $0.row), before.offset($0.section, $0.row)) }
        }

        // Remove what moves or leaves (rows from the last, so earlier rows keep their place).
        let leaving = changes.filter { $0.old != nil && !$0.stays }.sorted { $0.old!.row > $1.old!.row }
        for change in leaving {
            change.old!.section.items.remove(at: change.old!.row)
            placements[ObjectIdentifier(change.object)] = nil
        }
        for change in changes where !change.stays {
            guard let key = change.newKey else { continue }
            let section = section(for: key)
            section.items.insert(change.object, at: insertionRow(for: key, in: section))
            placements[ObjectIdentifier(change.object)] = Placement(section: section, key: key)
        }
        for change in changes where change.newKey == nil {
            temporaryIDs[ObjectIdentifier(change.object)] = nil
        }
        if leaving.contains(where: { $0.old!.section.items.isEmpty }) {
            sections.removeAll { $0.items.isEmpty }
            sectionsByName = sectionsByName.filter { !$0.value.items.isEmpty }
        }
        flatCache = nil
        report(changes, oldPaths: oldPaths, oldSections: oldSections)
    }

    /// After a reset the context's objects are gone: the results are fetched again and
    /// reported as a reload (every old section and object deleted, every new one inserted).
    private func refetchAfterReset() {
        let oldSections = sections
        let old = objects
        guard (try? performFetch()) != nil else { return }
        let difference = Self.objectIDs(of: objects).difference(from: Self.objectIDs(of: old))
        publish(difference, reloaded: [])
        guard let delegate, let face, !askDifference(delegate, face, { difference }),
            !askSnapshot(delegate, face, reloaded: [])
        else { return }
        delegate.controllerWillChangeContent(face)
        for (index, section) in oldSections.enumerated() {
            delegate.controller(face, didChange: section, atSectionIndex: index, for: .delete)
        }
        for (index, section) in sections.enumerated() {
            delegate.controller(face, didChange: section, atSectionIndex: index, for: .insert)
        }
        for (index, section) in oldSections.enumerated() {
            for (row, object) in section.allObjects.enumerated() {
                delegate.controller(
                    face, didChange: object, at: IndexPath(indexes: [index, row]), for: .delete, newIndexPath: nil)
            }
        }
        for (index, section) in sections.enumerated() {
            for (row, object) in section.allObjects.enumerated() {
                delegate.controller(
                    face, didChange: object, at: nil, for: .insert, newIndexPath: IndexPath(indexes: [index, row]))
            }
        }
        delegate.controllerDidChangeContent(face)
    }

    /// Another process saved to the store: its transactions are merged into the context
    /// from persistent history (which the context then reports, change by change), or,
    /// when the store keeps no history, every object is refreshed and the results fetched again.
    private func followRemoteChange() {
        guard let coordinator = context.persistentStoreCoordinator, isTracking else { return }
        if let token = remoteToken,
            let result = try? context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token))
                as? NSPersistentHistoryResult,
            let transactions = result.result as? [NSPersistentHistoryTransaction]
        {
            for transaction in transactions {
                context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            }
            remoteToken =
                transactions.last?.token ?? coordinator.currentPersistentHistoryToken(fromStores: nil) ?? token
            return
        }
        context.refreshAllObjects()
        refetchAfterReset()
    }

    // MARK: Streams

    /// A stream of the results: the current ones first (once fetched), then each change.
    func changes() -> AsyncStream<FetchedResultsChange> {
        AsyncStream { continuation in
            let id = UUID()
            context.performAndWait {
                subscribers[id] = continuation
                if remoteToken == nil {
                    remoteToken = context.persistentStoreCoordinator?.currentPersistentHistoryToken(fromStores: nil)
                }
                updateTracking()
                if isFetched {
                    continuation.yield(
                        FetchedResultsChange(
                            snapshot: snapshot(reloaded: []), difference: currentIDs.difference(from: [])))
                }
            }
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                self.context.perform {
                    self.subscribers[id] = nil
                    self.updateTracking()
                }
            }
        }
    }

    private var currentIDs: [NSManagedObjectID] { Self.objectIDs(of: objects) }

    private static func objectIDs(of results: [AnyObject]) -> [NSManagedObjectID] {
        results.compactMap { ($0 as? NSManagedObject)?.objectID }
    }

    func snapshot(reloaded: [NSManagedObjectID]) -> FetchedResultsSnapshot {
        FetchedResultsSnapshot(
            sections: sections.map { section in (section.name, Self.objectIDs(of: section.allObjects)) },
            reloaded: reloaded)
    }

    private func publish(
        _ difference: @autoclosure () -> CollectionDifference<NSManagedObjectID>, reloaded: [NSManagedObjectID]
    ) {
        guard !subscribers.isEmpty else { return }
        let change = FetchedResultsChange(snapshot: snapshot(reloaded: reloaded), difference: difference())
        for continuation in subscribers.values { continuation.yield(change) }
    }

    /// A save gives inserted objects permanent IDs: the difference callback hears of it
    /// (nothing moves, so the change-by-change callbacks have nothing to say).
    private func contextDidSave() {
        guard usesDifference == true || usesSnapshot == true || !subscribers.isEmpty else { return }
        let renamed = temporaryIDs.values.filter { $0.0.objectID != $0.1 }
        guard !renamed.isEmpty else { return }
        let layout = Layout(sections)
        var steps: [CollectionDifference<NSManagedObjectID>.Change] = []
        for (object, oldID) in renamed {
            temporaryIDs[ObjectIdentifier(object)] = nil
            guard let location = location(of: object) else { continue }
            let offset = layout.offset(location.section, location.row)
            steps.append(.remove(offset: offset, element: oldID, associatedWith: nil))
            steps.append(.insert(offset: offset, element: object.objectID, associatedWith: nil))
        }
        guard let difference = CollectionDifference(steps) else { return }
        publish(difference, reloaded: [])
        guard let delegate, let face else { return }
        if usesDifference == true {
            delegate.controller(face, didChangeContentWith: difference)
        } else if usesSnapshot == true {
            delegate.controller(face, didChangeContentWith: snapshot(reloaded: []))
        }
    }

    // MARK: Reporting

    /// Asks the delegate's difference callback first (once, to learn whether it has one);
    /// returns whether it took the report.
    private func askDifference(
        _ delegate: NSFetchedResultsControllerDelegate, _ face: NSFetchedResultsController<NSFetchRequestResult>,
        _ difference: () -> CollectionDifference<NSManagedObjectID>
    ) -> Bool {
        guard usesDifference != false else { return false }
        differenceCallbackIsDefault = false
        delegate.controller(face, didChangeContentWith: difference())
        usesDifference = !differenceCallbackIsDefault
        return usesDifference == true
    }

    /// Then the snapshot callback, the same way.
    private func askSnapshot(
        _ delegate: NSFetchedResultsControllerDelegate, _ face: NSFetchedResultsController<NSFetchRequestResult>,
        reloaded: [NSManagedObjectID]
    ) -> Bool {
        guard usesSnapshot != false else { return false }
        snapshotCallbackIsDefault = false
        delegate.controller(face, didChangeContentWith: snapshot(reloaded: reloaded))
        usesSnapshot = !snapshotCallbackIsDefault
        return usesSnapshot == true
    }

    /// Tells the delegate what the changes did, in the terms a table view applies them:
    /// sections deleted and inserted, objects deleted at their old index paths, inserted
    /// at their new ones, moved, and updated in place.
    private func report(_ changes: [Change], oldPaths: [(IndexPath, Int)?], oldSections: [FetchedResultsSection]) {
        let after = Layout(sections)
        let newPaths: [(IndexPath, Int)?] = changes.map { change in
            guard change.newKey != nil, let location = location(of: change.object) else { return nil }
            return (after.path(location.section, location.row), after.offset(location.section, location.row))
        }
        for (change, new) in zip(changes, newPaths) where new != nil && change.object.objectID.isTemporaryID {
            temporaryIDs[ObjectIdentifier(change.object)] = (change.object, change.object.objectID)
        }
        var difference: CollectionDifference<NSManagedObjectID> {
            var steps: [CollectionDifference<NSManagedObjectID>.Change] = []
            for (index, change) in changes.enumerated() where !change.stays {
                if let old = oldPaths[index] {
                    steps.append(.remove(offset: old.1, element: change.object.objectID, associatedWith: nil))
                }
                if let new = newPaths[index] {
                    steps.append(.insert(offset: new.1, element: change.object.objectID, associatedWith: nil))
                }
            }
            return CollectionDifference(steps)!
        }
        let reloaded = changes.filter { $0.stays && $0.isUpdated }.map(\.object.objectID)
        if changes.contains(where: { !$0.stays || $0.isUpdated }) { publish(difference, reloaded: reloaded) }
        guard let delegate, let face else { return }
        if askDifference(delegate, face, { difference }) || askSnapshot(delegate, face, reloaded: reloaded) { return }

        let oldNames = Set(oldSections.map(\.name))
        let deletedSections = oldSections.enumerated().filter { sectionsByName[$0.element.name] == nil }
        let insertedSections = sections.enumerated().filter { !oldNames.contains($0.element.name) }
        var deletions: [(IndexPath, AnyObject)] = [], insertions: [(IndexPath, AnyObject)] = []
        var moves: [(IndexPath, IndexPath, AnyObject)] = [], updates: [(IndexPath, IndexPath, AnyObject)] = []
        for (index, change) in changes.enumerated() {
            switch (oldPaths[index]?.0, newPaths[index]?.0) {
            case let (old?, nil): deletions.append((old, change.object))
            case let (nil, new?): insertions.append((new, change.object))
            case let (old?, new?) where !change.stays: moves.append((old, new, change.object))
            case let (old?, new?) where change.isUpdated: updates.append((old, new, change.object))
            default: break
            }
        }
        guard
            !(deletedSections.isEmpty && insertedSections.isEmpty && deletions.isEmpty && insertions.isEmpty
                && moves.isEmpty && updates.isEmpty)
        else { return }
        delegate.controllerWillChangeContent(face)
        for (index, section) in deletedSections {
            delegate.controller(face, didChange: section, atSectionIndex: index, for: .delete)
        }
        for (index, section) in insertedSections {
            delegate.controller(face, didChange: section, atSectionIndex: index, for: .insert)
        }
        for (path, object) in deletions.sorted(by: { $0.0 < $1.0 }) {
            delegate.controller(face, didChange: object, at: path, for: .delete, newIndexPath: nil)
        }
        for (path, object) in insertions.sorted(by: { $0.0 < $1.0 }) {
            delegate.controller(face, didChange: object, at: nil, for: .insert, newIndexPath: path)
        }
        for (old, new, object) in moves {
            delegate.controller(face, didChange: object, at: old, for: .move, newIndexPath: new)
        }
        for (old, new, object) in updates {
            delegate.controller(face, didChange: object, at: old, for: .update, newIndexPath: new)
        }
        delegate.controllerDidChangeContent(face)
    }
}

/// Reads one key path of a result: a managed object's own property straight through its
/// key-value coding, anything else as a key path (relationships, operators, `self`).
struct KeyReader {
    let read: (AnyObject) -> Any?

    init(_ path: String?) {
        guard let path else {
            read = { $0 }
            return
        }
        if path.contains(".") || path.hasPrefix("@") || path == "self" || path == "SELF" {
            read = { KeyPathEvaluation.value(forKeyPath: path, of: $0) }
        } else {
            read = { object in
                guard let managed = object as? NSManagedObject else {
                    return KeyPathEvaluation.value(forKeyPath: path, of: object)
                }
                return CollectionValue.unwrapNull(managed.value(forKey: path))
            }
        }
    }
}

/// The results a fetch returned: an array, or a batch-faulting list read on demand.
final class FetchedList {
    let count: Int
    /// The results when they are in memory.
    let objects: [AnyObject]?
    /// The saved rows' keys, when the results are read from the store on demand.
    let keys: StoreObjectList?
    private let element: (Int) -> AnyObject

    init(_ objects: [AnyObject]) {
        count = objects.count
        self.objects = objects
        keys = nil
        element = { objects[$0] }
    }

    init(count: Int, keys: StoreObjectList?, element: @escaping (Int) -> AnyObject) {
        self.count = count
        objects = nil
        self.keys = keys
        self.element = element
    }

    subscript(index: Int) -> AnyObject { objects?[index] ?? element(index) }
}
