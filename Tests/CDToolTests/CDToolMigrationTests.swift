@testable import CDToolCore
import Foundation
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
        for line in ["~ entity Author → Writer (renamed)", "- entity Draft", "+ entity Item", "parent entity: none → Item",
                     "~ relationship places: renamed from location; to-one → to-many", "~ relationship tags: now ordered",
                     "~ attribute text: renamed from body", "+ attribute wordCount (required)", "~ attribute label: now required",
                     "uniqueness constraints: [] → [\"label\"]", "lightweight migration: can infer the mapping"] {
            #expect(text.contains(line), "missing: \(line)\n\(text)")
        }
        #expect(ModelDiff.text(from: try version("Journal 2"), to: try version("Journal 2")).contains("lightweight migration: not needed"))
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
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("CDToolMigrationTests-\(UUID().uuidString)/Journal.sqlite")
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

    @Test func migrateRefusesAStoreNoVersionWrote() throws {
        let (url, _) = try CDToolFixture.makeStore()
        #expect {
            _ = try StoreMigration.migrate(storeAt: url, modelAt: Self.journal) { _ in }
        } throws: { error in
            "\(error)".contains("no version of Journal.xcdatamodeld has the store's version hashes")
        }
    }
}
