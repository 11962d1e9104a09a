import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// A coordinator subclass that overrides the designated initializer, as Apple's allows.
final class CountingCoordinator: NSPersistentStoreCoordinator, @unchecked Sendable {
    let label: String

    override init(managedObjectModel model: NSManagedObjectModel) {
        label = "counting"
        super.init(managedObjectModel: model)
    }
}

/// A managed object class that overrides the designated initializer (Swift needs `required`).
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
@objc(StampedAuthor)
#endif
final class StampedAuthor: NSManagedObject {
    var createdBy = "unknown"

    #if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
    override init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        createdBy = "init(entity:insertInto:)"
    }
    #else
    required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        createdBy = "init(entity:insertInto:)"
    }
    #endif
}

/// `NSPersistentStoreCoordinator`, as Apple documents it.
final class NSPersistentStoreCoordinatorTests: XCTestCase {
    private let devNull = URL(fileURLWithPath: "/dev/null")

    func testDevNullIsAnEmptyInMemorySQLiteStore() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: devNull, options: nil)
        XCTAssertEqual(store.type, NSSQLiteStoreType)
        XCTAssertEqual(store.url, devNull)
        XCTAssertEqual(coordinator.persistentStores.count, 1)

        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        XCTAssertEqual(try context.count(for: NSFetchRequest<Author>(entityName: "Author")), 0, "a new store is empty")
        let author = Author(context: context)
        author.name = "Le Guin"
        try context.save()
        context.reset()
        XCTAssertEqual(try context.fetch(Author.fetchRequest()).map(\.name), ["Le Guin"], "saved rows read back")
    }

    func testEveryDevNullStoreIsItsOwnDatabase() throws {
        let first = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        first.persistentStoreCoordinator = try ConformanceModel.coordinator()
        Author(context: first).name = "Only in the first"
        try first.save()

        let second = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        second.persistentStoreCoordinator = try ConformanceModel.coordinator()
        XCTAssertEqual(try second.count(for: NSFetchRequest<Author>(entityName: "Author")), 0)
    }

    func testDestroyingADevNullStoreFailsAndLeavesTheDeviceAlone() throws {
        // Core Data refuses: a /dev/null store has no file to destroy.
        let coordinator = try ConformanceModel.coordinator()
        XCTAssertThrowsError(
            try coordinator.destroyPersistentStore(at: devNull, ofType: NSSQLiteStoreType, options: nil))
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/dev/null"))
        let type = try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
        XCTAssertEqual(type, .typeCharacterSpecial, "still the device, not a file")
    }

    func testContainerLoadsADevNullDescription() throws {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: ConformanceModel.make())
        let description = NSPersistentStoreDescription()
        description.url = devNull
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        XCTAssertNil(loadError)
        Book(context: container.viewContext).title = "Earthsea"
        try container.viewContext.save()
        XCTAssertEqual(try container.viewContext.count(for: NSFetchRequest<Book>(entityName: "Book")), 1)
    }

    // MARK: The Swift API of iOS 15 (typed store types) and store files

    /// A store file at `url` holding the authors named.
    private func makeStore(at url: URL, authors: [String]) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for name in authors { Author(context: context).name = name }
        try context.save()
        try coordinator.remove(store)
    }

    private func authors(at url: URL) throws -> [String] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let request = Author.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(keyPath: \Author.name, ascending: true)]
        return try context.fetch(request).compactMap(\.name)
    }

    func testTypedMetadataAndDestroy() throws {
        let url = try temporaryDirectory().appendingPathComponent("Library.sqlite")
        try makeStore(at: url, authors: ["Austen"])
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        XCTAssertEqual(metadata[NSStoreTypeKey] as? String, NSSQLiteStoreType)
        XCTAssertNotNil(metadata[NSStoreUUIDKey] as? String)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        try coordinator.destroyPersistentStore(at: url, type: .sqlite)
        XCTAssertTrue(coordinator.persistentStores.isEmpty, "destroying removes the store first")
        XCTAssertThrowsError(
            try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url), "no store is left")
    }

    func testDestroyTruncatesTheStoreToAnEmptyDatabase() throws {
        // Core Data empties an SQLite store in place rather than deleting its file, so
        // connections still holding it see an empty database, not a missing file.
        let url = try temporaryDirectory().appendingPathComponent("Library.sqlite")
        try makeStore(at: url, authors: ["Austen", "Brontë"])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: nil)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), "the file stays")
        let walSize = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
        XCTAssertEqual(walSize, 0, "no write-ahead log holds the old rows")
        XCTAssertThrowsError(
            try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url),
            "an empty database holds no store")
        XCTAssertEqual(try authors(at: url), [], "a store added there again starts empty")
    }

    func testDestroyingADestroyedStoreAgainSucceeds() throws {
        // Test suites destroy their store in every setUp: the empty database the first
        // destroy leaves must be destroyable again, and an empty file too.
        let url = try temporaryDirectory().appendingPathComponent("Again.sqlite")
        try makeStore(at: url, authors: ["Austen"])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: nil)
        try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: nil)
        XCTAssertEqual(try authors(at: url), [])
        let empty = try temporaryDirectory().appendingPathComponent("Empty.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        try coordinator.destroyPersistentStore(at: empty, ofType: NSSQLiteStoreType, options: nil)
    }

    func testDestroyRefusesAPathThatIsNotAStore() throws {
        let directory = try temporaryDirectory()
        let notes = directory.appendingPathComponent("notes.txt")
        try Data("keep me".utf8).write(to: notes)
        let folder = directory.appendingPathComponent("Folder.sqlite")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        XCTAssertThrowsError(try coordinator.destroyPersistentStore(at: notes, type: .sqlite))
        XCTAssertEqual(
            try Data(contentsOf: notes), Data("keep me".utf8), "a file that is not a store is left as it was")
        XCTAssertThrowsError(try coordinator.destroyPersistentStore(at: folder, type: .sqlite))
        var isDirectory: ObjCBool = false
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        let nowhere = directory.appendingPathComponent("Missing/Library.sqlite")
        XCTAssertThrowsError(
            try coordinator.destroyPersistentStore(at: nowhere, type: .sqlite), "a folder that is not there")
        XCTAssertFalse(FileManager.default.fileExists(atPath: nowhere.deletingLastPathComponent().path))
    }

    func testSetMetadataWritesIntoAStoreFileThatIsNotOpen() throws {
        let url = try temporaryDirectory().appendingPathComponent("Library.sqlite")
        try makeStore(at: url, authors: ["Austen"])
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let uuid = metadata[NSStoreUUIDKey] as? String
        metadata["lastSync"] = "2026-11-28"
        try NSPersistentStoreCoordinator.setMetadata(
            metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url, options: nil)
        let written = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: url, options: nil)
        XCTAssertEqual(written["lastSync"] as? String, "2026-11-28")
        XCTAssertEqual(written[NSStoreUUIDKey] as? String, uuid)
        XCTAssertEqual(written[NSStoreTypeKey] as? String, NSSQLiteStoreType)

        metadata["lastSync"] = "2026-11-29"
        try NSPersistentStoreCoordinator.setMetadata(metadata, type: .sqlite, at: url)
        XCTAssertEqual(
            try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)["lastSync"] as? String,
            "2026-11-29")
        XCTAssertEqual(try authors(at: url), ["Austen"], "the store still opens, its rows untouched")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        XCTAssertEqual(coordinator.metadata(for: store)["lastSync"] as? String, "2026-11-29")
    }

    func testReplaceCopiesIntoNothingAndOverAnExistingStore() throws {
        let directory = try temporaryDirectory()
        let (live, backup) = (
            directory.appendingPathComponent("Live.sqlite"), directory.appendingPathComponent("Backup/Copy.sqlite")
        )
        try makeStore(at: live, authors: ["Austen", "Brontë"])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        // The source may be open; "replacing emptiness" makes a copy.
        try coordinator.addPersistentStore(type: .sqlite, at: live)
        try coordinator.replacePersistentStore(at: backup, withPersistentStoreFrom: live, type: .sqlite)
        XCTAssertEqual(try authors(at: backup), ["Austen", "Brontë"])
        XCTAssertEqual(
            try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: backup)[NSStoreUUIDKey]
                as? String,
            try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: live)[NSStoreUUIDKey]
                as? String,
            "a copy is the same store")

        // Restoring over a store: the destination must not be in use here.
        let restored = directory.appendingPathComponent("Restored.sqlite")
        try makeStore(at: restored, authors: ["Carroll"])
        try coordinator.replacePersistentStore(
            at: restored, destinationOptions: nil, withPersistentStoreFrom: backup, sourceOptions: nil,
            ofType: NSSQLiteStoreType)
        XCTAssertEqual(try authors(at: restored), ["Austen", "Brontë"])
        XCTAssertThrowsError(
            try coordinator.replacePersistentStore(at: live, withPersistentStoreFrom: backup, type: .sqlite)
        ) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreOperationError)
        }
    }

    func testReplaceFromAMissingOrForeignFileLeavesTheDestination() throws {
        let directory = try temporaryDirectory()
        let destination = directory.appendingPathComponent("Keep.sqlite")
        try makeStore(at: destination, authors: ["Dickens"])
        let before = try Data(contentsOf: destination)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        XCTAssertThrowsError(
            try coordinator.replacePersistentStore(
                at: destination, withPersistentStoreFrom: directory.appendingPathComponent("Missing.sqlite"),
                type: .sqlite)
        ) { error in
            XCTAssertEqual((error as NSError).code, NSFileReadNoSuchFileError)
        }
        let text = directory.appendingPathComponent("notes.txt")
        try Data("not a store".utf8).write(to: text)
        XCTAssertThrowsError(
            try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: text, type: .sqlite)
        ) { error in
            XCTAssertEqual((error as NSError).code, NSFileReadCorruptFileErrorCode)
        }
        XCTAssertEqual(try Data(contentsOf: destination), before)
    }

    func testStoreChangesAreAnnouncedBeforeAndAfter() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        /// Notifications arrive on the posting thread, here this one; the box only satisfies Swift 6's checks.
        final class Log: @unchecked Sendable { var events: [String] = [] }
        let log = Log()
        let center = NotificationCenter.default
        let observers = [
            center.addObserver(forName: .NSPersistentStoreCoordinatorStoresWillChange, object: coordinator, queue: nil)
            { note in
                let added = (note.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore])?.count ?? 0
                let removed = (note.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore])?.count ?? 0
                log.events.append("will +\(added) -\(removed) (\(coordinator.persistentStores.count) stores)")
            },
            center.addObserver(forName: .NSPersistentStoreCoordinatorStoresDidChange, object: coordinator, queue: nil) {
                note in
                let added = (note.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore])?.count ?? 0
                let removed = (note.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore])?.count ?? 0
                log.events.append("did +\(added) -\(removed) (\(coordinator.persistentStores.count) stores)")
            },
            center.addObserver(forName: .NSPersistentStoreCoordinatorWillRemoveStore, object: nil, queue: nil) { note in
                if let store = note.object as? NSPersistentStore, coordinator.persistentStores.contains(store) {
                    log.events.append("will remove")
                }
            },
        ]
        defer { observers.forEach(center.removeObserver) }
        let store = try coordinator.addPersistentStore(type: .sqlite, at: devNull)
        try coordinator.remove(store)
        XCTAssertEqual(
            log.events,
            [
                "will +1 -0 (0 stores)", "did +1 -0 (1 stores)", "will +0 -1 (1 stores)", "will remove",
                "did +0 -1 (0 stores)",
            ])
        XCTAssertEqual(NSUUIDChangedPersistentStoresKey, "changedUUID")
    }

    func testSubclassesOverrideTheDesignatedInitializers() throws {
        let model = ConformanceModel.make()
        model.entities.first { $0.name == "Author" }?.managedObjectClassName = "StampedAuthor"
        let coordinator = CountingCoordinator(managedObjectModel: model)
        XCTAssertEqual(coordinator.label, "counting")
        try coordinator.addPersistentStore(type: .sqlite, at: devNull)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let author = StampedAuthor(context: context)
        XCTAssertEqual(author.createdBy, "init(entity:insertInto:)")
        author.setValue("Rhys", forKey: "name")
        try context.save()
        context.reset()
        let fetched = try XCTUnwrap(try context.fetch(NSFetchRequest<StampedAuthor>(entityName: "Author")).first)
        XCTAssertEqual(
            fetched.createdBy, "init(entity:insertInto:)", "fetched objects are made through the same initializer")
    }
}
