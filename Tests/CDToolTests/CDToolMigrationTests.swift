@testable import CDToolCore
import Foundation
import GRDB
import OpenCoreData
import Testing

/// `cdtool migrate` and `cdtool model --diff`, on the journal model's four versions
/// (`Tests/OpenCoreDataTests/Fixtures/Journal.xcdatamodeld`).
@Suite struct CDToolMigrationTests {
    static let journal = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../OpenCoreDataTests/Fixtures/Journal.xcdatamodeld").standardized

    private func version(_ name: String) throws -> NSManagedObjectModel {
        try ModelFile.load(at: Self.journal.appendingPathComponent("\(name).xcdatamodel"))
    }

    @Test func diffListsEveryChangeAndTheVerdict() throws {
        let text = ModelDiff.text(from: try version("Journal"), to: try version("Journal 4"))
        for line in [
            "~ entity Author → Writer (renamed)", "- entity Draft", "+ entity Item", "parent entity: none → Item",
            "~ relationship places: renamed from location; to-one → to-many", "~ relationship tags: now ordered",
            "~ attribute text: renamed from body", "+ attribute wordCount (required)",
            "~ attribute label: now required",
            "uniqueness constraints: [] → [\"label\"]", "lightweight migration: can infer the mapping",
        ] {
            #expect(text.contains(line), "missing: \(line)\n\(text)")
        }
        #expect(
            ModelDiff.text(from: try version("Journal 2"), to: try version("Journal 2")).contains(
                "lightweight migration: not needed"))
    }

    @Test func diffSaysWhyAMappingCannotBeInferred() throws {
        let old = CDToolFixture.entity("Event", [CDToolFixture.attribute("when", .stringAttributeType)])
        let new = CDToolFixture.entity("Event", [CDToolFixture.attribute("when", .dateAttributeType)])
        let (a, b) = (NSManagedObjectModel(), NSManagedObjectModel())
        a.entities = [old]
        b.entities = [new]
        let text = ModelDiff.text(from: a, to: b)
        #expect(text.contains("~ attribute when: type String → Date"))
        #expect(text.contains("lightweight migration: cannot infer the mapping: "))
    }

    @Test func migrateBringsAStoreToTheCurrentVersionAndThenHasNothingToDo() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "CDToolMigrationTests-\(UUID().uuidString)/Journal.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try version("Journal"))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context).setValue("kept", forKey: "body")
            try context.save()
        }
        try coordinator.remove(store)

        var fractions: [Double] = []
        let outcome = try StoreMigration.migrate(storeAt: url, modelAt: Self.journal) { fractions.append($0) }
        #expect(outcome.sourceVersion == "version 'Journal'")
        #expect(fractions.last == 1)
        #expect(outcome.summary(store: url).hasPrefix("Journal.sqlite: migrated from version 'Journal' in "))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(try version("Journal 4").isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let again = try StoreMigration.migrate(storeAt: url, modelAt: Self.journal) { _ in }
        #expect(again.sourceVersion == nil)
        #expect(again.summary(store: url) == "Journal.sqlite: already at the model's version; nothing to migrate")
    }

    /// A copy of a store Core Data wrote with a rollback journal (Grocery Dude, from
    /// ../shared/fixtures), in a fresh folder.
    private func groceryStore() throws -> URL {
        let fixture = Self.appleStores.appendingPathComponent("gaoyve__GroceryDude__DefaultData_fw641/store.sqlite")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "CDToolMigrationTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixture, to: folder.appendingPathComponent("store.sqlite"))
        return folder.appendingPathComponent("store.sqlite")
    }

    static let appleStores = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/fixtures/apple-stores").standardized

    @Test func migrateRefusesAModelOfAnotherAppAndLeavesTheStoreAsItWas() throws {
        // Issue 31: this answered "migrated from the model cached in the store" and
        // dropped every table.
        let url = try groceryStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let otherApp = Self.appleStores.appendingPathComponent(
            "neolee__FailedBanksCD__FailedBanksCD/model/FailedBanksCD/FailedBanksCD.xcdatamodeld")
        let before = try Data(contentsOf: url)
        #expect {
            _ = try StoreMigration.migrate(storeAt: url, modelAt: otherApp) { _ in }
        } throws: { error in
            let text = "\(error)"
            return text.contains("399 rows of entity 'Item'") && text.contains("8 rows of entity 'Unit'")
                && text.contains("--allow-data-loss")
        }
        #expect(try Data(contentsOf: url) == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(left == ["store.sqlite"], "left behind: \(left)")

        let outcome = try StoreMigration.migrate(storeAt: url, modelAt: otherApp, allowingDataLoss: true) { _ in }
        #expect(outcome.sourceVersion == "the model cached in the store")
    }

    @Test func migrateRefusesAStoreNoVersionWrote() throws {
        let (url, _) = try CDToolFixture.makeStore()
        // Without the model the store caches, nothing knows the version that wrote it.
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "DELETE FROM Z_MODELCACHE") }
        try queue.close()
        #expect {
            _ = try StoreMigration.migrate(storeAt: url, modelAt: Self.journal) { _ in }
        } throws: { error in
            "\(error)".contains("no version of Journal.xcdatamodeld has the store's version hashes")
        }
    }
}

/// `cdtool migrate --mapping`, with the Contacts mapping model of the core's tests
/// (`Tests/OpenCoreDataTests/Fixtures/Mapping`).
@Suite struct CDToolMappingMigrationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../OpenCoreDataTests/Fixtures/Mapping").standardized
    static let contacts = fixtures.appendingPathComponent("Contacts.xcdatamodeld")

    /// A version 1 store: Ada (with a note), and two customers, one without an email.
    private func makeStore() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "CDToolMappingMigrationTests-\(UUID().uuidString)/Contacts.sqlite")
        let coordinator = NSPersistentStoreCoordinator(
            managedObjectModel: try ModelFile.load(at: Self.contacts.appendingPathComponent("Contacts.xcdatamodel")))
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let ada = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            ada.setValue("Ada Lovelace", forKey: "fullName")
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue("kept", forKey: "text")
            note.setValue(ada, forKey: "author")
            let grace = NSEntityDescription.insertNewObject(forEntityName: "Customer", into: context)
            grace.setValue("grace@example.com", forKey: "email")
            NSEntityDescription.insertNewObject(forEntityName: "Customer", into: context).setValue(
                "No Mail", forKey: "fullName")
            try context.save()
        }
        try coordinator.remove(store)
        return url
    }

    /// The fixture's source form with its policy class replaced (`nil`: removed; the
    /// class lives in the core's tests), beside `store`.
    private func mapping(policy: String?, beside store: URL) throws -> URL {
        let folder = store.deletingLastPathComponent().appendingPathComponent("Plain.xcmappingmodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let xml = try String(
            contentsOf: Self.fixtures.appendingPathComponent("ContactsToContacts2.xcmappingmodel/xcmapping.xml"),
            encoding: .utf8)
        let lines = xml.split(separator: "\n").map(String.init).compactMap { line in
            guard line.contains("migrationpolicyclassname") else { return line }
            return policy.map { line.replacingOccurrences(of: "OpenCoreDataTests.ContactNamePolicy", with: $0) }
        }
        let text = lines.joined(separator: "\n").replacingOccurrences(
            of: "Contacts.xcdatamodeld/", with: Self.contacts.path + "/")
        try Data(text.utf8).write(to: folder.appendingPathComponent("xcmapping.xml"))
        return folder
    }

    @Test func migrateWithAMappingModelMigratesByObjects() throws {
        let url = try makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let mapping = try mapping(policy: nil, beside: url)
        var fractions: [Double] = []
        let outcome = try StoreMigration.migrate(storeAt: url, modelAt: Self.contacts, mappingAt: mapping) {
            fractions.append($0)
        }
        #expect(outcome.sourceVersion == "version 'Contacts' with Plain.xcmappingmodel")
        #expect(fractions.last == 1)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try ModelFile.load(at: Self.contacts))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let contacts = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Contact"))
            #expect(contacts.count == 2, "the customer without an email is left out by the mapping's filter")
            #expect(contacts.compactMap { $0.value(forKey: "email") as? String } == ["grace@example.com"])
            let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
            #expect(
                (notes.first?.value(forKey: "author") as? NSManagedObject)?.value(forKey: "isCustomer") as? Bool
                    == false)
        }
    }

    @Test func migrateRefusesAMappingThatCannotRunAndLeavesTheStore() throws {
        let url = try makeStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Data(contentsOf: url)
        #expect {
            _ = try StoreMigration.migrate(
                storeAt: url, modelAt: Self.contacts, mappingAt: try mapping(policy: "Missing.SplitPolicy", beside: url)
            ) { _ in }
        } throws: { error in
            "\(error)".contains("No NSEntityMigrationPolicy subclass named 'Missing.SplitPolicy'")
        }
        #expect(try Data(contentsOf: url) == before)
        // A mapping made for other versions is refused before anything runs.
        let edited = url.deletingLastPathComponent().appendingPathComponent("Edited.xcdatamodeld")
        try FileManager.default.copyItem(at: Self.contacts, to: edited)
        let current = edited.appendingPathComponent("Contacts 2.xcdatamodel/contents")
        let contents = try String(contentsOf: current, encoding: .utf8)
            .replacingOccurrences(
                of: #"<attribute name="lastName""#,
                with: #"<attribute name="nickname" optional="YES" attributeType="String"/><attribute name="lastName""#)
        try Data(contents.utf8).write(to: current)
        #expect {
            _ = try StoreMigration.migrate(
                storeAt: url, modelAt: edited,
                mappingAt: Self.fixtures.appendingPathComponent("Compiled/ContactsToContacts2.cdm")
            ) { _ in }
        } throws: { error in
            "\(error)".contains(
                "ContactsToContacts2.cdm does not map to the model's current version: its entity mapping 'PersonToContact' was made for another version of Contact"
            )
        }
        #expect(try Data(contentsOf: url) == before)
    }
}
