import Foundation
@testable import OpenCoreDataCore
import Testing

/// The CoolNotes scenario (SEED-SCENARIOS.md): model version 2 adds PhotoFrame, and a
/// store written with version 1 opens through `NSPersistentContainer` (whose store
/// descriptions ask for automatic lightweight migration) with its notes intact.
@Suite struct CoolNotesMigrationTests {
    private func container(_ model: NSManagedObjectModel, at url: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "CoolNotes", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }

    /// Notebook names with their notes' texts, sorted as the app lists them.
    private func contents(_ context: NSManagedObjectContext) throws -> [String: [String]] {
        try context.performAndWait {
            var result: [String: [String]] = [:]
            let request = NSFetchRequest<NSManagedObject>(entityName: "Notebook")
            request.sortDescriptors = [
                NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "creationDate", ascending: true),
            ]
            for notebook in try context.fetch(request) {
                let notes = NSFetchRequest<NSManagedObject>(entityName: "Note")
                notes.predicate = NSPredicate(format: "notebook = %@", notebook)
                notes.sortDescriptors = [
                    NSSortDescriptor(key: "creationDate", ascending: true),
                    NSSortDescriptor(key: "text", ascending: true),
                ]
                result[notebook.value(forKey: "name") as? String ?? "?"] = try context.fetch(notes).map {
                    $0.value(forKey: "text") as? String ?? ""
                }
            }
            return result
        }
    }

    @Test func theVersion1StoreMigratesWithItsNotesIntact() throws {
        let bundle = try ModelFixtures.url("CoolNotes.xcdatamodeld")
        let url = temporaryStoreURL("CoolNotes")
        let v1 = try container(
            try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent("Model.xcdatamodel")), at: url)
        let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
        try v1.viewContext.performAndWait {
            let context = v1.viewContext
            func notebook(_ name: String, _ offset: TimeInterval) -> NSManagedObject {
                let notebook = NSEntityDescription.insertNewObject(forEntityName: "Notebook", into: context)
                notebook.setValue(name, forKey: "name")
                notebook.setValue(start.addingTimeInterval(offset), forKey: "creationDate")
                return notebook
            }
            let coding = notebook("Coding Notes", 0)
            let other = notebook("Shopping", 1)
            for (index, (text, book)) in [("Swift", coding), ("Core Data", coding), ("Milk", other)].enumerated() {
                let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
                note.setValue(text, forKey: "text")
                note.setValue(start.addingTimeInterval(Double(index)), forKey: "creationDate")
                note.setValue(book, forKey: "notebook")
            }
            try context.save()
        }
        let before = try contents(v1.viewContext)
        #expect(before == ["Coding Notes": ["Swift", "Core Data"], "Shopping": ["Milk"]])
        try v1.persistentStoreCoordinator.persistentStores.forEach { try v1.persistentStoreCoordinator.remove($0) }

        // The app's current model is version 2, loaded from its bundle.
        let current = try #require(NSManagedObjectModel(contentsOf: bundle))
        #expect(current.entitiesByName["PhotoFrame"] != nil)
        let v2 = try container(current, at: url)
        #expect(try contents(v2.viewContext) == before)
        let photo = Data(repeating: 0xAB, count: 256 * 1024)
        try v2.viewContext.performAndWait {
            let context = v2.viewContext
            let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
            request.predicate = NSPredicate(format: "text == %@", "Swift")
            let note = try #require(try context.fetch(request).first)
            let frame = NSEntityDescription.insertNewObject(forEntityName: "PhotoFrame", into: context)
            frame.setValue(photo, forKey: "imageData")
            note.setValue(frame, forKey: "photoFrame")
            try context.save()
        }
        try v2.persistentStoreCoordinator.persistentStores.forEach { try v2.persistentStoreCoordinator.remove($0) }
        let again = try container(current, at: url)
        try again.viewContext.performAndWait {
            let frames = try again.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "PhotoFrame"))
            #expect(frames.count == 1)
            #expect(frames.first?.value(forKey: "imageData") as? Data == photo)
            #expect(
                (frames.first?.value(forKey: "note") as? NSManagedObject)?.value(forKey: "text") as? String == "Swift")
        }
    }
}
