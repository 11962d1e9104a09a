import Foundation
import GRDB
import OpenCoreData
import Testing
import OpenCoreDataStoreTestSupport

/// A fault the store cannot fill never turns into made-up values: it reads `nil` or 0 (not
/// the model's defaults), stays a fault, reports its error, and is never saved back.
@Suite struct FaultFailureTests {
    /// One model for the store and every context on it: its entities have met this module's
    /// classes (the test bundle has other classes named `Note`).
    let model = ModelBuilder.notesModel()

    /// A store with one notebook holding two notes (pages 7 and 9; the model's default is 1).
    private func makeStore() throws -> (url: URL, notebook: URL, notes: [URL]) {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        return try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Work"
            var notes: [Note] = []
            for (text, pages) in [("first", 7), ("second", 9)] {
                let note = Note(context: context)
                note.text = text
                note.pages = Int16(pages)
                note.notebook = notebook
                notes.append(note)
            }
            try context.save()
            return (url, notebook.objectID.uriRepresentation(), notes.map { $0.objectID.uriRepresentation() })
        }
    }

    /// A context on a coordinator of its own (an empty row cache: faults read the store).
    private func freshContext(
        _ url: URL,
        _ make: (NSManagedObjectContext.ConcurrencyType) -> NSManagedObjectContext = NSManagedObjectContext.init
    ) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = make(.privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Runs `sql` on a connection of its own, as another program damaging the store would.
    private func alter(_ url: URL, _ sql: String) throws {
        let db = try DatabaseQueue(path: url.path)
        try db.write { try $0.execute(sql: sql) }
        try db.close()
    }

    @Test func anUnreadableFaultReadsNilNotDefaultsAndIsNeverSavedBack() throws {
        let (url, _, notes) = try makeStore()
        let context = try freshContext(url)
        try context.performAndWait {
            let id = try #require(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: notes[0]))
            let note = try #require(context.object(with: id) as? Note)
            try alter(url, "ALTER TABLE ZNOTE RENAME TO ZNOTE_AWAY")

            #expect(note.pages == 0, "not the model's default (1), not a made-up value")
            #expect(note.text == nil)
            #expect(note.isFault, "its values were not loaded")
            #expect(!note.isDeleted, "a store error is not a deletion")
            let error = try #require(context.faultingErrors[id] as NSError?)
            #expect(error.localizedDescription.contains("ZNOTE"))
            #expect(throws: (any Error).self) { try context.existingObject(with: id) }

            // A change to it cannot be saved: the save would write over a row never read.
            note.text = "changed"
            let saveError = try #require(throws: NSError.self) { try context.save() }
            #expect(saveError.code == NSPersistentStoreSaveError)
            #expect((saveError.userInfo[NSAffectedObjectsErrorKey] as? [NSManagedObject])?.contains(note) == true)
            // A refresh that keeps changes keeps this one, though the store still cannot be read.
            context.refresh(note, mergeChanges: true)
            #expect(note.text == "changed")

            // Once the store reads again, the stored values come back under the change.
            try alter(url, "ALTER TABLE ZNOTE_AWAY RENAME TO ZNOTE")
            #expect(note.pages == 7)
            #expect(note.text == "changed")
            #expect(!note.isFault)
            #expect(context.faultingErrors.isEmpty)
            try context.save()
        }
        let check = try DatabaseQueue(path: url.path)
        let row = try check.read { try Row.fetchOne($0, sql: "SELECT ZTEXT, ZPAGES FROM ZNOTE WHERE Z_PK = 1") }
        #expect(row?["ZTEXT"] as String? == "changed")
        #expect(row?["ZPAGES"] as Int? == 7)
    }

    @Test func aToManyTheStoreCannotGiveIsNotLoadedEmpty() throws {
        let (url, notebookURI, _) = try makeStore()
        let context = try freshContext(url)
        try context.performAndWait {
            let id = try #require(
                context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: notebookURI))
            let notebook = try #require(try context.existingObject(with: id) as? Notebook)
            try alter(url, "ALTER TABLE ZNOTE RENAME TO ZNOTE_AWAY")

            #expect(notebook.notes?.count == 0)
            #expect(notebook.hasFault(forRelationshipNamed: "notes"), "the empty set stood in for one read only")
            #expect(context.faultingErrors[id] != nil)
            let note = Note(context: context)
            note.text = "third"
            note.notebook = notebook
            #expect(throws: NSError.self) { try context.save() }

            try alter(url, "ALTER TABLE ZNOTE_AWAY RENAME TO ZNOTE")
            #expect(Set((notebook.notes as? Set<Note> ?? []).compactMap(\.text)) == ["first", "second", "third"])
            try context.save()
        }
    }

    @Test func aFetchThatCannotReadTheStoreThrows() throws {
        let (url, _, _) = try makeStore()
        let context = try freshContext(url)
        try alter(url, "ALTER TABLE ZNOTE RENAME TO ZNOTE_AWAY")
        context.performAndWait {
            let request = NSFetchRequest<Note>(entityName: "Note")
            #expect(throws: (any Error).self) { try context.fetch(request) }
            request.fetchBatchSize = 1
            #expect(throws: (any Error).self) { try context.fetchBatched(request) }
        }
    }

    @Test func aBatchTheStoreFailsToReadLeavesFaultsThatReportTheError() throws {
        let (url, _, _) = try makeStore()
        let context = try freshContext(url)
        try context.performAndWait {
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.fetchBatchSize = 1
            let notes = try context.fetchBatched(request)
            #expect(notes.count == 2)
            try alter(url, "ALTER TABLE ZNOTE RENAME TO ZNOTE_AWAY")
            let second = notes[1]
            #expect(second.pages == 0 && second.text == nil && second.isFault)
            #expect(throws: (any Error).self) { try context.existingObject(with: second.objectID) }
            #expect(context.faultingErrors[second.objectID] != nil)
        }
    }

    @Test func aDeletedRowGoesToTheContextsHookAndReadsZeroNotDefaults() throws {
        final class Recorder: NSManagedObjectContext, @unchecked Sendable {
            var asked: [(NSManagedObjectID, String?)] = []
            var answer = true
            override func shouldHandleInaccessibleFault(
                _ fault: NSManagedObject, for oid: NSManagedObjectID,
                triggeredByProperty property: NSPropertyDescription?
            ) -> Bool {
                asked.append((oid, property?.name))
                return answer
            }
        }
        let (url, _, notes) = try makeStore()
        let context = try #require(try freshContext(url) { Recorder(concurrencyType: $0) } as? Recorder)
        try alter(url, "DELETE FROM ZNOTE")
        try context.performAndWait {
            let coordinator = try #require(context.persistentStoreCoordinator)
            let firstID = try #require(coordinator.managedObjectID(forURIRepresentation: notes[0]))
            let first = try #require(context.object(with: firstID) as? Note)
            #expect(first.pages == 0, "Core Data's inaccessible faults read nil or 0, not the default (1)")
            #expect(first.isDeleted)
            #expect(
                context.asked.count == 1 && context.asked.first?.0 == first.objectID
                    && context.asked.first?.1 == "pages")
            #expect(context.faultingErrors.isEmpty)

            context.answer = false
            let secondID = try #require(coordinator.managedObjectID(forURIRepresentation: notes[1]))
            let second = try #require(context.object(with: secondID) as? Note)
            #expect(second.text == nil)
            #expect(!second.isDeleted && second.isFault)
            #expect(
                (context.faultingErrors[second.objectID] as NSError?)?.code == NSManagedObjectReferentialIntegrityError)
            second.text = "revived?"
            #expect(throws: NSError.self) { try context.save() }
        }
    }
}
