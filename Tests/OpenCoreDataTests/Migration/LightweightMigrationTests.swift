import Foundation
import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQL
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

/// Lightweight migration: a store made with one model version opens under a later one,
/// migrated in SQL with an inferred mapping, its data intact.
@Suite struct LightweightMigrationTests {
    /// objc.io's Moody app: a store Core Data wrote with the first of six model versions.
    static let moody = "objcio__core-data__Moody"

    /// A copy of Moody's first-version store in a folder of its own.
    private func moodyStore() throws -> URL { try AppleStoreFixtures.copyOfStore(Self.moody) }

    private func version(_ name: String) throws -> NSManagedObjectModel {
        try #require(try AppleStoreFixtures.modelVersions(Self.moody)[name])
    }

    private func open(
        _ url: URL, with model: NSManagedObjectModel, migrating: Bool = true
    ) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let options: [AnyHashable: Any] = [
            NSMigratePersistentStoresAutomaticallyOption: migrating, NSInferMappingModelAutomaticallyOption: migrating,
        ]
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Every mood's remote identifier and country code, read through the first model.
    private func moods(at url: URL, identifierKey: String, model: NSManagedObjectModel) throws -> [String: Int] {
        let context = try open(url, with: model, migrating: false)
        return try context.performAndWait {
            var result: [String: Int] = [:]
            for mood in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Mood")) {
                let country = mood.value(forKey: "country") as? NSManagedObject
                result[mood.value(forKey: identifierKey) as? String ?? "-"] =
                    (country?.value(forKey: "numericISO3166Code") as? Int) ?? -1
            }
            return result
        }
    }

    /// Every store-level case, as the PostgreSQL engine runs them too.
    @Test(arguments: MigrationBehaviour.allCases)
    func onSQLite(_ behaviour: MigrationBehaviour) throws {
        try behaviour.run(on: .sqlite)
    }

    @Test func appleStoreMigratesToTheNextVersionWithItsData() throws {
        let url = try moodyStore()
        let before = try moods(at: url, identifierKey: "remoteIdentifier", model: try version("Moody"))
        #expect(before.count == 4)

        let context = try open(url, with: try version("Moody 2"))
        try context.performAndWait {
            let moods = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Mood"))
            #expect(moods.count == 4)
            // `remoteIdentifier` was renamed `remoteID` (its renaming identifier); `rating` is new, with default 0.
            var after: [String: Int] = [:]
            for mood in moods {
                #expect(mood.value(forKey: "rating") as? Int == 0)
                let country = mood.value(forKey: "country") as? NSManagedObject
                after[mood.value(forKey: "remoteID") as? String ?? "-"] =
                    (country?.value(forKey: "numericISO3166Code") as? Int) ?? -1
            }
            #expect(after == before)
            // The migrated store takes new objects with fresh keys.
            let mood = NSEntityDescription.insertNewObject(forEntityName: "Mood", into: context)
            mood.setValue(Date(), forKey: "date")
            mood.setValue(Int16(5), forKey: "rating")
            try context.save()
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(try version("Moody 2").isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(
            try DatabaseQueue(path: url.path).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
        // Opening again needs no migration.
        let again = try open(url, with: try version("Moody 2"), migrating: false)
        #expect(
            try again.performAndWait { try again.count(for: NSFetchRequest<NSManagedObject>(entityName: "Mood")) } == 5)
    }

    @Test func aStoreSkipsVersionsAndLeavesAnInheritanceHierarchy() throws {
        let url = try moodyStore()
        let original = try open(url, with: try version("Moody"), migrating: false)
        let regions = try original.performAndWait {
            try original.fetch(NSFetchRequest<NSManagedObject>(entityName: "Country")).compactMap {
                $0.value(forKey: "numericISO3166Code") as? Int
            }.sorted()
        }
        // Version 4 moved Country and Continent out of GeographicRegion, each into a table of its own.
        let context = try open(url, with: try version("Moody 4"))
        try context.performAndWait {
            let countries = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Country"))
            #expect(countries.compactMap { $0.value(forKey: "numericISO3166Code") as? Int }.sorted() == regions)
            let moods = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Mood"))
            #expect(moods.count == 4)
            #expect(
                moods.allSatisfy {
                    ($0.value(forKey: "country") as? NSManagedObject)?.entity.name == "Country"
                        || $0.value(forKey: "country") == nil
                })
        }
        #expect(
            try DatabaseQueue(path: url.path).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }

    @Test func withoutTheOptionsTheStoreIsRefusedAndUntouched() throws {
        let url = try moodyStore()
        let original = try Data(contentsOf: url)
        #expect(throws: (any Error).self) { try open(url, with: try version("Moody 2"), migrating: false) }
        #expect(try Data(contentsOf: url) == original)
    }

    @Test func ownStoresMigrateAddingRenamingAndRemoving() throws {
        // Version 1: Note(title, body, folder) ⟷ Folder(name, notes); version 2 renames
        // body → text, drops Folder.name, adds Note.pinned (required, default NO) and a Tag entity.
        func model(version: Int) -> NSManagedObjectModel {
            let note = ModelBuilder.entity("Note")
            let folder = ModelBuilder.entity("Folder")
            var noteProperties: [NSPropertyDescription] = [ModelBuilder.attribute("title", .stringAttributeType)]
            if version == 1 {
                noteProperties.append(ModelBuilder.attribute("body", .stringAttributeType))
                folder.properties = [ModelBuilder.attribute("name", .stringAttributeType)]
            } else {
                let text = ModelBuilder.attribute("text", .stringAttributeType)
                text.renamingIdentifier = "body"
                noteProperties += [
                    text, ModelBuilder.attribute("pinned", .booleanAttributeType, optional: false, defaultValue: false),
                ]
            }
            note.properties = noteProperties
            let (notes, owner) = ModelBuilder.pair(
                "notes", from: folder, toMany: true, "folder", to: note, toMany: false)
            folder.properties += [notes]
            note.properties += [owner]
            var entities = [folder, note]
            if version == 2 { entities.append(ModelBuilder.entity("Tag")) }
            let model = ModelBuilder.model(entities[0], entities[1])
            if version == 2 { model.entities.append(entities[2]) }
            return model
        }
        let url = temporaryStoreURL()
        let v1 = try makeContext(model(version: 1), url: url)
        try v1.performAndWait {
            let folder = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: v1)
            folder.setValue("Inbox", forKey: "name")
            for index in 0..<3 {
                let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: v1)
                note.setValue("note \(index)", forKey: "title")
                note.setValue("body \(index)", forKey: "body")
                note.setValue(folder, forKey: "folder")
            }
            try v1.save()
        }
        let migrated = model(version: 2)
        // A model built in code has no bundle: the store's own versions are found by hash among those searched.
        let source = model(version: 1)
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: migrated)
        #expect(mapping.entityMappings.map(\.mappingType).contains(.addEntityMappingType))
        let noteMapping = try #require(mapping.entityMappingsByName["NoteToNote"])
        #expect(noteMapping.mappingType == .transformEntityMappingType)
        #expect(
            noteMapping.attributeMappings?.first { $0.name == "text" }?.valueExpression?.description == "$source.body")

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: migrated)
        try migrated.validateForUse()
        try coordinator.performAndWait {
            let database = try DatabaseQueue(path: url.path)
            try database.write { db in
                let sourceSchema = SQLSchema(
                    entities: {
                        source.freeze(); return source.entities
                    }())
                try SQLiteMigration(
                    db: db, source: sourceSchema, destination: SQLSchema(entities: migrated.entities),
                    mapping: mapping
                ).run()
                try SQLiteSchemaCheck.verify(db, schema: SQLSchema(entities: migrated.entities), url: url)
            }
            try database.close()
        }
        let reopened = NSPersistentStoreCoordinator(managedObjectModel: migrated)
        try reopened.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [NSIgnorePersistentStoreVersioningOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = reopened
        try context.performAndWait {
            let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).sorted {
                ($0.value(forKey: "title") as? String ?? "") < ($1.value(forKey: "title") as? String ?? "")
            }
            #expect(notes.map { $0.value(forKey: "text") as? String } == ["body 0", "body 1", "body 2"])
            #expect(notes.allSatisfy { $0.value(forKey: "pinned") as? Bool == false })
            #expect(Set(notes.compactMap { ($0.value(forKey: "folder") as? NSManagedObject)?.objectID }).count == 1)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) == 0)
        }
    }

    @Test func typeChangesLightweightMigrationCannotConvertAreNamed() throws {
        let old = ModelBuilder.entity("Event")
        old.properties = [ModelBuilder.attribute("when", .stringAttributeType)]
        let new = ModelBuilder.entity("Event")
        new.properties = [ModelBuilder.attribute("when", .dateAttributeType)]
        #expect {
            try NSMappingModel.inferredMappingModel(
                forSourceModel: ModelBuilder.model(old), destinationModel: ModelBuilder.model(new))
        } throws: { error in
            (error as NSError).code == NSInferredMappingModelError
                && (error as NSError).localizedDescription.contains("'when' of entity 'Event'")
        }
    }
}
