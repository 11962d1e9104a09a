import Foundation
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

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

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {
        events.append("section \(type) \(sectionIndex)")
        if type == .delete {
            removedSections.append(sectionIndex)
        } else {
            addedSections.append((sectionIndex, sectionInfo.name))
        }
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
        at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
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
        for (path, id) in insertions.sorted(by: { $0.0 < $1.0 }) {
            sections[path.section].rows.insert(id, at: path.row)
        }
    }
}

/// A collection's model of a controller kept by the difference callback alone.
final class DifferenceRecorder: NSFetchedResultsControllerDelegate {
    var ids: [NSManagedObjectID] = []
    var calls = 0
    var otherCalls = 0

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
    ) {
        calls += 1
        ids = ids.applying(diff) ?? []
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
}

@Suite struct FetchedResultsControllerTests {
    /// Photo(title, group, rank) and a photographer per photo's `group`.
    static func model() -> NSManagedObjectModel {
        let photo = ModelBuilder.entity("Photo")
        photo.properties = [
            ModelBuilder.attribute("title", .stringAttributeType),
            ModelBuilder.attribute("group", .stringAttributeType),
            ModelBuilder.attribute("rank", .integer64AttributeType, optional: false, defaultValue: 0),
        ]
        return ModelBuilder.model(photo)
    }

    static func request(
        predicate: OpenCoreDataCore.NSPredicate? = NSPredicate(format: "rank >= 0")
    ) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        request.predicate = predicate
        request.sortDescriptors = [
            NSSortDescriptor(key: "group", ascending: true), NSSortDescriptor(key: "rank", ascending: true),
        ]
        return request
    }

    @discardableResult
    static func insert(
        _ title: String, group: String, rank: Int, into context: NSManagedObjectContext
    ) -> NSManagedObject {
        let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: context)
        photo.setValue(title, forKey: "title")
        photo.setValue(group, forKey: "group")
        photo.setValue(rank, forKey: "rank")
        return photo
    }

    @Test func sectionsIndexTitlesAndIndexPaths() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            for (title, group, rank) in [
                ("a", "apple", 2), ("b", "apple", 1), ("c", "banana", 5), ("d", "cherry", 3), ("e", "avocado", 4),
            ] {
                Self.insert(title, group: group, rank: rank, into: context)
            }
            try context.save()
            let controller = NSFetchedResultsController(
                fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil
            )
            #expect(controller.sections == nil && controller.fetchedObjects == nil)
            try controller.performFetch()
            let sections = try #require(controller.sections)
            #expect(sections.map(\.name) == ["apple", "avocado", "banana", "cherry"])
            #expect(sections.map(\.numberOfObjects) == [2, 1, 1, 1])
            #expect(sections.map(\.indexTitle) == ["A", "A", "B", "C"])
            #expect(controller.sectionIndexTitles == ["A", "B", "C"])
            #expect(controller.section(forSectionIndexTitle: "B", at: 1) == 2)
            #expect(controller.object(at: IndexPath(row: 1, section: 0)).value(forKey: "title") as? String == "a")
            #expect(
                controller.fetchedObjects?.compactMap { $0.value(forKey: "title") as? String } == [
                    "b", "a", "e", "c", "d",
                ])
            let cherry = try #require(controller.fetchedObjects?.last)
            #expect(controller.indexPath(forObject: cherry) == IndexPath(item: 0, section: 3))
            #expect(
                IndexPath(row: 4, section: 2).section == 2 && IndexPath(row: 4, section: 2).row == 4
                    && IndexPath(item: 4, section: 2).item == 4)
        }
    }

    @Test func aRequestWithoutSortDescriptorsIsAnError() throws {
        let context = try makeContext(Self.model())
        let request = NSFetchRequest<NSManagedObject>(entityName: "Photo")
        let controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        #expect(throws: NSError.self) { try context.performAndWait { try controller.performFetch() } }
    }

    @Test func withoutADelegateNothingIsFollowed() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let controller = NSFetchedResultsController(
                fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
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
            let controller = NSFetchedResultsController(
                fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil
            )
            let recorder = TableRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            recorder.load(controller)

            b.setValue(0, forKey: "rank")  // moves before a
            a.setValue("renamed", forKey: "title")  // stays: an update
            Self.insert("c", group: "g2", rank: 1, into: context)  // a new section
            #expect(recorder.events.isEmpty, "nothing is reported before the event ends")
            context.processPendingChanges()
            #expect(recorder.events.first == "will" && recorder.events.last == "did")
            #expect(recorder.events.contains("section insert 1"))
            #expect(recorder.events.contains("insert - [1, 0]"))
            #expect(recorder.events.contains("update [0, 0] [0, 1]"))
            #expect(recorder.events.contains("move [0, 1] [0, 0]"))
            #expect(
                recorder.sections.map(\.rows)
                    == (controller.sections ?? []).map { ($0.objects ?? []).map { ObjectIdentifier($0 as AnyObject) } })

            recorder.events = []
            a.setValue(-1, forKey: "rank")  // stops matching the predicate
            context.processPendingChanges()
            #expect(recorder.events == ["will", "delete [0, 1] -", "did"])
            recorder.events = []
            context.delete(b)  // the last of its section
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
            let controller = NSFetchedResultsController(
                fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
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
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: nil)
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["x", "y"])
            #expect(controller.object(at: IndexPath(row: 0, section: 1))["title"] as? String == "b")
        }
    }

    @Test func theDelegateSeesOneControllerWhateverItsResultType() throws {
        final class Identity: NSFetchedResultsControllerDelegate {
            var seen: NSFetchedResultsController<NSFetchRequestResult>?
            func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
                seen = controller
            }
        }
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let controller = NSFetchedResultsController(
                fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
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
}
