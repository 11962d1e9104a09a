import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// A table view as a results controller's delegate drives it: it keeps its own rows and
/// applies each batch of callbacks the way `UITableView.performBatchUpdates` does
/// (deleted rows and sections by their old positions, inserted ones by their new).
private final class TableViewDouble: NSObject, NSFetchedResultsControllerDelegate {
    var rows: [[NSManagedObject]] = []
    var log: [String] = []
    private var deletedRows: [IndexPath] = [], insertedRows: [(IndexPath, NSManagedObject)] = []
    private var deletedSections = IndexSet(), insertedSections = IndexSet()
    private var inBatch = false

    func reloadData(_ controller: NSFetchedResultsController<Book>) {
        rows = (controller.sections ?? []).map { ($0.objects as? [NSManagedObject]) ?? [] }
    }

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        XCTAssertFalse(inBatch)
        inBatch = true
        log.append("begin")
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {
        XCTAssertTrue(inBatch)
        switch type {
        case .insert: insertedSections.insert(sectionIndex); log.append("insert section \(sectionInfo.name)")
        case .delete: deletedSections.insert(sectionIndex); log.append("delete section \(sectionInfo.name)")
        default: XCTFail("sections are only inserted and deleted")
        }
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
        at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        XCTAssertTrue(inBatch)
        let object = anObject as! NSManagedObject
        let title = (object as? Book)?.title ?? "?"
        switch type {
        case .insert: insertedRows.append((newIndexPath!, object)); log.append("insert \(title)")
        case .delete: deletedRows.append(indexPath!); log.append("delete \(title)")
        case .move:
            deletedRows.append(indexPath!)
            insertedRows.append((newIndexPath!, object))
            log.append("move \(title)")
        case .update: log.append("update \(title)")
        @unknown default: XCTFail("unknown change")
        }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        for path in deletedRows.sorted(by: >) { rows[path.section].remove(at: path.row) }
        for section in deletedSections.reversed() { rows.remove(at: section) }
        for section in insertedSections { rows.insert([], at: section) }
        for (path, object) in insertedRows.sorted(by: { $0.0 < $1.0 }) {
            rows[path.section].insert(object, at: path.row)
        }
        deletedRows = []; insertedRows = []; deletedSections = IndexSet(); insertedSections = IndexSet()
        inBatch = false
        log.append("end")
    }
}

/// A collection view's delegate: only the difference of object IDs.
private final class DiffableDouble: NSObject, NSFetchedResultsControllerDelegate {
    var ids: [NSManagedObjectID] = []
    var calls = 0

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
    ) {
        calls += 1
        ids = ids.applying(diff) ?? []
    }
}

/// `NSFetchedResultsController`, as Apple documents it and as a table view controller uses it.
final class NSFetchedResultsControllerTests: XCTestCase {
    private var context: NSManagedObjectContext!

    override func setUpWithError() throws {
        context = try ConformanceModel.context()
        try ConformanceModel.shelve(
            [("Austen", ["Emma", "Persuasion"]), ("Woolf", ["Orlando", "The Waves"]), ("Brontë", ["Villette"])],
            in: context)
    }

    /// Books in sections by author, as the lecture's photographer list is.
    private func booksByAuthor(cacheName: String? = nil) -> NSFetchedResultsController<Book> {
        let request: NSFetchRequest<Book> = NSFetchRequest(entityName: "Book")
        request.sortDescriptors = [
            NSSortDescriptor(key: "author.name", ascending: true),
            NSSortDescriptor(key: "title", ascending: true),
        ]
        return NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: context,
            sectionNameKeyPath: "author.name", cacheName: cacheName)
    }

    private func titles(_ controller: NSFetchedResultsController<Book>) -> [[String]] {
        (controller.sections ?? []).map { (($0.objects as? [Book]) ?? []).map { $0.title ?? "" } }
    }

    func testARequestWithoutSortDescriptorsIsRefused() {
        let controller = NSFetchedResultsController(
            fetchRequest: Book.fetchRequest() as NSFetchRequest<Book>,
            managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        XCTAssertThrowsError(try controller.performFetch())
        XCTAssertNil(controller.fetchedObjects)
    }

    func testSectionsIndexTitlesAndIndexPaths() throws {
        let controller = booksByAuthor()
        XCTAssertNil(controller.sections, "nothing before performFetch")
        try controller.performFetch()
        XCTAssertEqual(controller.sections?.map(\.name), ["Austen", "Brontë", "Woolf"])
        XCTAssertEqual(controller.sections?.map(\.numberOfObjects), [2, 1, 2])
        XCTAssertEqual(controller.sectionIndexTitles, ["A", "B", "W"])
        XCTAssertEqual(controller.section(forSectionIndexTitle: "W", at: 2), 2)
        XCTAssertEqual(titles(controller), [["Emma", "Persuasion"], ["Villette"], ["Orlando", "The Waves"]])
        XCTAssertEqual(controller.fetchedObjects?.count, 5)

        let waves = controller.object(at: IndexPath(row: 1, section: 2))
        XCTAssertEqual(waves.title, "The Waves")
        XCTAssertEqual(controller.indexPath(forObject: waves), IndexPath(item: 1, section: 2))
        XCTAssertEqual(controller.indexPath(forObject: waves)?.item, 1)
    }

    func testTheDelegateDrivesATableViewThroughEveryKindOfChange() throws {
        let controller = booksByAuthor()
        let table = TableViewDouble()
        controller.delegate = table
        try controller.performFetch()
        table.reloadData(controller)

        func check(_ expected: [[String]], file: StaticString = #filePath, line: UInt = #line) {
            context.processPendingChanges()
            XCTAssertEqual(titles(controller), expected, file: file, line: line)
            XCTAssertEqual(
                table.rows.map { $0.map { ($0 as! Book).title ?? "" } }, expected, "the table applied the callbacks",
                file: file, line: line)
        }

        let eliot = Author(context: context)
        eliot.name = "Eliot"
        let middlemarch = Book(context: context)
        middlemarch.title = "Middlemarch"
        middlemarch.author = eliot
        check([["Emma", "Persuasion"], ["Villette"], ["Middlemarch"], ["Orlando", "The Waves"]])
        XCTAssertEqual(table.log, ["begin", "insert section Eliot", "insert Middlemarch", "end"])

        table.log = []
        let emma = controller.object(at: IndexPath(row: 0, section: 0))
        emma.title = "Sanditon"
        check([["Persuasion", "Sanditon"], ["Villette"], ["Middlemarch"], ["Orlando", "The Waves"]])
        XCTAssertEqual(table.log, ["begin", "move Sanditon", "end"])

        table.log = []
        emma.author = eliot
        check([["Persuasion"], ["Villette"], ["Middlemarch", "Sanditon"], ["Orlando", "The Waves"]])

        table.log = []
        context.delete(controller.object(at: IndexPath(row: 0, section: 1)))
        check([["Persuasion"], ["Middlemarch", "Sanditon"], ["Orlando", "The Waves"]])
        XCTAssertEqual(table.log, ["begin", "delete section Brontë", "delete Villette", "end"])

        table.log = []
        try context.save()
        context.processPendingChanges()
        XCTAssertFalse(table.log.contains("move Middlemarch"), "a save moves nothing: \(table.log)")

        context.undoManager = nil
        let orlando = controller.object(at: IndexPath(row: 0, section: 2))
        orlando.pages = 300
        table.log = []
        check([["Persuasion"], ["Middlemarch", "Sanditon"], ["Orlando", "The Waves"]])
        XCTAssertEqual(table.log, ["begin", "update Orlando", "end"])
    }

    func testTheDifferenceCallbackTakesPrecedence() throws {
        let controller = booksByAuthor()
        let collection = DiffableDouble()
        controller.delegate = collection
        try controller.performFetch()
        collection.ids = controller.fetchedObjects?.map(\.objectID) ?? []

        let book = Book(context: context)
        book.title = "Mrs Dalloway"
        book.author = controller.object(at: IndexPath(row: 0, section: 2)).author
        context.processPendingChanges()
        XCTAssertEqual(collection.calls, 1)
        XCTAssertEqual(collection.ids, controller.fetchedObjects?.map(\.objectID))

        try context.save()
        XCTAssertEqual(collection.ids, controller.fetchedObjects?.map(\.objectID), "permanent IDs after the save")
        XCTAssertFalse(collection.ids.contains { $0.isTemporaryID })
    }

    func testWithoutADelegateChangesAreNotFollowed() throws {
        let controller = booksByAuthor()
        try controller.performFetch()
        let book = Book(context: context)
        book.title = "Jacob's Room"
        book.author = controller.object(at: IndexPath(row: 0, section: 2)).author
        context.processPendingChanges()
        XCTAssertEqual(controller.fetchedObjects?.count, 5)
        try controller.performFetch()
        XCTAssertEqual(controller.fetchedObjects?.count, 6)
    }

    func testTheRequestMayChangeBetweenFetchesWithoutACache() throws {
        let controller = booksByAuthor()
        try controller.performFetch()
        controller.fetchRequest.predicate = NSPredicate(format: "%K BEGINSWITH %@", "title", "P")
        try controller.performFetch()
        XCTAssertEqual(titles(controller), [["Persuasion"]])
    }

    func testACachedControllerFetchesTheSameResults() throws {
        NSFetchedResultsController<Book>.deleteCache(withName: "Books")
        let controller = booksByAuthor(cacheName: "Books")
        XCTAssertEqual(controller.cacheName, "Books")
        controller.fetchRequest.fetchBatchSize = 2
        try controller.performFetch()
        XCTAssertEqual(titles(controller), [["Emma", "Persuasion"], ["Villette"], ["Orlando", "The Waves"]])
        NSFetchedResultsController<Book>.deleteCache(withName: "Books")
    }

    func testObjectIDAndDictionaryResults() throws {
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Book")
        ids.resultType = .managedObjectIDResultType
        ids.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
        let idController = NSFetchedResultsController(
            fetchRequest: ids, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try idController.performFetch()
        let first = try XCTUnwrap(idController.fetchedObjects?.first)
        XCTAssertEqual((context.object(with: first) as? Book)?.title, "Villette")

        let rows = NSFetchRequest<NSDictionary>(entityName: "Book")
        rows.resultType = .dictionaryResultType
        rows.propertiesToFetch = ["title"]
        rows.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let rowController = NSFetchedResultsController(
            fetchRequest: rows, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try rowController.performFetch()
        XCTAssertEqual(
            rowController.fetchedObjects?.compactMap { $0["title"] as? String },
            ["Emma", "Orlando", "Persuasion", "The Waves", "Villette"])
        XCTAssertEqual(rowController.sections?.first?.numberOfObjects, 5)
    }
}
