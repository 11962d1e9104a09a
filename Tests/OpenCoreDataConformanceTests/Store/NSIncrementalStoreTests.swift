import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// An incremental store as apps write one, after Apple's documentation: records in a
/// dictionary (written to a JSON file after each save), objects named by UUID strings,
/// predicates and sorts evaluated over each record's values, to-manys left out of nodes
/// and answered by `newValue(forRelationship:forObjectWith:with:)`.
final class JSONIncrementalStore: NSIncrementalStore, @unchecked Sendable {
    static let typeName = "JSONIncrementalStoreTests"

    /// One object: its entity, its values by property name (relationships as reference
    /// strings), and its version.
    struct Record {
        var entity: String
        var values: [String: Any]
        var version: UInt64
    }

    private(set) var records: [String: Record] = [:]
    /// The calls the store received, in order, for the tests to check.
    private(set) var calls: [String] = []
    /// How many contexts use each object (registrations minus unregistrations).
    private(set) var uses: [NSManagedObjectID: Int] = [:]
    /// Makes saves throw, as a server that is down would.
    var failsSaves = false

    private var model: NSManagedObjectModel? { persistentStoreCoordinator?.managedObjectModel }

    override func loadMetadata() throws {
        calls.append("loadMetadata")
        guard let url, url.path != "/dev/null", FileManager.default.fileExists(atPath: url.path) else {
            metadata = [NSStoreTypeKey: Self.typeName, NSStoreUUIDKey: Self.identifierForNewStore(at: url!)]
            return
        }
        guard let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any],
            let uuid = root["uuid"] as? String, let stored = root["records"] as? [String: [String: Any]]
        else {
            throw NSError(domain: "JSONIncrementalStore", code: 1, userInfo: [NSLocalizedDescriptionKey: "not a store"])
        }
        metadata = [NSStoreTypeKey: Self.typeName, NSStoreUUIDKey: uuid]
        for (reference, record) in stored {
            guard let entity = record["entity"] as? String, let version = record["version"] as? Int else { continue }
            var values = record["values"] as? [String: Any] ?? [:]
            if let born = values["born"] as? Double { values["born"] = Date(timeIntervalSince1970: born) }
            records[reference] = Record(entity: entity, values: values, version: UInt64(version))
        }
    }

    private func writeFile() throws {
        guard let url, url.path != "/dev/null" else { return }
        var stored: [String: Any] = [:]
        for (reference, record) in records {
            var values = record.values
            if let born = values["born"] as? Date { values["born"] = born.timeIntervalSince1970 }
            stored[reference] = ["entity": record.entity, "version": Int(record.version), "values": values]
        }
        let root: [String: Any] = ["uuid": metadata[NSStoreUUIDKey] as? String ?? "", "records": stored]
        try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]).write(to: url, options: .atomic)
    }

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        if let fetch = request as? NSFetchRequest<NSFetchRequestResult> {
            return try answer(fetch, with: context)
        }
        if let save = request as? NSSaveChangesRequest {
            return try write(save)
        }
        throw NSError(domain: "JSONIncrementalStore", code: 2, userInfo: [NSLocalizedDescriptionKey: "unsupported"])
    }

    private func answer(
        _ fetch: NSFetchRequest<NSFetchRequestResult>, with context: NSManagedObjectContext?
    ) throws
        -> [Any]
    {
        calls.append("fetch \(fetch.entity?.name ?? "?") resultType \(fetch.resultType.rawValue)")
        guard let entity = fetch.entity else { return [] }
        let names = Set(
            fetch.includesSubentities
                ? [entity.name ?? ""] + entity.subentities.compactMap(\.name) : [entity.name ?? ""])
        var matches: [(reference: String, values: [String: Any])] = []
        for (reference, record) in records where names.contains(record.entity) {
            // Relationships as the IDs they name, so predicates compare them with objects.
            var values = record.values
            for (name, relationship) in entity.relationshipsByName where !relationship.isToMany {
                if let destination = values[name] as? String {
                    values[name] = objectID(forReference: destination)
                }
            }
            if let predicate = fetch.predicate, !predicate.evaluate(with: values) { continue }
            matches.append((reference, values))
        }
        for descriptor in (fetch.sortDescriptors ?? []).reversed() {
            matches.sort { lhs, rhs in
                descriptor.compare(lhs.values, to: rhs.values) == .orderedAscending
            }
        }
        if fetch.fetchOffset > 0 { matches = Array(matches.dropFirst(fetch.fetchOffset)) }
        if fetch.fetchLimit > 0 { matches = Array(matches.prefix(fetch.fetchLimit)) }
        switch fetch.resultType {
        case .countResultType:
            return [NSNumber(value: matches.count)]
        case .managedObjectIDResultType:
            return matches.compactMap { objectID(forReference: $0.reference) }
        case .dictionaryResultType:
            let keys = (fetch.propertiesToFetch ?? []).compactMap {
                ($0 as? NSPropertyDescription)?.name ?? $0 as? String
            }
            return matches.map { match in
                NSDictionary(dictionary: match.values.filter { keys.isEmpty || keys.contains($0.key) })
            }
        default:
            guard let context else { return [] }
            return matches.compactMap { objectID(forReference: $0.reference).map(context.object(with:)) }
        }
    }

    private func write(_ save: NSSaveChangesRequest) throws -> [Any] {
        calls.append(
            "save inserted \(save.insertedObjects?.count ?? 0) updated \(save.updatedObjects?.count ?? 0) deleted \(save.deletedObjects?.count ?? 0)"
        )
        if failsSaves {
            throw NSError(
                domain: "JSONIncrementalStore", code: 503, userInfo: [NSLocalizedDescriptionKey: "the server is down"])
        }
        var next = records
        for object in save.insertedObjects ?? [] {
            next[reference(of: object)] = Record(
                entity: object.entity.name ?? "", values: values(of: object), version: 1)
        }
        for object in save.updatedObjects ?? [] {
            let key = reference(of: object)
            next[key]?.values = values(of: object)
            next[key]?.version += 1
        }
        for object in save.deletedObjects ?? [] { next[reference(of: object)] = nil }
        records = next
        try writeFile()
        return []
    }

    /// What the store keeps of an object: attributes as they are, relationships as references.
    private func values(of object: NSManagedObject) -> [String: Any] {
        var values: [String: Any] = [:]
        for name in object.entity.attributesByName.keys {
            if let value = object.value(forKey: name) { values[name] = value }
        }
        for (name, relationship) in object.entity.relationshipsByName {
            if relationship.isToMany {
                let members = (object.value(forKey: name) as? NSSet)?.allObjects as? [NSManagedObject] ?? []
                values[name] = members.map(reference(of:)).sorted()
            } else if let destination = object.value(forKey: name) as? NSManagedObject {
                values[name] = reference(of: destination)
            }
        }
        return values
    }

    private func reference(of object: NSManagedObject) -> String {
        referenceObject(for: object.objectID) as? String ?? ""
    }

    private func objectID(forReference reference: String) -> NSManagedObjectID? {
        guard let record = records[reference], let entity = model?.entitiesByName[record.entity] else { return nil }
        return newObjectID(for: entity, referenceObject: reference)
    }

    override func newValuesForObject(
        with objectID: NSManagedObjectID, with context: NSManagedObjectContext
    ) throws
        -> NSIncrementalStoreNode
    {
        let reference = referenceObject(for: objectID) as? String ?? ""
        calls.append("values \(reference)")
        guard let record = records[reference] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectReferentialIntegrityError)
        }
        var values: [String: Any] = [:]
        for name in objectID.entity.attributesByName.keys {
            if let value = record.values[name] { values[name] = value }
        }
        // To-ones in the node, to-manys left for newValue(forRelationship:forObjectWith:with:).
        for (name, relationship) in objectID.entity.relationshipsByName where !relationship.isToMany {
            values[name] = (record.values[name] as? String).flatMap(self.objectID(forReference:)) ?? NSNull()
        }
        values["notModeled"] = "dropped"
        return NSIncrementalStoreNode(objectID: objectID, withValues: values, version: record.version)
    }

    override func newValue(
        forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
        with context: NSManagedObjectContext?
    ) throws -> Any {
        let reference = referenceObject(for: objectID) as? String ?? ""
        calls.append("relationship \(relationship.name) of \(reference)")
        guard let record = records[reference] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectReferentialIntegrityError)
        }
        if relationship.isToMany {
            return (record.values[relationship.name] as? [String] ?? []).compactMap(self.objectID(forReference:))
        }
        return (record.values[relationship.name] as? String).flatMap(self.objectID(forReference:)) ?? NSNull()
    }

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        calls.append("obtainPermanentIDs \(array.count)")
        return array.map { newObjectID(for: $0.entity, referenceObject: UUID().uuidString) }
    }

    override func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {
        for id in objectIDs { uses[id, default: 0] += 1 }
    }

    override func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {
        for id in objectIDs { uses[id, default: 0] -= 1 }
    }

    /// Changes a record as another app writing to the same server would.
    func changeBehindTheContextsBack(_ reference: String, _ key: String, to value: Any?) {
        records[reference]?.values[key] = value
        records[reference]?.version += 1
    }

    func removeBehindTheContextsBack(_ reference: String) { records[reference] = nil }

    func clearCalls() { calls = [] }
}

/// Counts the change batches a results controller reports.
private final class ChangeCounter: NSObject, NSFetchedResultsControllerDelegate {
    var changes = 0

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        changes += 1
    }
}

/// A store whose `loadMetadata()` forgets to name the store.
final class NamelessIncrementalStore: NSIncrementalStore, @unchecked Sendable {
    override func loadMetadata() throws { metadata = [NSStoreTypeKey: "Nameless"] }
}

/// `NSIncrementalStore`, `NSIncrementalStoreNode` and `NSSaveChangesRequest`, as Apple
/// documents them, driven through contexts as apps drive them.
final class NSIncrementalStoreTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "NSIncrementalStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        NSPersistentStoreCoordinator.registerStoreClass(JSONIncrementalStore.self, type: JSONIncrementalStore.typeName)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func context(at url: URL? = nil) throws -> (NSManagedObjectContext, JSONIncrementalStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try coordinator.addPersistentStore(
            ofType: JSONIncrementalStore.typeName, configurationName: nil,
            at: url ?? folder.appendingPathComponent("Library.json"), options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, try XCTUnwrap(store as? JSONIncrementalStore))
    }

    private func authors(_ context: NSManagedObjectContext, _ predicate: NSPredicate? = nil) throws -> [Author] {
        let request = Author.fetchRequest()
        request.predicate = predicate
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request)
    }

    private func book(_ title: String, in context: NSManagedObjectContext) throws -> Book {
        let request = NSFetchRequest<Book>(entityName: "Book")
        request.predicate = NSPredicate(format: "title == %@", title)
        return try XCTUnwrap(try context.fetch(request).first)
    }

    // MARK: Adding the store

    func testARegisteredIncrementalTypeOpensThroughLoadMetadata() throws {
        let registered = try XCTUnwrap(NSPersistentStoreCoordinator.registeredStoreTypes[JSONIncrementalStore.typeName])
        XCTAssertTrue(registered == JSONIncrementalStore.self)
        let (_, store) = try context()
        XCTAssertEqual(store.type, JSONIncrementalStore.typeName)
        XCTAssertEqual(store.calls, ["loadMetadata"], "the coordinator calls loadMetadata() when it adds the store")
        let uuid = try XCTUnwrap(store.metadata[NSStoreUUIDKey] as? String)
        XCTAssertEqual(store.identifier, uuid, "the metadata's UUID is the store's identifier")
        XCTAssertNotNil(UUID(uuidString: uuid), "identifierForNewStore(at:) makes a UUID string")
    }

    func testAContainerLoadsAnIncrementalStoreFromItsDescription() throws {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: ConformanceModel.make())
        let description = NSPersistentStoreDescription(url: folder.appendingPathComponent("Container.json"))
        description.type = JSONIncrementalStore.typeName
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { loaded, error in
            XCTAssertEqual(loaded.type, JSONIncrementalStore.typeName)
            failure = error
        }
        XCTAssertNil(failure)
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? JSONIncrementalStore)
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: container.viewContext)
        let background = container.newBackgroundContext()
        let titles = try background.performAndWait {
            try background.fetch(NSFetchRequest<Book>(entityName: "Book")).compactMap(\.title)
        }
        XCTAssertEqual(titles, ["Emma"])
        XCTAssertEqual(store.records.count, 2)
    }

    func testLoadMetadataMustNameTheStore() throws {
        NSPersistentStoreCoordinator.registerStoreClass(NamelessIncrementalStore.self, type: "Nameless")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        XCTAssertThrowsError(
            try coordinator.addPersistentStore(
                ofType: "Nameless", configurationName: nil, at: folder.appendingPathComponent("x"), options: nil)
        ) { error in
            XCTAssertTrue("\(error)".contains("NSStoreUUIDKey"), "\(error)")
        }
        XCTAssertTrue(coordinator.persistentStores.isEmpty)
    }

    // MARK: Saving and fetching

    func testSavesGoThroughObtainPermanentIDsAndASaveChangesRequest() throws {
        let (context, store) = try context()
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"])], in: context)
        XCTAssertEqual(
            store.calls, ["loadMetadata", "obtainPermanentIDs 5", "save inserted 5 updated 0 deleted 0"],
            "permanent IDs first, then one save request with every inserted object")
        XCTAssertEqual(store.records.count, 5)
        let austen = try XCTUnwrap(try authors(context).first)
        XCTAssertFalse(austen.objectID.isTemporaryID)
        let reference = try XCTUnwrap(store.referenceObject(for: austen.objectID) as? String)
        XCTAssertNotNil(UUID(uuidString: reference), "the reference object obtainPermanentIDs(for:) chose")
        XCTAssertEqual(store.newObjectID(for: austen.entity, referenceObject: reference), austen.objectID)
        XCTAssertEqual((store.records[reference]?.values["books"] as? [String])?.count, 2)

        let emma = try book("Emma", in: context)
        emma.pages = 474
        let persuasion = try book("Persuasion", in: context)
        context.delete(persuasion)
        store.clearCalls()
        try context.save()
        XCTAssertEqual(
            store.calls.last, "save inserted 0 updated 2 deleted 1",
            "Emma and Austen (whose books changed) are updated, Persuasion deleted")
        let emmaReference = try XCTUnwrap(store.referenceObject(for: emma.objectID) as? String)
        XCTAssertEqual(store.records[emmaReference]?.values["pages"] as? Int32, 474)
        XCTAssertEqual(store.records[emmaReference]?.version, 2, "the store raised the saved object's version")
        XCTAssertEqual(store.records.count, 4)
    }

    func testAReopenedStoreFaultsObjectsInThroughNodes() throws {
        let url = folder.appendingPathComponent("Reopened.json")
        do {
            let (context, _) = try context(at: url)
            try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"])], in: context)
        }
        let (context, store) = try context(at: url)
        store.clearCalls()
        let found = try authors(context, NSPredicate(format: "name BEGINSWITH %@", "Au"))
        XCTAssertEqual(
            store.calls, ["fetch Author resultType 0"], "the fetch request goes to execute(_:with:) as it is")
        let austen = try XCTUnwrap(found.first)
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(austen.isFault, "the store answered with faults")
        XCTAssertEqual(austen.name, "Austen")
        let reference = try XCTUnwrap(store.referenceObject(for: austen.objectID) as? String)
        XCTAssertEqual(store.calls.last, "values \(reference)", "firing the fault asks newValuesForObject(with:with:)")
        XCTAssertFalse(austen.isFault)
        let titles = Set(((austen.books as? Set<Book>) ?? []).compactMap(\.title))
        XCTAssertEqual(titles, ["Emma", "Persuasion"])
        XCTAssertTrue(
            store.calls.contains("relationship books of \(reference)"),
            "a to-many the node left out comes from newValue(forRelationship:forObjectWith:with:)")
        let emma = try book("Emma", in: context)
        XCTAssertEqual(emma.author, austen, "a to-one comes from the node as an object ID")
        XCTAssertFalse(
            store.calls.contains { $0.hasPrefix("relationship author") }, "the node held the to-one: no extra call")
    }

    func testEveryResultTypeAndTheCount() throws {
        let (context, store) = try context()
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"])], in: context)
        let books = NSFetchRequest<Book>(entityName: "Book")
        books.predicate = NSPredicate(format: "pages == 0")
        XCTAssertEqual(try context.count(for: books), 3)
        XCTAssertEqual(store.calls.last, "fetch Book resultType 4", "a count goes to the store as a count request")

        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Author")
        ids.resultType = .managedObjectIDResultType
        ids.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        let authorIDs = try context.fetch(ids)
        XCTAssertEqual(authorIDs.count, 2)
        XCTAssertEqual(store.calls.last, "fetch Author resultType 1", "the store answers with the IDs")
        XCTAssertEqual((context.object(with: authorIDs[0]) as? Author)?.name, "Eliot")

        let names = NSFetchRequest<NSDictionary>(entityName: "Author")
        names.resultType = .dictionaryResultType
        names.propertiesToFetch = ["name"]
        names.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let dictionaries = try context.fetch(names)
        XCTAssertEqual(dictionaries.compactMap { $0["name"] as? String }, ["Austen", "Eliot"])
        XCTAssertEqual(store.calls.last, "fetch Author resultType 2")

        let window = Author.fetchRequest()
        window.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        window.fetchOffset = 1
        window.fetchLimit = 1
        XCTAssertEqual(try context.fetch(window).map(\.name), ["Eliot"])
    }

    func testUnsavedChangesOfTheContextCountInFetches() throws {
        let (context, _) = try context()
        try ConformanceModel.shelve([("Austen", ["Emma"]), ("Eliot", ["Middlemarch"])], in: context)
        let brontë = Author(context: context)
        brontë.name = "Brontë"
        let eliot = try XCTUnwrap(try authors(context, NSPredicate(format: "name == %@", "Eliot")).first)
        context.delete(eliot)
        XCTAssertEqual(try authors(context).map(\.name), ["Austen", "Brontë"])
        XCTAssertEqual(try context.count(for: Author.fetchRequest()), 2)
        let counting = NSFetchRequest<NSNumber>(entityName: "Author")
        counting.resultType = .countResultType
        XCTAssertEqual(try context.fetch(counting).first?.intValue, 2, "a count request counts unsaved changes too")
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Author")
        ids.resultType = .managedObjectIDResultType
        XCTAssertEqual(Set(try context.fetch(ids)).count, 2)
        XCTAssertTrue(try context.fetch(ids).contains(brontë.objectID))
        let firstOnly = Author.fetchRequest()
        firstOnly.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        firstOnly.fetchLimit = 1
        XCTAssertEqual(try context.fetch(firstOnly).map(\.name), ["Brontë"], "the window applies after the merge")
    }

    // MARK: Conflicts, failures, deleted objects

    func testAStaleSaveIsAMergeConflictAndPoliciesResolveIt() throws {
        let (first, store) = try context()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: first)
        let second = try ConformanceModel.context(sharing: first)
        let emmaHere = try book("Emma", in: first)
        let emmaThere = try book("Emma", in: second)
        XCTAssertEqual(emmaThere.title, "Emma")
        emmaHere.pages = 474
        try first.save()
        emmaThere.title = "Emma: A Novel"
        XCTAssertThrowsError(try second.save()) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectMergeError, "\(error)")
        }
        second.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try second.save()
        let reference = try XCTUnwrap(store.referenceObject(for: emmaHere.objectID) as? String)
        XCTAssertEqual(store.records[reference]?.values["title"] as? String, "Emma: A Novel")
        XCTAssertEqual(store.records[reference]?.values["pages"] as? Int32, 474, "the other save's change stays")
        XCTAssertEqual(store.records[reference]?.version, 3)
    }

    func testAFailedSaveThrowsTheStoresErrorAndKeepsTheChanges() throws {
        let (context, store) = try context()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let emma = try book("Emma", in: context)
        emma.pages = 474
        store.failsSaves = true
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual((error as NSError).code, 503)
        }
        XCTAssertTrue(context.hasChanges, "nothing was saved, so the changes are still to save")
        store.failsSaves = false
        try context.save()
        let reference = try XCTUnwrap(store.referenceObject(for: emma.objectID) as? String)
        XCTAssertEqual(store.records[reference]?.values["pages"] as? Int32, 474)
    }

    func testAnObjectTheStoreNoLongerHasIsAFaultThatCannotFire() throws {
        let (context, store) = try context()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let id = try book("Emma", in: context).objectID
        context.reset()
        store.removeBehindTheContextsBack(try XCTUnwrap(store.referenceObject(for: id) as? String))
        XCTAssertThrowsError(try context.existingObject(with: id))
        XCTAssertEqual(try context.count(for: NSFetchRequest<Book>(entityName: "Book")), 0)
    }

    func testRefreshingReadsTheStoreAgain() throws {
        let (context, store) = try context()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let austen = try XCTUnwrap(try authors(context).first)
        let reference = try XCTUnwrap(store.referenceObject(for: austen.objectID) as? String)
        store.changeBehindTheContextsBack(reference, "name", to: "Jane Austen")
        context.stalenessInterval = 0
        context.refresh(austen, mergeChanges: false)
        XCTAssertEqual(austen.name, "Jane Austen")
    }

    // MARK: Registration, URIs, other contexts

    func testContextsReportTheObjectsTheyUse() throws {
        let (context, store) = try context()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let austen = try XCTUnwrap(try authors(context).first)
        XCTAssertEqual(store.uses[austen.objectID], 1, "registered once, with its permanent ID")
        let other = try ConformanceModel.context(sharing: context)
        var held: [Author]? = try authors(other)
        XCTAssertEqual(store.uses[austen.objectID], 2, "each context that uses the object registers it")
        held = nil
        XCTAssertNil(held)
        XCTAssertEqual(store.uses[austen.objectID], 1, "an object released by the app is unregistered")
        let heldAgain = try authors(other)
        XCTAssertEqual(store.uses[austen.objectID], 2)
        other.reset()
        XCTAssertEqual(store.uses[austen.objectID], 1, "a reset unregisters the context's objects")
        XCTAssertEqual(heldAgain.count, 1)
        context.delete(austen)
        try context.save()
        XCTAssertEqual(store.uses[austen.objectID], 0, "a saved deletion unregisters the object")
    }

    func testURIsNameObjectsByTheirReferenceObjects() throws {
        let url = folder.appendingPathComponent("URIs.json")
        let uri: URL
        let reference: String
        do {
            let (context, store) = try context(at: url)
            try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
            let austen = try XCTUnwrap(try authors(context).first)
            uri = austen.objectID.uriRepresentation()
            reference = try XCTUnwrap(store.referenceObject(for: austen.objectID) as? String)
        }
        XCTAssertEqual(uri.lastPathComponent, "p\(reference)")
        let (context, store) = try context(at: url)
        let id = try XCTUnwrap(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
        XCTAssertEqual(store.referenceObject(for: id) as? String, reference, "the URI names the object on a new launch")
        XCTAssertEqual((try context.existingObject(with: id) as? Author)?.name, "Austen")
    }

    func testChildContextsAndMergesWorkAsWithAnyStore() throws {
        let (context, store) = try context()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let observer = try ConformanceModel.context(sharing: context)
        let austenThere = try XCTUnwrap(try authors(observer).first)
        XCTAssertEqual(austenThere.name, "Austen")

        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = context
        let austen = try XCTUnwrap(try authors(child).first)
        let persuasion = Book(context: child)
        persuasion.title = "Persuasion"
        persuasion.author = austen
        austen.name = "Jane Austen"
        try child.save()
        XCTAssertEqual(store.records.count, 2, "a child's save reaches the store only when its parent saves")
        try context.save()
        XCTAssertEqual(store.records.count, 3)
        NSManagedObjectContext.mergeChanges(
            fromRemoteContextSave: [NSUpdatedObjectsKey: [austenThere.objectID]], into: [observer])
        XCTAssertEqual(austenThere.name, "Jane Austen")
        XCTAssertEqual(((austenThere.books as? Set<Book>) ?? []).compactMap(\.title).sorted(), ["Emma", "Persuasion"])
    }

    func testAResultsControllerFollowsTheContext() throws {
        let url = folder.appendingPathComponent("Controller.json")
        do {
            let (context, _) = try context(at: url)
            try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"])], in: context)
        }
        let (context, store) = try context(at: url)
        let request = NSFetchRequest<Book>(entityName: "Book")
        // The store sorts by the records' own values (a key path through a relationship
        // would be the subclass's to follow).
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        request.fetchBatchSize = 20
        let controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        func titles() -> [String] { (controller.fetchedObjects ?? []).compactMap(\.title) }
        XCTAssertEqual(titles(), ["Emma", "Middlemarch", "Persuasion"])
        XCTAssertTrue(store.calls.contains("fetch Book resultType 0"))

        let eliot = try XCTUnwrap(try authors(context, NSPredicate(format: "name == %@", "Eliot")).first)
        let romola = Book(context: context)
        romola.title = "Romola"
        romola.author = eliot
        let delegate = ChangeCounter()
        controller.delegate = delegate
        context.processPendingChanges()
        XCTAssertEqual(titles(), ["Emma", "Middlemarch", "Persuasion", "Romola"])
        XCTAssertEqual(delegate.changes, 1)
        try context.save()
        XCTAssertEqual(store.records.count, 6)
    }

    func testBatchRequestsAreRefused() throws {
        let (context, _) = try context()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Book"))
        XCTAssertThrowsError(try context.execute(request)) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreUnsupportedRequestTypeError)
        }
    }
}
