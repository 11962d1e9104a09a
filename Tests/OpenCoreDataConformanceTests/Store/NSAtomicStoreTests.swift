import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// An atomic store as apps write one: a JSON file, objects named by UUID strings, nodes
/// filled from managed objects by key-value coding.
final class JSONAtomicStore: NSAtomicStore, @unchecked Sendable {
    static let typeName = "JSONAtomicStoreTests"
    /// Makes `save()` throw, as a full disk would.
    var failsSaves = false
    private(set) var newNodes = 0
    private(set) var updates = 0
    private(set) var removals = 0

    override func load() throws {
        guard let url, let model = persistentStoreCoordinator?.managedObjectModel,
            let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any],
            let uuid = root["uuid"] as? String, let objects = root["objects"] as? [[String: Any]]
        else {
            throw NSError(domain: "JSONAtomicStore", code: 1, userInfo: [NSLocalizedDescriptionKey: "not a JSON store"])
        }
        metadata = [NSStoreTypeKey: Self.typeName, NSStoreUUIDKey: uuid]
        var nodes: [String: NSAtomicStoreCacheNode] = [:]
        for object in objects {
            guard let name = object["entity"] as? String, let entity = model.entitiesByName[name],
                let reference = object["id"] as? String
            else { continue }
            nodes[reference] = NSAtomicStoreCacheNode(objectID: objectID(for: entity, referenceObject: reference))
        }
        for object in objects {
            guard let reference = object["id"] as? String, let node = nodes[reference] else { continue }
            for (key, value) in object["attributes"] as? [String: Any] ?? [:] {
                node.setValue(key == "born" ? Date(timeIntervalSince1970: value as? Double ?? 0) : value, forKey: key)
            }
            if let author = object["author"] as? String { node.setValue(nodes[author], forKey: "author") }
            if let books = object["books"] as? [String] {
                node.setValue(Set(books.compactMap { nodes[$0] }), forKey: "books")
            }
        }
        addCacheNodes(Set(nodes.values))
    }

    override func save() throws {
        if failsSaves {
            throw NSError(domain: "JSONAtomicStore", code: 7, userInfo: [NSLocalizedDescriptionKey: "the disk is full"])
        }
        guard let url else { return }
        var objects: [[String: Any]] = []
        for node in cacheNodes() {
            var object: [String: Any] = [
                "entity": node.objectID.entity.name ?? "", "id": referenceObject(for: node.objectID),
            ]
            var attributes: [String: Any] = [:]
            for name in node.objectID.entity.attributesByName.keys {
                switch node.value(forKey: name) {
                case let date as Date: attributes[name] = date.timeIntervalSince1970
                case let value?: attributes[name] = value
                case nil: break
                }
            }
            object["attributes"] = attributes
            if let author = node.value(forKey: "author") as? NSAtomicStoreCacheNode {
                object["author"] = referenceObject(for: author.objectID)
            }
            if let books = node.value(forKey: "books") as? Set<NSAtomicStoreCacheNode> {
                object["books"] = books.map { referenceObject(for: $0.objectID) }
            }
            objects.append(object)
        }
        let root: [String: Any] = ["uuid": metadata[NSStoreUUIDKey] as? String ?? "", "objects": objects]
        try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]).write(to: url, options: .atomic)
    }

    override func newReferenceObject(for managedObject: NSManagedObject) -> Any { UUID().uuidString }

    override func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
        newNodes += 1
        let node = NSAtomicStoreCacheNode(objectID: managedObject.objectID)
        fill(node, from: managedObject)
        return node
    }

    override func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        updates += 1
        fill(node, from: managedObject)
    }

    override func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) { removals += cacheNodes.count }

    private func fill(_ node: NSAtomicStoreCacheNode, from object: NSManagedObject) {
        for name in object.entity.attributesByName.keys { node.setValue(object.value(forKey: name), forKey: name) }
        for (name, relationship) in object.entity.relationshipsByName {
            if relationship.isToMany {
                let members =
                    (object.value(forKey: name) as? NSSet)?.allObjects.compactMap { $0 as? NSManagedObject } ?? []
                node.setValue(Set(members.compactMap { cacheNode(for: $0.objectID) }), forKey: name)
            } else {
                node.setValue(
                    (object.value(forKey: name) as? NSManagedObject).flatMap { cacheNode(for: $0.objectID) },
                    forKey: name)
            }
        }
    }
}

/// `NSAtomicStore`, `NSAtomicStoreCacheNode` and the Binary store, as Apple documents them.
final class NSAtomicStoreTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "NSAtomicStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        NSPersistentStoreCoordinator.registerStoreClass(JSONAtomicStore.self, type: JSONAtomicStore.typeName)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func context(
        type: String, at url: URL, model: NSManagedObjectModel = ConformanceModel.make(),
        options: [AnyHashable: Any]? = nil
    ) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func authors(_ context: NSManagedObjectContext, _ predicate: NSPredicate? = nil) throws -> [Author] {
        let request = Author.fetchRequest()
        request.predicate = predicate
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request)
    }

    // MARK: A store class of the app's own

    func testRegisteredStoreClassSavesAndLoadsItsOwnFile() throws {
        XCTAssertNotNil(NSPersistentStoreCoordinator.registeredStoreTypes[JSONAtomicStore.typeName])
        let url = folder.appendingPathComponent("Library.json")
        let context = try context(type: JSONAtomicStore.typeName, at: url)
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first as? JSONAtomicStore)
        XCTAssertEqual(store.type, JSONAtomicStore.typeName)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: url.path), "a new store's file is written by its first save")
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"])], in: context)
        XCTAssertEqual(store.newNodes, 5, "one new node per inserted object")
        XCTAssertEqual(store.cacheNodes().count, 5)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        XCTAssertEqual((json["objects"] as? [Any])?.count, 5, "save() wrote every node")

        let reopened = try self.context(type: JSONAtomicStore.typeName, at: url)
        let austen = try XCTUnwrap(try authors(reopened, NSPredicate(format: "name == %@", "Austen")).first)
        XCTAssertEqual(Set((austen.books as? Set<Book>)?.compactMap(\.title) ?? []), ["Emma", "Persuasion"])
        let books = try reopened.fetch(NSFetchRequest<Book>(entityName: "Book"))
        XCTAssertEqual(books.count, 3)
        XCTAssertEqual(books.first { $0.title == "Middlemarch" }?.author?.name, "Eliot")
        let reloadedStore = try XCTUnwrap(
            reopened.persistentStoreCoordinator?.persistentStores.first as? JSONAtomicStore)
        XCTAssertEqual(reloadedStore.identifier, store.identifier, "the store's UUID comes from its file")
        for book in books {
            let reference = reloadedStore.referenceObject(for: book.objectID)
            XCTAssertEqual(
                reloadedStore.objectID(for: book.entity, referenceObject: reference), book.objectID,
                "reference objects name objects both ways")
            XCTAssertNotNil(reloadedStore.cacheNode(for: book.objectID))
        }
    }

    func testSaveRunsTheNodeCallbacksForEachChange() throws {
        let url = folder.appendingPathComponent("Callbacks.json")
        let context = try context(type: JSONAtomicStore.typeName, at: url)
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first as? JSONAtomicStore)
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"])], in: context)
        let updatesBefore = store.updates
        let emma = try XCTUnwrap(
            try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first { $0.title == "Emma" })
        emma.pages = 474
        let persuasion = try XCTUnwrap(
            try context.fetch(NSFetchRequest<Book>(entityName: "Book")).first { $0.title == "Persuasion" })
        context.delete(persuasion)
        try context.save()
        XCTAssertEqual(store.removals, 1, "willRemoveCacheNodes(_:) gets the deleted object's node")
        XCTAssertGreaterThan(store.updates, updatesBefore, "updateCacheNode(_:from:) runs for updated objects")
        XCTAssertEqual(store.cacheNode(for: emma.objectID)?.value(forKey: "pages") as? Int, 474)
        XCTAssertNil(store.cacheNode(for: persuasion.objectID))
        XCTAssertEqual(store.cacheNodes().count, 2)
    }

    func testAFailedSaveLeavesTheFileAndTheStoreAsTheyWere() throws {
        let url = folder.appendingPathComponent("Failing.json")
        let context = try context(type: JSONAtomicStore.typeName, at: url)
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first as? JSONAtomicStore)
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let saved = try Data(contentsOf: url)

        store.failsSaves = true
        let austen = try XCTUnwrap(try authors(context).first)
        austen.name = "Jane Austen"
        let persuasion = Book(context: context)
        persuasion.title = "Persuasion"
        persuasion.author = austen
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual((error as NSError).domain, "JSONAtomicStore", "the save fails with save()'s error")
            XCTAssertEqual((error as NSError).code, 7)
        }
        XCTAssertEqual(try Data(contentsOf: url), saved, "the file is as it was")
        let other = try ConformanceModel.context(sharing: context)
        XCTAssertEqual(try authors(other).map(\.name), ["Austen"], "the store does not show the failed save")
        XCTAssertEqual(try other.count(for: NSFetchRequest<Book>(entityName: "Book")), 1)
        XCTAssertEqual(store.cacheNodes().count, 2)
        XCTAssertEqual(store.cacheNode(for: austen.objectID)?.value(forKey: "name") as? String, "Austen")

        store.failsSaves = false
        try context.save()
        let reopened = try self.context(type: JSONAtomicStore.typeName, at: url)
        XCTAssertEqual(
            try authors(reopened).map(\.name), ["Jane Austen"], "the context kept its changes and saved them again")
        XCTAssertEqual(try reopened.count(for: NSFetchRequest<Book>(entityName: "Book")), 2)
    }

    func testAnUnknownStoreTypeIsRefused() {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        XCTAssertThrowsError(
            try coordinator.addPersistentStore(
                ofType: "NoSuchStoreType", configurationName: nil, at: folder.appendingPathComponent("x"), options: nil)
        )
    }

    // MARK: The Binary store

    func testBinaryStoreSavesTheGraphAndFetchesFromIt() throws {
        let url = folder.appendingPathComponent("Library.binary")
        let context = try context(type: NSBinaryStoreType, at: url)
        XCTAssertEqual(context.persistentStoreCoordinator?.persistentStores.first?.type, NSBinaryStoreType)
        try ConformanceModel.shelve(
            [
                ("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"]),
                ("Brontë", ["Jane Eyre", "Villette", "Shirley"]),
            ], in: context)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))

        let reopened = try self.context(type: NSBinaryStoreType, at: url)
        XCTAssertEqual(try authors(reopened).map(\.name), ["Austen", "Brontë", "Eliot"])
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.predicate = NSPredicate(format: "author.name BEGINSWITH %@", "B")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
        request.fetchLimit = 2
        XCTAssertEqual(try reopened.fetch(request).map(\.title), ["Villette", "Shirley"])
        XCTAssertEqual(try reopened.count(for: NSFetchRequest<Book>(entityName: "Book")), 6)
        let austen = try XCTUnwrap(try authors(reopened, NSPredicate(format: "books.@count == 2")).first)
        XCTAssertEqual(austen.name, "Austen")
        let uri = austen.objectID.uriRepresentation()
        let again = try self.context(type: NSBinaryStoreType, at: url)
        let id = try XCTUnwrap(
            again.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri),
            "URIs name the same object on the next launch")
        XCTAssertEqual((again.object(with: id) as? Author)?.name, "Austen")
    }

    func testBinaryStoreThroughAPersistentContainer() throws {
        let url = folder.appendingPathComponent("Container.binary")
        func load() throws -> NSPersistentContainer {
            let container = NSPersistentContainer(name: "Library", managedObjectModel: ConformanceModel.make())
            let description = NSPersistentStoreDescription(url: url)
            description.type = NSBinaryStoreType
            container.persistentStoreDescriptions = [description]
            var loadError: Error?
            container.loadPersistentStores { _, error in loadError = error }
            if let loadError { throw loadError }
            return container
        }
        let container = try load()
        try ConformanceModel.shelve([("Woolf", ["Orlando"])], in: container.viewContext)
        let reopened = try load()
        XCTAssertEqual(try authors(reopened.viewContext).map(\.name), ["Woolf"])
    }

    func testBinaryStoreMetadataIsReadableWithoutOpeningIt() throws {
        let url = folder.appendingPathComponent("Metadata.binary")
        let context = try context(type: NSBinaryStoreType, at: url)
        let store = try XCTUnwrap(context.persistentStoreCoordinator?.persistentStores.first)
        try ConformanceModel.shelve([("Austen", [])], in: context)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSBinaryStoreType, at: url, options: nil)
        XCTAssertEqual(metadata[NSStoreTypeKey] as? String, NSBinaryStoreType)
        XCTAssertEqual(metadata[NSStoreUUIDKey] as? String, store.identifier)
        XCTAssertTrue(ConformanceModel.make().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    func testBinaryStoreOfAnotherModelIsIncompatible() throws {
        let url = folder.appendingPathComponent("Versions.binary")
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: try context(type: NSBinaryStoreType, at: url))
        let changed = ConformanceModel.make()
        changed.entitiesByName["Author"]?.properties.append(
            ConformanceModel.attribute("nationality", .stringAttributeType))
        XCTAssertThrowsError(try context(type: NSBinaryStoreType, at: url, model: changed)) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreIncompatibleVersionHashError)
        }
    }

    func testAFileThatIsNotABinaryStoreIsRefused() throws {
        let url = folder.appendingPathComponent("NotAStore.binary")
        try Data("just some text".utf8).write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        XCTAssertThrowsError(
            try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: url, options: nil)
        )
        XCTAssertTrue(coordinator.persistentStores.isEmpty)
        XCTAssertEqual(try Data(contentsOf: url), Data("just some text".utf8), "the file is left alone")
    }

    func testBinaryStoreMigratesToSQLiteAndBack() throws {
        let binaryURL = folder.appendingPathComponent("Move.binary")
        let context = try context(type: NSBinaryStoreType, at: binaryURL)
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"])], in: context)
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        let sqlite = try coordinator.migratePersistentStore(
            try XCTUnwrap(coordinator.persistentStores.first), to: folder.appendingPathComponent("Move.sqlite"),
            options: nil, withType: NSSQLiteStoreType)
        XCTAssertEqual(sqlite.type, NSSQLiteStoreType)
        let onSQLite = try ConformanceModel.context(sharing: context)
        XCTAssertEqual(try authors(onSQLite).map(\.name), ["Austen", "Eliot"])
        XCTAssertEqual(try authors(onSQLite, NSPredicate(format: "name == 'Austen'")).first?.books?.count, 2)

        let back = try coordinator.migratePersistentStore(
            sqlite, to: folder.appendingPathComponent("Back.binary"), options: nil, withType: NSBinaryStoreType)
        XCTAssertEqual(back.type, NSBinaryStoreType)
        let reopened = try self.context(type: NSBinaryStoreType, at: folder.appendingPathComponent("Back.binary"))
        XCTAssertEqual(try authors(reopened).map(\.name), ["Austen", "Eliot"])
        XCTAssertEqual(try reopened.count(for: NSFetchRequest<Book>(entityName: "Book")), 3)
        XCTAssertEqual(try authors(reopened, NSPredicate(format: "name == 'Eliot'")).first?.books?.count, 1)
    }

    func testBinaryStoreAtDevNullLivesInMemory() throws {
        let context = try context(type: NSBinaryStoreType, at: URL(fileURLWithPath: "/dev/null"))
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        XCTAssertEqual(try authors(context).map(\.name), ["Austen"])
        XCTAssertEqual(
            try authors(try self.context(type: NSBinaryStoreType, at: URL(fileURLWithPath: "/dev/null"))).count, 0)
    }

    func testReadOnlyBinaryStoreRefusesSaves() throws {
        let url = folder.appendingPathComponent("ReadOnly.binary")
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: try context(type: NSBinaryStoreType, at: url))
        let saved = try Data(contentsOf: url)
        let context = try context(type: NSBinaryStoreType, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        XCTAssertEqual(try authors(context).map(\.name), ["Austen"])
        Author(context: context).name = "Eliot"
        XCTAssertThrowsError(try context.save())
        XCTAssertEqual(try Data(contentsOf: url), saved)
    }

    func testDestroyingABinaryStoreRemovesItsFile() throws {
        let url = folder.appendingPathComponent("Destroy.binary")
        let context = try context(type: NSBinaryStoreType, at: url)
        try ConformanceModel.shelve([("Austen", [])], in: context)
        let coordinator = try XCTUnwrap(context.persistentStoreCoordinator)
        try coordinator.destroyPersistentStore(at: url, ofType: NSBinaryStoreType, options: nil)
        XCTAssertTrue(coordinator.persistentStores.isEmpty)
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
    }
}
