import Foundation
import GRDB
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// A journal app's store through four model versions (`Fixtures/Journal.xcdatamodeld`),
/// each opened by the next with automatic lightweight migration, checked on its data:
/// 1 → 2 renames an entity, an attribute and a relationship, adds a required attribute,
///   makes an attribute required (its default fills NULLs) and removes an entity;
/// 2 → 3 turns a to-one into a many-to-many, makes a to-many and a many-to-many ordered
///   and widens an integer;
/// 3 → 4 gives an entity a new abstract parent (its rows move to the parent's table),
///   makes the to-many unordered again and adds a uniqueness constraint.
@Suite struct MigrationChainTests {
    static let bigPhoto = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    static let smallPhoto = Data("thumbnail".utf8)

    private func version(_ name: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: try ModelFixtures.url("Journal.xcdatamodeld/\(name).xcdatamodel"))
    }

    /// `droppingDraft`: version 1's draft goes with its entity, which a migration does only
    /// when told to (`OpenCoreDataMigrationAllowsDataLossOption`).
    private func open(_ url: URL, _ name: String, droppingDraft: Bool = false) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try version(name))
        var options: [AnyHashable: Any] = [
            NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        ]
        if droppingDraft { options[OpenCoreDataMigrationAllowsDataLossOption] = true }
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func all(_ entity: String, in context: NSManagedObjectContext, by key: String) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try context.fetch(request)
    }

    private func names(_ objects: Any?, _ key: String) -> [String] {
        let list: [NSManagedObject]
        switch objects {
        case let set as NSOrderedSet: list = set.array.compactMap { $0 as? NSManagedObject }
        case let set as Set<NSManagedObject>: list = Array(set)
        case let set as NSSet: list = set.allObjects.compactMap { $0 as? NSManagedObject }
        default: list = []
        }
        return list.map { $0.value(forKey: key) as? String ?? "nil" }
    }

    private func integrityIsOK(_ url: URL) throws -> Bool {
        let database = try DatabaseQueue(path: url.path)
        defer { try? database.close() }
        return try database.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok"
    }

    /// Version 1's data: two authors, three places, four tags (one without a label),
    /// five entries (one with a photo stored outside the database), one draft.
    private func makeVersion1Store() throws -> URL {
        let url = temporaryStoreURL()
        let context = try open(url, "Journal")
        try context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let ada = insert("Author", ["name": "Ada"])
            let bo = insert("Author", ["name": "Bo"])
            let places = ["Oslo", "Rome", "Lima"].map { insert("Place", ["name": $0]) }
            let tags = ["home", "work", "trip"].map { insert("Tag", ["label": $0]) } + [insert("Tag", [:])]
            for index in 0..<5 {
                let entry = insert("Entry", ["title": "entry \(index)", "body": "body \(index)"])
                entry.setValue(index < 3 ? ada : bo, forKey: "author")
                if index < 3 { entry.setValue(places[index], forKey: "location") }
                entry.setValue(
                    Set(tags.enumerated().filter { ($0.offset + index) % 2 == 0 }.map(\.element)), forKey: "tags")
                if index == 0 { entry.setValue(Self.bigPhoto, forKey: "photo") }
                if index == 1 { entry.setValue(Self.smallPhoto, forKey: "photo") }
            }
            _ = insert("Draft", ["text": "unsent"])
            try context.save()
        }
        return url
    }

    @Test func fourVersionsMigrateOneAfterAnotherWithTheirData() throws {
        let url = try makeVersion1Store()

        // 1 → 2
        let v2 = try open(url, "Journal 2", droppingDraft: true)
        try v2.performAndWait {
            let writers = try all("Writer", in: v2, by: "name")
            #expect(writers.map { $0.value(forKey: "name") as? String } == ["Ada", "Bo"])
            #expect(writers.map { (($0.value(forKey: "entries") as? Set<NSManagedObject>)?.count ?? -1) } == [3, 2])
            let entries = try all("Entry", in: v2, by: "title")
            #expect(entries.map { $0.value(forKey: "text") as? String } == (0..<5).map { "body \($0)" })
            #expect(entries.allSatisfy { $0.value(forKey: "wordCount") as? Int32 == 0 })
            #expect(entries[0].value(forKey: "photo") as? Data == Self.bigPhoto)
            #expect(entries[1].value(forKey: "photo") as? Data == Self.smallPhoto)
            #expect(
                entries.map { ($0.value(forKey: "location") as? NSManagedObject)?.value(forKey: "name") as? String }
                    == ["Oslo", "Rome", "Lima", nil, nil])
            #expect(
                try all("Tag", in: v2, by: "label").map { $0.value(forKey: "label") as? String } == [
                    "home", "trip", "untitled", "work",
                ])
            #expect(v2.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Draft"] == nil)
        }
        #expect(try integrityIsOK(url))

        // 2 → 3
        let v3 = try open(url, "Journal 3")
        try v3.performAndWait {
            let entries = try all("Entry", in: v3, by: "title")
            #expect(
                entries.map { names($0.value(forKey: "places"), "name") } == [["Oslo"], ["Rome"], ["Lima"], [], []])
            #expect(entries.allSatisfy { $0.value(forKey: "wordCount") as? Int64 == 0 })
            let first = entries[0]
            let tags = try #require(first.value(forKey: "tags") as? NSOrderedSet)
            #expect(Set(names(tags, "label")) == ["home", "trip"])
            // Now ordered: give the orders a meaning that version 4 must keep.
            first.setValue(NSOrderedSet(array: tags.array.reversed()), forKey: "tags")
            let ada = try #require(first.value(forKey: "writer") as? NSManagedObject)
            let own = try #require(ada.value(forKey: "entries") as? NSOrderedSet)
            #expect(Set(names(own, "title")) == ["entry 0", "entry 1", "entry 2"])
            ada.setValue(NSOrderedSet(array: own.array.reversed()), forKey: "entries")
            // Many-to-many now: Oslo also holds entry 3.
            let oslo = try #require(
                try all("Place", in: v3, by: "name").first { $0.value(forKey: "name") as? String == "Oslo" })
            entries[3].setValue(Set([oslo]), forKey: "places")
            try v3.save()
        }
        let orderedTags = try v3.performAndWait {
            names(try all("Entry", in: v3, by: "title")[0].value(forKey: "tags"), "label")
        }
        #expect(try integrityIsOK(url))

        // 3 → 4
        let v4 = try open(url, "Journal 4")
        try v4.performAndWait {
            let entries = try all("Entry", in: v4, by: "title")
            #expect(entries.count == 5)
            #expect(try v4.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == 5)
            #expect(names(entries[0].value(forKey: "tags"), "label") == orderedTags)
            #expect(
                entries.map { Set(names($0.value(forKey: "places"), "name")) } == [
                    ["Oslo"], ["Rome"], ["Lima"], ["Oslo"], [],
                ])
            #expect(
                entries.map { ($0.value(forKey: "writer") as? NSManagedObject)?.value(forKey: "name") as? String } == [
                    "Ada", "Ada", "Ada", "Bo", "Bo",
                ])
            #expect(entries[0].value(forKey: "photo") as? Data == Self.bigPhoto)
            #expect(entries[1].value(forKey: "photo") as? Data == Self.smallPhoto)
            let tags = try all("Tag", in: v4, by: "label")
            #expect(tags.map { $0.value(forKey: "label") as? String } == ["home", "trip", "untitled", "work"])
            #expect(tags.map { names($0.value(forKey: "entries"), "title").count } == [3, 3, 2, 2])
            // New objects take keys that no migrated row has.
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: v4)
            entry.setValue("entry 5", forKey: "title")
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: v4)
            tag.setValue("new", forKey: "label")
            entry.setValue(NSOrderedSet(object: tag), forKey: "tags")
            try v4.save()
            #expect(try v4.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == 6)
        }
        // The uniqueness constraint came with the migration.
        try v4.performAndWait {
            let duplicate = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: v4)
            duplicate.setValue("home", forKey: "label")
            #expect(throws: (any Error).self) { try v4.save() }
        }
        #expect(try integrityIsOK(url))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(try version("Journal 4").isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(metadata[NSStoreModelVersionIdentifiersKey] as? [String] == ["4"])
    }

    @Test func versionOneOpensDirectlyUnderVersionFour() throws {
        let url = try makeVersion1Store()
        let v4 = try open(url, "Journal 4", droppingDraft: true)
        try v4.performAndWait {
            let entries = try all("Entry", in: v4, by: "title")
            #expect(entries.map { $0.value(forKey: "text") as? String } == (0..<5).map { "body \($0)" })
            #expect(
                entries.map { Set(names($0.value(forKey: "places"), "name")) } == [
                    ["Oslo"], ["Rome"], ["Lima"], [], [],
                ])
            #expect(
                entries.map { ($0.value(forKey: "writer") as? NSManagedObject)?.value(forKey: "name") as? String } == [
                    "Ada", "Ada", "Ada", "Bo", "Bo",
                ])
            #expect(entries[0].value(forKey: "photo") as? Data == Self.bigPhoto)
        }
    }

    @Test func aMigrationThatBreaksANewConstraintFailsNamingItAndChangesNothing() throws {
        let url = try makeVersion1Store()
        let v1 = try open(url, "Journal")
        try v1.performAndWait {
            let copy = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: v1)
            copy.setValue("home", forKey: "label")
            try v1.save()
        }
        #expect {
            _ = try open(url, "Journal 4", droppingDraft: true)
        } throws: { error in
            let error = error as NSError
            return error.code == NSMigrationConstraintViolationError && error.localizedDescription.contains("TagToTag")
                && error.localizedDescription.contains("\"home\"")
        }
        // Still version 1, whole.
        let again = try open(url, "Journal")
        #expect(
            try again.performAndWait { try again.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) } == 5)
        #expect(try integrityIsOK(url))
    }

    @Test func mergingTwoHierarchiesIsRefusedAsCoreDataRefusesIt() throws {
        let v3 = try version("Journal 3")
        let v4 = try version("Journal 4")
        let tag = try #require(v4.entitiesByName["Tag"])
        let item = try #require(v4.entitiesByName["Item"])
        item.subentities = item.subentities + [tag]
        #expect {
            try NSMappingModel.inferredMappingModel(forSourceModel: v3, destinationModel: v4)
        } throws: { error in
            let error = error as NSError
            return error.code == NSInferredMappingModelError && error.localizedDescription.contains("'Item'")
                && error.localizedDescription.contains("cannot merge")
        }
    }

    @Test func withNoSourceModelTheStoreIsRefusedAndUntouched() throws {
        // A store written with a model built in code: no bundle holds its version, and the
        // store caches no model (as those OpenCoreData wrote before it cached models).
        let old = ModelBuilder.entity("Sketch")
        old.properties = [ModelBuilder.attribute("title", .stringAttributeType)]
        let url = temporaryStoreURL()
        let context = try makeContext(ModelBuilder.model(old), url: url)
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Sketch", into: context).setValue(
                "first", forKey: "title")
            try context.save()
        }
        try context.persistentStoreCoordinator?.remove(
            try #require(context.persistentStoreCoordinator?.persistentStores.first))
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "DELETE FROM Z_MODELCACHE") }
        try queue.close()
        let files = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
        let bytes = try files.map { try Data(contentsOf: url.deletingLastPathComponent().appendingPathComponent($0)) }

        #expect {
            _ = try open(url, "Journal 2")
        } throws: { error in
            let error = error as NSError
            // Core Data's answer when asked to migrate without a source model.
            return error.code == NSMigrationMissingSourceModelError
                && error.localizedDescription.hasPrefix("Can't find the model the store at \(url.path) was made with")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted() == files)
        #expect(
            try files.map { try Data(contentsOf: url.deletingLastPathComponent().appendingPathComponent($0)) } == bytes)
    }

    @Test func automaticMigrationWithoutInferenceNeedsAMappingModel() throws {
        let url = try makeVersion1Store()
        let bytes = try Data(contentsOf: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try version("Journal 2"))
        #expect {
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                options: [
                    NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false,
                ])
        } throws: { error in
            (error as NSError).code == NSMigrationMissingMappingModelError
                && (error as NSError).localizedDescription.contains("version Journal of Journal.xcdatamodeld")
        }
        #expect(try Data(contentsOf: url) == bytes)
    }
}
