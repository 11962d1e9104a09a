@testable import OpenCoreDataCore
import Foundation
import Testing

/// An incremental store whose answers each test sets: a folder of notes kept as values by
/// reference, with knobs for the mistakes a subclass can make.
private final class ScriptedStore: NSIncrementalStore, @unchecked Sendable {
    static let typeName = "ScriptedIncrementalStoreTests"
    /// Values by reference ("note-1", "folder"), relationships as references.
    var values: [String: [String: Any]] = [:]
    /// What `execute(_:with:)` returns for fetches instead of its answer, when set.
    var fetchAnswer: Any?
    /// Extra IDs `obtainPermanentIDs(for:)` returns (a mistake).
    var extraIDs = 0
    /// Whether nodes carry the folder's to-many.
    var nodesCarryToManys = false
    private(set) var relationshipCalls = 0
    /// The entity and reference of each object `newValuesForObject(with:with:)` was asked for.
    private(set) var nodeRequests: [(entity: String, reference: String)] = []
    private(set) var saves = 0
    private(set) var lastFetch: NSFetchRequest<NSFetchRequestResult>?

    override func loadMetadata() throws {
        metadata = [NSStoreTypeKey: Self.typeName, NSStoreUUIDKey: "7E1A9F44-6B1E-4C5D-9D0B-3B3A2C1D0E0F"]
    }

    private func id(_ reference: String) -> NSManagedObjectID {
        let model = persistentStoreCoordinator!.managedObjectModel
        return newObjectID(
            for: model.entitiesByName[reference.hasPrefix("note") ? "Note" : "Folder"]!, referenceObject: reference)
    }

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        if request is NSSaveChangesRequest {
            saves += 1
            return [Any]()
        }
        let fetch = try #require(request as? NSFetchRequest<NSFetchRequestResult>)
        lastFetch = fetch
        if let fetchAnswer { return fetchAnswer }
        let matching = values.keys.filter { $0.hasPrefix(fetch.entity?.name == "Note" ? "note" : "folder") }.sorted()
        return fetch.resultType == .countResultType ? [matching.count] : matching.map(id)
    }

    override func newValuesForObject(
        with objectID: NSManagedObjectID, with context: NSManagedObjectContext
    ) throws
        -> NSIncrementalStoreNode
    {
        let reference = referenceObject(for: objectID) as? String ?? ""
        nodeRequests.append((objectID.entity.name ?? "?", reference))
        guard var stored = values[reference] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectReferentialIntegrityError)
        }
        if let folder = stored["folder"] as? String { stored["folder"] = id(folder) }
        if let notes = stored["notes"] as? [String] {
            stored["notes"] = nil
            if nodesCarryToManys { stored["notes"] = notes.map(id) }
        }
        return NSIncrementalStoreNode(objectID: objectID, withValues: stored, version: 1)
    }

    override func newValue(
        forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
        with context: NSManagedObjectContext?
    ) throws -> Any {
        relationshipCalls += 1
        let stored = values[referenceObject(for: objectID) as? String ?? ""] ?? [:]
        if relationship.isToMany { return (stored[relationship.name] as? [String] ?? []).map(id) }
        return (stored[relationship.name] as? String).map(id) ?? NSNull()
    }

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        (0..<(array.count + extraIDs)).map { _ in id("note-\(UUID().uuidString)") }
    }
}

/// A subclass that implements only `loadMetadata()`.
private final class BareStore: NSIncrementalStore, @unchecked Sendable {
    override func loadMetadata() throws {
        metadata = [NSStoreTypeKey: "BareIncrementalStoreTests", NSStoreUUIDKey: UUID().uuidString]
    }
}

@Suite struct IncrementalStoreBackendTests {
    init() {
        NSPersistentStoreCoordinator.registerStoreClass(ScriptedStore.self, type: ScriptedStore.typeName)
        NSPersistentStoreCoordinator.registerStoreClass(BareStore.self, type: "BareIncrementalStoreTests")
    }

    static func model() -> NSManagedObjectModel {
        let note = NSEntityDescription()
        note.name = "Note"
        let folder = NSEntityDescription()
        folder.name = "Folder"
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        let words = NSAttributeDescription()
        words.name = "words"
        words.attributeType = .integer64AttributeType
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        let notes = NSRelationshipDescription()
        notes.name = "notes"
        notes.destinationEntity = note
        notes.maxCount = 0
        let inFolder = NSRelationshipDescription()
        inFolder.name = "folder"
        inFolder.destinationEntity = folder
        inFolder.maxCount = 1
        notes.inverseRelationship = inFolder
        inFolder.inverseRelationship = notes
        note.properties = [title, words, inFolder]
        folder.properties = [name, notes]
        // One inheritance tree (one table), so a save's version checks group both entities.
        let item = NSEntityDescription()
        item.name = "Item"
        item.isAbstract = true
        item.subentities = [note, folder]
        let model = NSManagedObjectModel()
        model.entities = [item, note, folder]
        return model
    }

    private func scripted(type: String = ScriptedStore.typeName) throws -> (NSManagedObjectContext, NSPersistentStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let store = try coordinator.addPersistentStore(
            ofType: type, configurationName: nil, at: URL(string: "memory://notes")!, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, store)
    }

    private func store() throws -> (NSManagedObjectContext, ScriptedStore) {
        let (context, store) = try scripted()
        let scripted = try #require(store as? ScriptedStore)
        scripted.values = [
            "folder": ["name": "Inbox", "notes": ["note-1", "note-2"]],
            "note-1": ["title": "One", "words": 3, "folder": "folder"],
            "note-2": ["title": "Two", "words": NSNumber(value: 5), "folder": "folder"],
        ]
        return (context, scripted)
    }

    @Test func aValueOfTheWrongTypeFailsTheFaultNamingTheStore() throws {
        let (context, store) = try store()
        store.values["note-1"]?["words"] = "three"
        let note = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first)
        #expect {
            try context.existingObject(with: note.objectID)
        } throws: { error in
            "\(error)".contains("The node ScriptedStore gave for") && "\(error)".contains("'words'")
        }
    }

    @Test func anAnswerThatIsNoArrayIsAnErrorNamingTheStore() throws {
        let (context, store) = try store()
        store.fetchAnswer = "all of them"
        #expect {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
        } throws: { error in
            "\(error)".contains("ScriptedStore.execute(_:with:) returned String")
        }
        store.fetchAnswer = [NSNumber(value: 1), NSNumber(value: 2)]
        #expect(throws: NSError.self) { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) }
    }

    @Test func theStoreGetsTheAppsUntypedRequestItselfAndACopyOfATypedOne() throws {
        let (context, store) = try store()
        let untyped = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
        _ = try context.fetch(untyped)
        #expect(store.lastFetch === untyped)
        let typed = NSFetchRequest<NSManagedObject>(entityName: "Note")
        typed.predicate = NSPredicate(format: "words > 2")
        typed.fetchLimit = 7
        _ = try context.fetch(typed)
        #expect(store.lastFetch?.predicate == typed.predicate)
        #expect(store.lastFetch?.fetchLimit == 7)
        #expect(store.lastFetch?.entity?.name == "Note")
    }

    @Test func wrongPermanentIDsFailTheSaveAndKeepTheChanges() throws {
        let (context, store) = try store()
        store.extraIDs = 1
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"])
        let note = NSManagedObject(entity: entity, insertInto: context)
        #expect {
            try context.save()
        } throws: { error in
            "\(error)".contains("obtainPermanentIDs(for:) must return one ID of the store per object")
        }
        #expect(store.saves == 0)
        #expect(context.hasChanges)
        store.extraIDs = 0
        try context.save()
        #expect(store.saves == 1)
        #expect(!note.objectID.isTemporaryID)
    }

    @Test func aToManyANodeCarriesIsUsedWithoutAskingAgain() throws {
        let (context, store) = try store()
        store.nodesCarryToManys = true
        let folder = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder")).first)
        let notes = try #require(folder.value(forKey: "notes") as? NSSet)
        #expect(notes.count == 2)
        #expect(store.relationshipCalls == 0, "the node held the to-many")
        store.nodesCarryToManys = false
        context.refresh(folder, mergeChanges: false)
        #expect((folder.value(forKey: "notes") as? NSSet)?.count == 2)
        #expect(store.relationshipCalls == 1, "a carried value is used once, then the store is asked")
    }

    @Test func aRelationshipNamingSomethingElseIsAnError() throws {
        let (context, store) = try store()
        store.values["note-1"]?["folder"] = "note-2"
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        let note = try #require(try context.fetch(request).first { ($0.value(forKey: "title") as? String) != "Two" })
        #expect {
            try context.existingObject(with: note.objectID)
        } throws: { error in
            "\(error)".contains("expected IDs of this store's Folder objects")
        }
    }

    @Test func missingOverridesThrowNamingTheMethod() throws {
        let (context, _) = try scripted(type: "BareIncrementalStoreTests")
        #expect {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
        } throws: { error in
            "\(error)".contains("does not override NSIncrementalStore.execute(_:with:)")
        }
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"])
        _ = NSManagedObject(entity: entity, insertInto: context)
        #expect {
            try context.save()
        } throws: { error in
            "\(error)".contains("does not override NSIncrementalStore.obtainPermanentIDs(for:)")
        }
    }

    @Test func versionChecksAskForEachObjectAsWhatItIs() throws {
        let (context, store) = try store()
        let note = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first)
        let folder = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder")).first)
        note.setValue(9, forKey: "words")
        folder.setValue("Archive", forKey: "name")
        try context.save()
        let asked = store.nodeRequests.filter { $0.reference == "folder" || $0.reference.hasPrefix("note") }
        #expect(asked.contains { $0.reference == "folder" })
        #expect(asked.allSatisfy { ($0.reference == "folder") == ($0.entity == "Folder") }, "\(asked)")
        #expect(store.saves == 1)
    }

    @Test func aCountRequestWithUnsavedChangesCountsThem() throws {
        let (context, _) = try store()
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"])
        _ = NSManagedObject(entity: entity, insertInto: context)
        let count = NSFetchRequest<NSNumber>(entityName: "Note")
        count.resultType = .countResultType
        #expect(try context.fetch(count).first?.intValue == 3)
        #expect(try context.count(for: count) == 3)
    }

    @Test func uriReferencesComeBackAsTheObjectsTheyName() throws {
        let (context, store) = try store()
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"])
        let coordinator = try #require(context.persistentStoreCoordinator)
        for reference in ["007", "users/42", "a b", "note-1"] as [Any] + [42, UUID()] {
            let id = store.newObjectID(for: entity, referenceObject: reference)
            let uri = id.uriRepresentation()
            #expect(coordinator.managedObjectID(forURIRepresentation: uri) == id, "\(reference): \(uri)")
        }
        #expect(
            store.newObjectID(for: entity, referenceObject: "users/42").uriRepresentation().absoluteString
                .hasSuffix("/Note/pusers%2F42"))
    }

    @Test func theCoordinatorReadsMetadataThroughTheSubclassAndLeavesItsDataAlone() throws {
        let url = URL(string: "memory://notes")!
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: ScriptedStore.typeName, at: url, options: nil)
        #expect(metadata[NSStoreUUIDKey] as? String == "7E1A9F44-6B1E-4C5D-9D0B-3B3A2C1D0E0F")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect(throws: NSError.self) {
            try coordinator.destroyPersistentStore(at: url, ofType: ScriptedStore.typeName, options: nil)
        }
        #expect(throws: NSError.self) {
            try coordinator.replacePersistentStore(
                at: url, destinationOptions: nil, withPersistentStoreFrom: url, sourceOptions: nil,
                ofType: ScriptedStore.typeName)
        }
    }
}
