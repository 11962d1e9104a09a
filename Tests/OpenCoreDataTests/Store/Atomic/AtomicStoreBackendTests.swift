@testable import OpenCoreDataCore
import Foundation
import Testing

/// A store whose file is a list of tag names and one folder pinning them all; it sets
/// relationships on the folder's side only, and counts its saves.
private final class PinboardStore: NSAtomicStore, @unchecked Sendable {
    static let typeName = "PinboardStoreTests"
    var saves = 0

    override func load() throws {
        guard let url, let model = persistentStoreCoordinator?.managedObjectModel,
            let folderEntity = model.entitiesByName["Folder"], let tagEntity = model.entitiesByName["Tag"]
        else { return }
        let names = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        let tags = names.map { name in
            let node = NSAtomicStoreCacheNode(objectID: objectID(for: tagEntity, referenceObject: "tag-\(name)"))
            node.setValue(name, forKey: "name")
            return node
        }
        let folder = NSAtomicStoreCacheNode(objectID: objectID(for: folderEntity, referenceObject: "board"))
        folder.setValue("Board", forKey: "name")
        folder.setValue(Set(tags), forKey: "pinned")
        let item = NSAtomicStoreCacheNode(objectID: objectID(for: model.entitiesByName["Item"]!, referenceObject: 7))
        item.setValue("first", forKey: "str")
        folder.setValue(NSOrderedSet(array: [item]), forKey: "items")
        addCacheNodes(Set(tags + [folder, item]))
    }

    override func save() throws { saves += 1 }
}

@Suite struct AtomicStoreBackendTests {
    init() {
        NSPersistentStoreCoordinator.registerStoreClass(PinboardStore.self, type: PinboardStore.typeName)
    }

    private func pinboard() throws -> (NSManagedObjectContext, PinboardStore) {
        let url = temporaryStoreURL("Pins").deletingPathExtension().appendingPathExtension("txt")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "red\nblue".write(to: url, atomically: true, encoding: .utf8)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BinaryStoreTests.model())
        let store = try #require(
            try coordinator.addPersistentStore(
                ofType: PinboardStore.typeName, configurationName: nil, at: url, options: nil) as? PinboardStore)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, store)
    }

    @Test func relationshipsSetOnOneSideAreReadFromBoth() throws {
        let (context, _) = try pinboard()
        let items = try BinaryStoreTests.fetch("Item", in: context)
        #expect(
            (items.first?.value(forKey: "folder") as? NSManagedObject)?.value(forKey: "name") as? String == "Board",
            "the node set only the folder's ordered to-many; the item's to-one follows")
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = NSPredicate(format: "folder.name == %@", "Board")
        #expect(try context.count(for: request) == 1)
        let folder = try #require(try BinaryStoreTests.fetch("Folder", in: context).first)
        #expect((folder.value(forKey: "pinned") as? NSSet)?.count == 2)
    }

    @Test func referenceObjectsRoundTripAndIntegersBecomeKeys() throws {
        let (context, store) = try pinboard()
        let tagEntity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Tag"])
        let red = store.objectID(for: tagEntity, referenceObject: "tag-red")
        #expect(store.objectID(for: tagEntity, referenceObject: "tag-red") == red)
        #expect(store.referenceObject(for: red) as? String == "tag-red")
        #expect((context.object(with: red)).value(forKey: "name") as? String == "red")
        let item = try #require(try BinaryStoreTests.fetch("Item", in: context).first)
        #expect(item.objectID.primaryKey == 7, "a positive integer reference is the object's key")
        #expect(store.referenceObject(for: item.objectID) as? Int == 7)
    }

    @Test func savesRunTheStoreAndNewObjectsGetReferences() throws {
        let (context, store) = try pinboard()
        let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        tag.setValue("green", forKey: "name")
        try context.save()
        #expect(store.saves == 1)
        #expect(!tag.objectID.isTemporaryID)
        let node = try #require(store.cacheNode(for: tag.objectID))
        #expect(node.value(forKey: "name") as? String == "green")
        #expect(
            store.referenceObject(for: tag.objectID) as? Int64 == tag.objectID.primaryKey,
            "the default reference object is the key")
        #expect(store.cacheNodes().count == 5)
    }

    @Test func conflictingSavesGoToTheMergePolicy() throws {
        let (context, _) = try pinboard()
        let other = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let mine = try #require(try BinaryStoreTests.fetch("Folder", in: context).first)
        let theirs = try #require(try BinaryStoreTests.fetch("Folder", in: other).first)
        _ = mine.value(forKey: "name")
        _ = theirs.value(forKey: "name")
        theirs.setValue("Theirs", forKey: "name")
        try other.save()
        mine.setValue("Mine", forKey: "name")
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.code == NSManagedObjectMergeError)
        context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try context.save()
        let third = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        third.persistentStoreCoordinator = context.persistentStoreCoordinator
        #expect(try BinaryStoreTests.fetch("Folder", in: third).first?.value(forKey: "name") as? String == "Mine")
    }
}
