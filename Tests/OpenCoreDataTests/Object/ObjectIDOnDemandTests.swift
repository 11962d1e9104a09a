import Foundation
import Testing
@testable import OpenCoreDataCore
import OpenCoreDataStoreTestSupport

/// A fetched object makes its `NSManagedObjectID` only when asked: its row keeps the ID's
/// parts. The ID it makes is the one Core Data would give, and the object keeps its
/// identity in the context whatever happens to the row.
@Suite struct ObjectIDOnDemandTests {
    /// The IDs of every note, fetched as IDs.
    private func noteIDs(in context: NSManagedObjectContext) throws -> Set<NSManagedObjectID> {
        let request = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
        request.resultType = .managedObjectIDResultType
        return Set(try context.fetch(request))
    }

    @Test func aFetchThatReadsValuesMakesNoIDsAndTheIDsMadeLaterAreTheStoredObjects() throws {
        let context = try seededNotes(5)
        try context.performAndWait {
            let notes = try context.fetch(Note.fetchRequest())
            #expect(Set(notes.compactMap(\.text)) == Set((0..<5).map { "note \($0)" }))
            #expect(notes.allSatisfy { !$0.hasMadeObjectID }, "reading values needs no ID")
            #expect(notes.allSatisfy { !$0.objectID.isTemporaryID })
            #expect(Set(notes.map(\.objectID)) == (try noteIDs(in: context)))
            for note in notes {
                #expect(note.objectID === note.objectID, "made once, then kept")
                #expect(context.registeredObject(for: note.objectID) === note)
                #expect(context.object(with: note.objectID) === note)
                #expect(note.objectID.uriRepresentation().absoluteString.hasPrefix("x-coredata://"))
            }
        }
    }

    /// The object is filed under its row's key until its ID is made; when the row goes (a
    /// refresh turns the object into a fault), the ID is made from it first, so the object
    /// is still found by its ID, fires from the store and leaves the context when it dies.
    @Test func anObjectWithoutAnIDKeepsItsIdentityWhenItsRowGoes() throws {
        let context = try seededNotes(3)
        try context.performAndWait {
            let ids = try noteIDs(in: context)
            var notes: [Note]? = try context.fetch(Note.fetchRequest())
            let note = try #require(notes?.first)
            #expect(!note.hasMadeObjectID)
            context.refresh(note, mergeChanges: false)
            #expect(note.isFault && note.snapshot == nil)
            #expect(note.hasMadeObjectID, "made from the row before the row went")
            #expect(ids.contains(note.objectID))
            #expect(context.registeredObject(for: note.objectID) === note)
            #expect(note.text?.hasPrefix("note ") == true, "the fault fires from the store")

            // The others die without ever making their IDs; their entries go with them.
            notes = nil
            #expect(context.registeredObjects.count == 1)
            #expect(context.registry.count == 1, "no entry outlives its object")
            let again = try context.fetch(Note.fetchRequest())
            #expect(again.count == 3 && again.contains { $0 === note })
            #expect(context.registry.count == 3)
        }
    }

    /// An object whose ID is made while it is registered, then loses its row, stays filed,
    /// and its entry goes when it dies.
    @Test func anIDMadeWhileRegisteredIsTheOneTheEntryIsRemovedUnder() throws {
        let context = try seededNotes(2)
        try context.performAndWait {
            var note: Note? = try context.fetch(Note.fetchRequest()).first
            weak let dead = note
            let id = note!.objectID
            context.refresh(note!, mergeChanges: false)
            let filed = context.registeredObject(for: id).map(ObjectIdentifier.init)
            #expect(filed != nil && filed == note.map(ObjectIdentifier.init))
            // The refresh is announced with the next change notification, which holds the object until then.
            context.processPendingChanges()
            note = nil
            #expect(dead == nil)
            #expect(context.registry.count == 0, "the entry left with its object")
            #expect(context.registeredObject(for: id) == nil)
        }
    }

    /// A child context's copy of its parent's unsaved object comes from a row with a
    /// temporary ID: the object's ID, made from it, is the parent object's temporary ID.
    @Test func aChildsCopyOfAnUnsavedObjectHasItsParentsTemporaryID() throws {
        let parent = try makeContext(ModelBuilder.notesModel())
        try parent.performAndWait {
            let unsaved = Note(context: parent)
            unsaved.text = "draft"
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = parent
            try child.performAndWait {
                let copy = try #require(try child.fetch(Note.fetchRequest()).first)
                #expect(copy.text == "draft")
                #expect(copy.hasTemporaryID)
                #expect(copy.objectID.isTemporaryID)
                #expect(copy.objectID == unsaved.objectID)
                #expect(child.registeredObject(for: unsaved.objectID) === copy)
            }
        }
    }

    /// A child's copy of an unsaved object, filed under its row's temporary key, is still
    /// the object the child finds once its parent saved, and leaves the child when it dies.
    @Test func aChildsCopyFiledByItsRowsKeyOutlivesItsParentsSave() throws {
        let parent = try makeContext(ModelBuilder.notesModel())
        try parent.performAndWait {
            Note(context: parent).text = "draft"
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = parent
            try child.performAndWait {
                var copy: Note? = try child.fetch(Note.fetchRequest()).first
                weak let dead = copy
                #expect(copy?.hasMadeObjectID == false)
                try parent.save()
                let again = try child.fetch(Note.fetchRequest())
                #expect(again.count == 1 && again.first === copy, "the same object, found by its temporary ID")
                #expect(copy?.text == "draft")
                copy = nil
                _ = consume again
                child.processPendingChanges()
                #expect(dead == nil)
                #expect(child.registry.count == 0, "no entry outlives its object")
            }
        }
    }

    /// Apps read `objectID` off the object's queue to hand it to another context: an ID
    /// made on first use there is made once, even while the queue refreshes the object
    /// (dropping the row the ID is made from). Thread Sanitizer runs this suite.
    @Test func objectIDsReadOffTheQueueWhileItRefreshesAreMadeOnce() throws {
        let context = try seededNotes(200)
        let expected = try context.performAndWait { try noteIDs(in: context) }
        for _ in 0..<5 {
            let notes = LockedBox(try context.performAndWait { try context.fetch(Note.fetchRequest()) })
            let seen = [LockedBox<[NSManagedObjectID]>([]), LockedBox<[NSManagedObjectID]>([])]
            DispatchQueue.concurrentPerform(iterations: 3) { worker in
                if worker == 2 {
                    context.performAndWait {
                        for note in notes.value { context.refresh(note, mergeChanges: false) }
                    }
                } else {
                    seen[worker].value = notes.value.map(\.objectID)
                }
            }
            let first = seen[0].value, second = seen[1].value
            #expect(Set(first) == expected)
            #expect(zip(first, second).allSatisfy { $0 === $1 }, "one ID per object, whichever thread made it")
            context.performAndWait {
                #expect(zip(notes.value, first).allSatisfy { $0.objectID === $1 })
                context.reset()
            }
        }
    }
}
