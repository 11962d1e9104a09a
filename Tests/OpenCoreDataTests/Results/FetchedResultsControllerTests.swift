import Foundation
@testable import OpenCoreDataCore
import Testing

/// A table view's model of a controller: it applies the reported changes as a table
/// view applies a batch (deletions at old index paths, then insertions at new ones).
final class TableRecorder: NSFetchedResultsControllerDelegate {
    var sections: [(name: String, rows: [ObjectIdentifier])] = []
    var events: [String] = []
    private var removals: [IndexPath] = []
    private var insertions: [(IndexPath, ObjectIdentifier)] = []
    private var removedSections: [Int] = []
    private var addedSections: [(Int, String)] = []

    func load(_ controller: NSFetchedResultsController<NSManagedObject>) {
        sections = (controller.sections ?? []).map { section in
            (section.name, (section.objects ?? []).map { ObjectIdentifier($0 as AnyObject) })
        }
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        events.append("will")
        (removals, insertions, removedSections, addedSections) = ([], [], [], [])
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        events.append("section \(type) \(sectionIndex)")
        if type == .delete { removedSections.append(sectionIndex) } else { addedSections.append((sectionIndex, sectionInfo.name)) }
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        events.append("\(type) \(indexPath.map { "\($0)" } ?? "-") \(newIndexPath.map { "\($0)" } ?? "-")")
        let id = ObjectIdentifier(anObject as AnyObject)
        switch type {
        case .delete: removals.append(indexPath!)
        case .insert: insertions.append((newIndexPath!, id))
        case .move:
            removals.append(indexPath!)
            insertions.append((newIndexPath!, id))
        case .update: break
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        events.append("did")
        for path in removals.sorted(by: >) { sections[path.section].rows.remove(at: path.row) }
        for index in removedSections.sorted(by: >) { sections.remove(at: index) }
        for (index, name) in addedSections.sorted(by: { $0.0 < $1.0 }) { sections.insert((name, []), at: index) }
        for (path, id) in insertions.sorted(by: { $0.0 < $1.0 }) { sections[path.section].rows.insert(id, at: path.row) }
    }
}

/// A collection's model of a controller kept by the difference callback alone.
final class DifferenceRecorder: NSFetchedResultsControllerDelegate {
    var ids: [NSManagedObjectID] = []
    var calls = 0
    var otherCalls = 0

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        calls += 1
        ids = ids.applying(diff) ?? []
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
}

@Suite struct FetchedResultsControllerTests {
    /// Photo(title, group, rank) and a photographer per photo's `group`.
    static func model() -> NSManagedObjectModel {
        let photo = ModelBuilder.entity("Photo")
        photo.properties = [ModelBuilder.attribute("title", .stringAttributeType), ModelBuilder.attribute("group", .stringAttributeType),
                            ModelBuilder.attribute("rank", .integer64AttributeType, optional: false, defaultValue: 0)]
        return ModelBuilder.model(photo)
    }

    static func request(predicate: OpenCoreDataCore.NSPredicate? = NSPredicate(format: "rank >= 0")) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        request.predicate = predicate
        request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "rank", ascending: true)]
        return request
    }

    @discardableResult
    static func insert(_ title: String, group: String, rank: Int, into context: NSManagedObjectContext) -> NSManagedObject {
        let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: context)
        photo.setValue(title, forKey: "title")
        photo.setValue(group, forKey: "group")
        photo.setValue(rank, forKey: "rank")
        return photo
    }

    @Test func sectionsIndexTitlesAndIndexPaths() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            for (title, group, rank) in [("a", "apple", 2), ("b", "apple", 1), ("c", "banana", 5), ("d", "cherry", 3), ("e", "avocado", 4)] {
                Self.insert(title, group: group, rank: rank, into: context)
            }
            try context.save()
            let controller = NSFetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            #expect(controller.sections == nil && controller.fetchedObjects == nil)
            try controller.performFetch()
            let sections = try #require(controller.sections)
            #expect(sections.map(\.name) == ["apple", "avocado", "banana", "cherry"])
            #expect(sections.map(\.numberOfObjects) == [2, 1, 1, 1])
            #expect(sections.map(\.indexTitle) == ["A", "A", "B", "C"])
            #expect(controller.sectionIndexTitles == ["A", "B", "C"])
            #expect(controller.section(forSectionIndexTitle: "B", at: 1) == 2)
            #expect(controller.object(at: IndexPath(row: 1, section: 0)).value(forKey: "title") as? String == "a")
            #expect(controller.fetchedObjects?.compactMap { $0.value(forKey: "title") as? String } == ["b", "a", "e", "c", "d"])
            let cherry = try #require(controller.fetchedObjects?.last)
            #expect(controller.indexPath(forObject: cherry) == IndexPath(item: 0, section: 3))
            #expect(IndexPath(row: 4, section: 2).section == 2 && IndexPath(row: 4, section: 2).row == 4 && IndexPath(item: 4, section: 2).item == 4)
        }
    }

    @Test func aRequestWithoutSortDescriptorsIsAnError() throws {
        let context = try makeContext(Self.model())
        let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        #expect(throws: NSError.self) { try context.performAndWait { try controller.performFetch() } }
    }

    @Test func withoutADelegateNothingIsFollowed() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let controller = NSFetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            Self.insert("a", group: "g", rank: 1, into: context)
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.count == 0)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.count == 1)
        }
    }

    @Test func changesAreReportedAtTheEndOfTheEventInTableOrder() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let a = Self.insert("a", group: "g1", rank: 1, into: context)
            let b = Self.insert("b", group: "g1", rank: 2, into: context)
            try context.save()
            let controller = NSFetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            let recorder = TableRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            recorder.load(controller)

            b.setValue(0, forKey: "rank")          // moves before a
            a.setValue("renamed", forKey: "title") // stays: an update
            Self.insert("c", group: "g2", rank: 1, into: context)  // a new section
            #expect(recorder.events.isEmpty, "nothing is reported before the event ends")
            context.processPendingChanges()
            #expect(recorder.events.first == "will" && recorder.events.last == "did")
            #expect(recorder.events.contains("section insert 1"))
            #expect(recorder.events.contains("insert - [1, 0]"))
            #expect(recorder.events.contains("update [0, 0] [0, 1]"))
            #expect(recorder.events.contains("move [0, 1] [0, 0]"))
            #expect(recorder.sections.map(\.rows) == (controller.sections ?? []).map { ($0.objects ?? []).map { ObjectIdentifier($0 as AnyObject) } })

            recorder.events = []
            a.setValue(-1, forKey: "rank")  // stops matching the predicate
            context.processPendingChanges()
            #expect(recorder.events == ["will", "delete [0, 1] -", "did"])
            recorder.events = []
            context.delete(b)              // the last of its section
            context.processPendingChanges()
            #expect(recorder.events == ["will", "section delete 0", "delete [0, 0] -", "did"])
            #expect(controller.sections?.map(\.name) == ["g2"])
        }
    }

    @Test func aContextResetFetchesAgain() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            Self.insert("a", group: "g", rank: 1, into: context)
            try context.save()
            let controller = NSFetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let recorder = TableRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            recorder.load(controller)
            let unsaved = Self.insert("b", group: "g", rank: 2, into: context)
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.contains(unsaved) == true)
            context.reset()
            #expect(controller.fetchedObjects?.count == 1)
            #expect(controller.fetchedObjects?.first?.managedObjectContext === context)
            #expect(recorder.sections.map(\.rows.count) == [1])
        }
    }

    @Test func dictionaryResultsAreGroupedButNotFollowed() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            Self.insert("a", group: "x", rank: 1, into: context)
            Self.insert("b", group: "y", rank: 2, into: context)
            try context.save()
            let request = NSFetchRequest<NSDictionary>(entityName: "Photo")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["title", "group"]
            request.sortDescriptors = [NSSortDescriptor(key: "group", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["x", "y"])
            #expect(controller.object(at: IndexPath(row: 0, section: 1))["title"] as? String == "b")
        }
    }

    @Test func theDelegateSeesOneControllerWhateverItsResultType() throws {
        final class Identity: NSFetchedResultsControllerDelegate {
            var seen: NSFetchedResultsController<NSFetchRequestResult>?
            func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { seen = controller }
        }
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let controller = NSFetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let delegate = Identity()
            controller.delegate = delegate
            try controller.performFetch()
            Self.insert("a", group: "g", rank: 1, into: context)
            context.processPendingChanges()
            let seen = try #require(delegate.seen)
            #expect(seen == controller)
            #expect(seen.fetchedObjects?.count == 1 && seen.sections?.first?.numberOfObjects == 1)
        }
    }

    /// From random data, 1,500 random steps (inserts, deletes, sort and section key changes,
    /// predicate-crossing updates, saves, merges from a background context, undo); after
    /// each, the table model with the reported changes applied, and the list kept by the
    /// difference callback, equal a fresh fetch.
    @Test func randomChangesKeepTheReportedResultsEqualToAFreshFetch() throws {
        var random = SplitMix64(seed: 20261125)
        let url = temporaryStoreURL("Photos")
        let context = try makeContext(Self.model(), url: url)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = coordinator
        let groups = ["a", "b", "c", "d", "e"]
        var usedRanks = Set<Int>()
        func freshRank() -> Int {
            while true { let rank = Int.random(in: -200...100_000, using: &random); if usedRanks.insert(rank).inserted { return rank } }
        }
        try context.performAndWait {
            context.undoManager = UndoManager()
            for index in 0..<40 { Self.insert("p\(index)", group: groups.randomElement(using: &random)!, rank: freshRank(), into: context) }
            try context.save()
            let table = NSFetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            let tableRecorder = TableRecorder()
            table.delegate = tableRecorder
            try table.performFetch()
            tableRecorder.load(table)
            let list = NSFetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            let differences = DifferenceRecorder()
            list.delegate = differences
            try list.performFetch()
            differences.ids = list.fetchedObjects?.map(\.objectID) ?? []

            for step in 0..<1_500 {
                let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo"))
                let kind = Int.random(in: 0..<10, using: &random)
                tableRecorder.events = []
                switch kind {
                case 0, 1: Self.insert("n\(step)", group: groups.randomElement(using: &random)!, rank: freshRank(), into: context)
                case 2: if let victim = all.randomElement(using: &random) { context.delete(victim) }
                case 3, 4:
                    all.randomElement(using: &random)?.setValue(freshRank(), forKey: "rank")
                case 5: all.randomElement(using: &random)?.setValue(groups.randomElement(using: &random)!, forKey: "group")
                case 6: all.randomElement(using: &random)?.setValue("t\(step)", forKey: "title")
                case 7: try context.save()
                case 8:
                    let rank = freshRank(), group = groups.randomElement(using: &random)!
                    let log = NotificationLog(.NSManagedObjectContextDidSave, background)
                    try background.performAndWait {
                        Self.insert("bg\(step)", group: group, rank: rank, into: background)
                        try background.save()
                    }
                    if let info = log.last {
                        context.mergeChanges(fromContextDidSave: Notification(name: .NSManagedObjectContextDidSave, object: background, userInfo: info))
                    }
                default: context.undoManager?.undo()
                }
                context.processPendingChanges()
                let fresh = NSFetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
                try fresh.performFetch()
                let expected = (fresh.sections ?? []).map { ($0.name, ($0.objects ?? []).map { ObjectIdentifier($0 as AnyObject) }) }
                let tableMatches = tableRecorder.sections.map(\.name) == expected.map(\.0) && tableRecorder.sections.map(\.rows) == expected.map(\.1)
                let listMatches = differences.ids == (fresh.fetchedObjects ?? []).map(\.objectID)
                #expect(tableMatches && listMatches, "step \(step) (\(kind)): table \(tableRecorder.sections.map { "\($0.name):\($0.rows.count)" }) vs \(expected.map { "\($0.0):\($0.1.count)" }), events \(tableRecorder.events.suffix(12))")
                if !(tableMatches && listMatches) { break }
            }
            #expect(differences.calls > 100 && differences.otherCalls == 0, "a delegate with the difference callback gets only that")
        }
    }
}
