@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// Nested contexts: a child reads its parent's state, unsaved changes included, and its
/// save changes the parent only; the store sees nothing until the parent saves.
@Suite struct ParentChildContextTests {
    /// A root context on a new SQLite store of the notes model, with "Saved" notebook
    /// holding one note ("first") already in the store.
    private func root() throws -> NSManagedObjectContext {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Saved"
            let note = Note(context: context)
            note.text = "first"
            note.notebook = notebook
            try context.save()
        }
        return context
    }

    private func child(of parent: NSManagedObjectContext) -> NSManagedObjectContext {
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        return child
    }

    /// What a fresh context on the same coordinator reads from the store.
    private func storeTexts(_ context: NSManagedObjectContext) throws -> [String] {
        let reader = siblingContext(of: context)
        return try reader.performAndWait {
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "text", ascending: true)]
            return try reader.fetch(request).compactMap(\.text)
        }
    }

    @Test func childUsesItsParentsCoordinator() throws {
        let parent = try root()
        let child = child(of: parent)
        #expect(child.parent === parent)
        #expect(child.persistentStoreCoordinator === parent.persistentStoreCoordinator)
    }

    @Test func childSeesTheParentsUnsavedChanges() throws {
        let parent = try root()
        try parent.performAndWait {
            let added = Note(context: parent)
            added.text = "unsaved"
            let first = try #require(
                try parent.fetch(NSFetchRequest<Note>(entityName: "Note")).first { $0.text == "first" })
            first.pages = 42
        }
        let child = child(of: parent)
        try child.performAndWait {
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.sortDescriptors = [NSSortDescriptor(key: "text", ascending: true)]
            let notes = try child.fetch(request)
            #expect(notes.map(\.text) == ["first", "unsaved"])
            #expect(notes.first?.pages == 42, "the parent's unsaved value")
            #expect(notes.allSatisfy { $0.managedObjectContext === child }, "the child's own objects")
            #expect(notes.allSatisfy { !$0.isInserted }, "the parent's objects are not new to the child")
            #expect(try child.count(for: request) == 2)
            request.predicate = NSPredicate(format: "pages > 10")
            #expect(try child.fetch(request).map(\.text) == ["first"])
            #expect(!child.hasChanges)
        }
        try parent.performAndWait {
            let first = try #require(
                try parent.fetch(NSFetchRequest<Note>(entityName: "Note")).first { $0.text == "first" })
            parent.delete(first)
        }
        try child.performAndWait {
            let remaining = try child.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.text)
            #expect(remaining == ["unsaved"], "deleted in the parent")
        }
    }

    @Test func childSaveChangesTheParentOnlyUntilTheParentSaves() throws {
        let parent = try root()
        let child = child(of: parent)
        try child.performAndWait {
            let note = Note(context: child)
            note.text = "from child"
            let first = try #require(
                try child.fetch(NSFetchRequest<Note>(entityName: "Note")).first { $0.text == "first" })
            first.text = "first, edited"
            try child.save()
            #expect(!child.hasChanges)
            #expect(note.objectID.isTemporaryID, "IDs stay temporary until the store has the row")
        }
        #expect(try storeTexts(parent) == ["first"], "nothing reached the store")
        try parent.performAndWait {
            #expect(parent.insertedObjects.compactMap { ($0 as? Note)?.text } == ["from child"])
            #expect(parent.updatedObjects.compactMap { ($0 as? Note)?.text } == ["first, edited"])
            try parent.save()
        }
        #expect(try storeTexts(parent) == ["first, edited", "from child"])
    }

    @Test func discardedScratchChildLeavesTheParentUntouched() throws {
        let parent = try root()
        do {
            let scratch = child(of: parent)
            try scratch.performAndWait {
                _ = Note(context: scratch)
                let first = try #require(try scratch.fetch(NSFetchRequest<Note>(entityName: "Note")).first)
                scratch.delete(first)
            }
        }
        parent.performAndWait {
            #expect(!parent.hasChanges)
        }
        #expect(try storeTexts(parent) == ["first"])
    }

    @Test func relationshipsAndDeletesReachTheParentAndTheStore() throws {
        let parent = try root()
        let child = child(of: parent)
        try child.performAndWait {
            let notebook = Notebook(context: child)
            notebook.name = "Child's"
            for text in ["a", "b"] {
                let note = Note(context: child)
                note.text = text
                note.notebook = notebook
            }
            let first = try #require(
                try child.fetch(NSFetchRequest<Note>(entityName: "Note")).first { $0.text == "first" })
            child.delete(first)
            try child.save()
        }
        try parent.performAndWait {
            let notebooks = try parent.fetch(NSFetchRequest<Notebook>(entityName: "Notebook"))
            let made = try #require(notebooks.first { $0.name == "Child's" })
            #expect(
                Set((made.notes as? Set<Note>)?.compactMap(\.text) ?? []) == ["a", "b"],
                "both sides of the relationship")
            #expect(parent.deletedObjects.compactMap { ($0 as? Note)?.text } == ["first"])
            try parent.save()
        }
        #expect(try storeTexts(parent) == ["a", "b"])
    }

    @Test func childReadsRelationshipsTheParentChangedAndTheParentsNewObjects() throws {
        let parent = try root()
        var newNoteID: NSManagedObjectID?
        try parent.performAndWait {
            let saved = try #require(try parent.fetch(NSFetchRequest<Notebook>(entityName: "Notebook")).first)
            let note = Note(context: parent)
            note.text = "unsaved member"
            note.notebook = saved
            newNoteID = note.objectID
        }
        let child = child(of: parent)
        try child.performAndWait {
            let notebook = try #require(try child.fetch(NSFetchRequest<Notebook>(entityName: "Notebook")).first)
            #expect(Set((notebook.notes as? Set<Note>)?.compactMap(\.text) ?? []) == ["first", "unsaved member"])
            let id = try #require(newNoteID)
            let note = try #require(try child.existingObject(with: id) as? Note)
            #expect(note.text == "unsaved member")
            #expect(note.notebook === notebook)
        }
    }

    @Test func invalidChildChangesFailTheChildSaveAndLeaveTheParentAlone() throws {
        let parent = try root()
        let child = child(of: parent)
        child.performAndWait {
            let notebook = Notebook(context: child)
            notebook.name = ""
            let error = #expect(throws: NSError.self) { try child.save() }
            #expect(error?.code == NSValidationStringTooShortError)
            #expect(child.hasChanges)
        }
        parent.performAndWait { #expect(!parent.hasChanges) }
    }

    @Test func grandchildSavesThroughEachLevel() throws {
        let parent = try root()
        let middle = child(of: parent)
        let leaf = child(of: middle)
        try leaf.performAndWait {
            let note = Note(context: leaf)
            note.text = "deep"
            try leaf.save()
        }
        parent.performAndWait { #expect(!parent.hasChanges) }
        try middle.performAndWait {
            #expect(
                try middle.fetch(NSFetchRequest<Note>(entityName: "Note")).compactMap(\.text).sorted() == [
                    "deep", "first",
                ])
            try middle.save()
        }
        try parent.performAndWait {
            #expect(parent.insertedObjects.count == 1)
            try parent.save()
        }
        #expect(try storeTexts(parent) == ["deep", "first"])
    }

    @Test func childPendingChangesApplyOnTopOfTheParents() throws {
        let parent = try root()
        parent.performAndWait {
            let note = Note(context: parent)
            note.text = "parent's"
            note.pages = 5
        }
        let child = child(of: parent)
        try child.performAndWait {
            let request = NSFetchRequest<Note>(entityName: "Note")
            request.predicate = NSPredicate(format: "pages >= 5")
            let parents = try #require(try child.fetch(request).first)
            parents.pages = 1
            let mine = Note(context: child)
            mine.text = "child's"
            mine.pages = 9
            #expect(try child.fetch(request).map(\.text) == ["child's"])
            #expect(try child.count(for: request) == 1)
        }
    }

    @Test func childMergesWhatItsParentSavesKeepingItsOwnChanges() throws {
        let parent = try root()
        let child = child(of: parent)
        child.automaticallyMergesChangesFromParent = true
        let watched = try child.performAndWait {
            let note = try #require(try child.fetch(NSFetchRequest<Note>(entityName: "Note")).first)
            note.pages = 7
            return note.objectID
        }
        try parent.performAndWait {
            let note = try #require(parent.object(with: watched) as? Note)
            note.text = "changed by the parent"
            try parent.save()
        }
        try child.performAndWait {
            let note = try #require(child.registeredObject(for: watched) as? Note)
            #expect(note.text == "changed by the parent")
            #expect(note.pages == 7, "the child's unsaved change stays on top")
            #expect(child.hasChanges)
        }
    }

    @Test func rootContextsMergeEachOthersSavesOnlyWhenAsked() throws {
        let writer = try root()
        let merging = siblingContext(of: writer)
        merging.automaticallyMergesChangesFromParent = true
        let stale = siblingContext(of: writer)
        let notes = NSFetchRequest<Note>(entityName: "Note")
        let (id, mergingNote, staleNote) = try merging.performAndWait {
            let note = try #require(try merging.fetch(notes).first)
            return (note.objectID, note, try stale.performAndWait { try #require(try stale.fetch(notes).first) })
        }
        _ = (mergingNote.text, stale.performAndWait { staleNote.text })
        try writer.performAndWait {
            (writer.object(with: id) as? Note)?.text = "saved elsewhere"
            try writer.save()
        }
        merging.performAndWait { #expect(mergingNote.text == "saved elsewhere") }
        stale.performAndWait { #expect(staleNote.text == "first", "no merge without the flag") }
        try writer.performAndWait {
            writer.delete(writer.object(with: id))
            try writer.save()
        }
        merging.performAndWait {
            #expect(merging.registeredObject(for: id) == nil)
            #expect(mergingNote.isDeleted)
        }
    }

    @Test func childObjectsKeepWorkingAfterTheParentSaves() throws {
        let parent = try root()
        let child = child(of: parent)
        let note = try child.performAndWait {
            let note = Note(context: child)
            note.text = "draft"
            try child.save()
            return note
        }
        try parent.performAndWait { try parent.save() }
        try child.performAndWait {
            #expect(note.objectID.isTemporaryID)
            child.refresh(note, mergeChanges: false)
            #expect(note.text == "draft", "a refreshed object reloads from the parent under its old ID")
            note.text = "final"
            try child.save()
        }
        try parent.performAndWait {
            #expect(
                parent.updatedObjects.compactMap { ($0 as? Note)?.text } == ["final"], "the same object, not a stand-in"
            )
            try parent.save()
        }
        #expect(try storeTexts(parent) == ["final", "first"])
    }

    @Test func childUsedInsideItsParentsBlockDoesNotDeadlock() throws {
        let parent = try root()
        let child = child(of: parent)
        try parent.performAndWait {
            try child.performAndWait {
                let note = Note(context: child)
                note.text = "nested"
                #expect(try child.count(for: NSFetchRequest<Note>(entityName: "Note")) == 2)
                try child.save()
            }
            #expect(parent.insertedObjects.count == 1)
        }
    }

    @Test func childPrefetchingAndToManyChangesRespectTheParentsUnsavedWork() throws {
        let parent = try root()
        let child = child(of: parent)
        let notebookID = try child.performAndWait {
            let notebook = try #require(try child.fetch(NSFetchRequest<Notebook>(entityName: "Notebook")).first)
            _ = notebook.notes?.count
            return notebook.objectID
        }
        try parent.performAndWait {
            let note = Note(context: parent)
            note.text = "parent's"
            note.notebook = try #require(parent.existingObject(with: notebookID) as? Notebook)
        }
        let other = self.child(of: parent)
        try other.performAndWait {
            let request = NSFetchRequest<Notebook>(entityName: "Notebook")
            request.relationshipKeyPathsForPrefetching = ["notes"]
            let notebook = try #require(try other.fetch(request).first)
            #expect(
                Set((notebook.notes as? Set<Note>)?.compactMap(\.text) ?? []) == ["first", "parent's"],
                "prefetching goes through the parent")
        }
        try child.performAndWait {
            let notebook = try #require(try child.existingObject(with: notebookID) as? Notebook)
            let note = Note(context: child)
            note.text = "child's"
            note.notebook = notebook
            try child.save()
        }
        try parent.performAndWait {
            let notebook = try #require(try parent.existingObject(with: notebookID) as? Notebook)
            #expect(
                Set((notebook.notes as? Set<Note>)?.compactMap(\.text) ?? []) == ["first", "parent's", "child's"],
                "the child's addition, not its whole member list")
        }
    }
}
