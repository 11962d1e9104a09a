import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSManagedObjectContext`, as Apple documents it.
final class NSManagedObjectContextTests: XCTestCase {
    func testConcurrencyTypeHasItsCName() {
        let type: NSManagedObjectContextConcurrencyType = .privateQueueConcurrencyType
        let context = NSManagedObjectContext(concurrencyType: type)
        XCTAssertEqual(context.concurrencyType, .privateQueueConcurrencyType)
        XCTAssertEqual(NSManagedObjectContextConcurrencyType.mainQueueConcurrencyType.rawValue, 2)
        XCTAssertEqual(NSManagedObjectContextConcurrencyType.privateQueueConcurrencyType.rawValue, 1)
        XCTAssertEqual(NSManagedObjectContextConcurrencyType.confinementConcurrencyType.rawValue, 0)
    }

    func testAssignToTheStoreAnInsertedObjectIsSavedTo() throws {
        let context = try ConformanceModel.context()
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first)
        let author = Author(context: context)
        author.name = "Woolf"
        context.assign(author, to: store)
        try context.save()
        XCTAssertEqual(author.objectID.persistentStore, store)
        XCTAssertFalse(author.objectID.isTemporaryID)
    }

    // MARK: Parent and child contexts

    func testAfterTheParentSavesAChildFetchReturnsItsOwnObject() throws {
        let parent = try ConformanceModel.context()
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        let austen = Author(context: child)
        austen.name = "Austen"
        let emma = Book(context: child)
        emma.title = "Emma"
        emma.author = austen
        Author(context: child).name = "Brontë"
        try child.save()
        try parent.save()
        XCTAssertTrue(austen.objectID.isTemporaryID, "a child's objects keep their temporary IDs, as in Core Data")

        let request = Author.fetchRequest()
        request.predicate = NSPredicate(format: "name == 'Austen'")
        XCTAssertTrue(try child.fetch(request).first === austen, "one object per row in a context")
        let books = try child.fetch(Book.fetchRequest() as NSFetchRequest<Book>)
        XCTAssertTrue(books.first === emma)
        XCTAssertTrue(books.first?.author === austen, "relationships lead to the same object")

        let others = Author.fetchRequest()
        others.predicate = NSPredicate(format: "NOT (self IN %@)", [austen])
        XCTAssertEqual(try child.fetch(others).map(\.name), ["Brontë"])
        let byID = Author.fetchRequest()
        byID.predicate = NSPredicate(format: "self == %@", austen.objectID)
        XCTAssertTrue(try child.fetch(byID).first === austen)

        // The child keeps working with its object: a later change saves through the parent.
        austen.name = "Jane Austen"
        try child.save()
        try parent.save()
        let check = try ConformanceModel.context(sharing: parent)
        XCTAssertEqual(try check.fetch(Author.fetchRequest()).compactMap(\.name).sorted(), ["Brontë", "Jane Austen"])
    }

    func testAGrandchildKeepsItsObjectsAcrossTheRootsSave() throws {
        let root = try ConformanceModel.context()
        let middle = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        middle.parent = root
        let leaf = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        leaf.parent = middle
        let author = Author(context: leaf)
        author.name = "Woolf"
        try leaf.save()
        try middle.save()
        try root.save()
        XCTAssertTrue(try leaf.fetch(Author.fetchRequest()).first === author)
        let excluded = Author.fetchRequest()
        excluded.predicate = NSPredicate(format: "NOT (self IN %@)", [author])
        XCTAssertEqual(try leaf.fetch(excluded).count, 0)
    }

    // MARK: What change notifications carry

    /// The userInfo of every NSManagedObjectContextObjectsDidChange `context` posts while `body` runs.
    private func changes(
        of context: NSManagedObjectContext, during body: () throws -> Void
    ) rethrows -> [[AnyHashable: Any]] {
        final class Log: @unchecked Sendable { var infos: [[AnyHashable: Any]] = [] }
        let log = Log()
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
        ) {
            log.infos.append($0.userInfo ?? [:])
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try body()
        return log.infos
    }

    func testResetNamesTheInvalidatedObjectsByID() throws {
        let context = try ConformanceModel.context()
        let author = Author(context: context)
        author.name = "Morrison"
        try context.save()
        let id = author.objectID
        let infos = changes(of: context) { context.reset() }
        XCTAssertEqual(infos.count, 1)
        XCTAssertEqual(infos.first?[NSInvalidatedAllObjectsKey] as? [NSManagedObjectID], [id])
    }

    func testRefreshAllObjectsAnnouncesTheRefreshedObjects() throws {
        let context = try ConformanceModel.context()
        let author = Author(context: context)
        author.name = "Achebe"
        try context.save()
        let infos = changes(of: context) { context.refreshAllObjects() }
        XCTAssertEqual(infos.count, 1)
        XCTAssertEqual(infos.first?[NSRefreshedObjectsKey] as? Set<NSManagedObject>, [author])
        XCTAssertTrue(author.isFault)
        XCTAssertEqual(author.name, "Achebe")
    }

    func testRefreshWithoutMergingDiscardsUnsavedChanges() throws {
        let context = try ConformanceModel.context()
        let author = Author(context: context)
        author.name = "Eliot"
        try context.save()
        author.name = "Mary Ann Evans"
        XCTAssertTrue(context.hasChanges)
        let infos = changes(of: context) {
            context.refresh(author, mergeChanges: false)
            context.processPendingChanges()
        }
        XCTAssertTrue(author.isFault)
        XCTAssertFalse(author.hasChanges)
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(author.name, "Eliot")
        XCTAssertEqual(infos.last?[NSRefreshedObjectsKey] as? Set<NSManagedObject>, [author])
    }

    func testRefreshWithoutMergingTurnsAnInsertedObjectIntoAFault() throws {
        // "If flag is false, the context discards pending changes and the managed object
        // becomes a fault": for an unsaved object every value is a pending change.
        let context = try ConformanceModel.context()
        let author = Author(context: context)
        author.name = "Unsaved"
        XCTAssertFalse(author.isFault)
        context.refresh(author, mergeChanges: false)
        XCTAssertTrue(author.isFault)
        XCTAssertTrue(author.isInserted, "it stays inserted")
        XCTAssertTrue(context.insertedObjects.contains(author))
        author.willAccessValue(forKey: nil)
        XCTAssertFalse(author.isFault, "firing the fault makes it an object again")
        XCTAssertNil(author.name, "its unsaved values are gone")
    }

    func testAFaultWhoseContextWasResetFiresWithoutItsContext() throws {
        let context = try ConformanceModel.context()
        let author = Author(context: context)
        author.name = "Forgotten"
        try context.save()
        context.reset()
        XCTAssertTrue(author.isFault)
        XCTAssertNil(author.managedObjectContext)
        author.willAccessValue(forKey: nil)
        XCTAssertFalse(author.isFault, "firing a fault without a context leaves an object that is no longer a fault")
        XCTAssertNil(author.managedObjectContext)
    }

    func testATransientAttributeWithADefaultKeepsItAfterARefresh() throws {
        let entity = NSEntityDescription()
        entity.name = "Draft"
        let status = ConformanceModel.attribute("status", .stringAttributeType, defaultValue: "new")
        status.isTransient = true
        status.isOptional = false
        entity.properties = [ConformanceModel.attribute("body", .stringAttributeType), status]
        let context = try ConformanceModel.context(entities: [entity])
        let draft = NSManagedObject(entity: entity, insertInto: context)
        XCTAssertEqual(draft.value(forKey: "status") as? String, "new")
        draft.setValue("text", forKey: "body")
        try context.save()
        draft.setValue("edited", forKey: "status")
        context.refresh(draft, mergeChanges: false)
        XCTAssertEqual(draft.value(forKey: "status") as? String, "new", "a refreshed transient reads its default")
        XCTAssertEqual(draft.value(forKey: "body") as? String, "text")
    }

    func testASaveThatOnlyChangesMetadataWritesIt() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("metadata-\(UUID().uuidString).sqlite")
        addTeardownBlock {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var metadata = coordinator.metadata(for: store)
        metadata["lastSync"] = "2026-11-25"
        coordinator.setMetadata(metadata, for: store)
        XCTAssertFalse(context.hasChanges)
        try context.save()
        let onDisk = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        XCTAssertEqual(onDisk["lastSync"] as? String, "2026-11-25")
    }
}
