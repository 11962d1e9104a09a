@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// Collects the `NSManagedObjectContextObjectsDidChange` notifications of one context.
private final class ChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var notes: [[AnyHashable: Any]] = []
    private var observer: (any NSObjectProtocol)?

    init(_ context: NSManagedObjectContext) {
        observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
        ) { [weak self] note in
            guard let self else { return }
            self.lock.lock()
            self.notes.append(note.userInfo ?? [:])
            self.lock.unlock()
        }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    /// The inserted, updated and deleted objects of the notifications since the last call.
    func take() -> (inserted: Set<NSManagedObject>, updated: Set<NSManagedObject>, deleted: Set<NSManagedObject>) {
        lock.lock()
        defer { notes.removeAll(); lock.unlock() }
        var result: (inserted: Set<NSManagedObject>, updated: Set<NSManagedObject>, deleted: Set<NSManagedObject>) = (
            [], [], []
        )
        for info in notes {
            result.inserted.formUnion(info[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? [])
            result.updated.formUnion(info[NSUpdatedObjectsKey] as? Set<NSManagedObject> ?? [])
            result.deleted.formUnion(info[NSDeletedObjectsKey] as? Set<NSManagedObject> ?? [])
        }
        return result
    }
}

/// What a context reports of its unsaved changes, to compare before and after undo.
private struct ContextChanges: Equatable {
    let hasChanges: Bool
    let inserted: Set<NSManagedObject>
    let updated: Set<NSManagedObject>
    let deleted: Set<NSManagedObject>

    init(_ context: NSManagedObjectContext) {
        hasChanges = context.hasChanges
        inserted = context.insertedObjects
        updated = context.updatedObjects
        deleted = context.deletedObjects
    }
}

@Suite struct ContextUndoTests {
    let model = ModelBuilder.notesModel()

    /// A store-backed private-queue context with its own undo manager.
    private func makeUndoContext() throws -> NSManagedObjectContext {
        let context = try makeContext(model)
        context.performAndWait { context.undoManager = UndoManager() }
        return context
    }

    private func makeNotebook(_ name: String, in context: NSManagedObjectContext) -> Notebook {
        let notebook = Notebook(context: context)
        notebook.name = name
        return notebook
    }

    /// New notes with `texts`, in `notebook`.
    private func makeNotes(_ texts: [String], in notebook: Notebook) -> [Note] {
        texts.map { text in
            let note = Note(context: notebook.managedObjectContext!)
            note.text = text
            note.notebook = notebook
            return note
        }
    }

    private func titles(_ notebook: Notebook) -> Set<String> {
        Set((notebook.notes as? Set<Note> ?? []).compactMap(\.text))
    }

    @Test func undoManagerAndObjectsAreReleasedWithTheContext() throws {
        weak var weakManager: UndoManager?
        weak var weakNotebook: Notebook?
        do {
            let context = try makeUndoContext()
            weakManager = context.undoManager
            try context.performAndWait {
                let notebook = makeNotebook("Kept?", in: context)
                weakNotebook = notebook
                context.processPendingChanges()
                notebook.name = "Renamed"
                context.processPendingChanges()
                #expect(context.undoManager?.canUndo == true)
                try context.save()
            }
        }
        #expect(weakManager == nil, "the undo stack must not keep its manager alive through the recorded objects")
        #expect(weakNotebook == nil)
    }

    @Test func noUndoManagerByDefault() throws {
        let context = try makeContext(model)
        context.performAndWait {
            #expect(context.undoManager == nil)
            let notebook = makeNotebook("Inbox", in: context)
            context.processPendingChanges()
            context.undo()
            #expect(notebook.name == "Inbox")
            #expect(context.insertedObjects == [notebook])
        }
    }

    /// Found by the results controller's random test: undoing the deletion of an object
    /// with unsaved changes, after a refresh of other objects, left it out of
    /// `updatedObjects`, so fetches no longer saw its changes.
    @Test func undoingADeletionAfterARefreshKeepsTheObjectsChanges() throws {
        let context = try makeUndoContext()
        try context.performAndWait {
            let notebook = makeNotebook("Inbox", in: context)
            let other = makeNotebook("Other", in: context)
            try context.save()
            notebook.name = "Renamed"
            context.processPendingChanges()
            context.delete(notebook)
            context.processPendingChanges()
            context.refreshAllObjects()
            #expect(other.isFault, "the refresh ran")
            context.undo()
            #expect(!notebook.isDeleted && notebook.name == "Renamed")
            #expect(context.updatedObjects.contains(notebook))
            let request = NSFetchRequest<Notebook>(entityName: "Notebook")
            request.predicate = NSPredicate(format: "name == 'Renamed'")
            #expect(try context.fetch(request) == [notebook])
        }
    }

    @Test func insertUndoesAndRedoes() throws {
        let context = try makeUndoContext()
        try context.performAndWait {
            let log = ChangeLog(context)
            let notebook = makeNotebook("Inbox", in: context)
            context.processPendingChanges()
            _ = log.take()
            #expect(context.undoManager?.canUndo == true)

            context.undo()
            #expect(!context.hasChanges)
            #expect(context.insertedObjects.isEmpty)
            #expect(!notebook.isInserted)
            #expect(notebook.managedObjectContext == nil)
            #expect(log.take().deleted == [notebook])

            context.redo()
            #expect(context.insertedObjects == [notebook])
            #expect(notebook.isInserted)
            #expect(notebook.managedObjectContext === context)
            #expect(notebook.name == "Inbox")
            #expect(log.take().inserted == [notebook])

            try context.save()
            let sibling = siblingContext(of: context)
            let fetched = try sibling.performAndWait {
                try sibling.count(for: NSFetchRequest<Notebook>(entityName: "Notebook"))
            }
            #expect(fetched == 1)
        }
    }

    @Test func attributeChangesUndoExactlyAndGroupPerProcessPendingChanges() throws {
        let context = try makeUndoContext()
        try context.performAndWait {
            let notebook = makeNotebook("A", in: context)
            try context.save()
            let saved = ContextChanges(context)

            notebook.name = "B"
            context.processPendingChanges()
            let afterB = ContextChanges(context)
            notebook.name = "C"
            notebook.creationDate = Date(timeIntervalSinceReferenceDate: 7)
            context.processPendingChanges()

            context.undo()
            #expect(notebook.name == "B")
            #expect(notebook.creationDate == nil)
            #expect(ContextChanges(context) == afterB)
            #expect(context.updatedObjects == [notebook])

            context.undo()
            #expect(notebook.name == "A")
            #expect(ContextChanges(context) == saved)
            #expect(!notebook.hasChanges)
            #expect(notebook.changedValues().isEmpty)
            #expect(context.undoManager?.canUndo == true)  // the insert, before the save

            context.redo()
            context.redo()
            #expect(notebook.name == "C")
            #expect(notebook.creationDate == Date(timeIntervalSinceReferenceDate: 7))
            #expect(context.updatedObjects == [notebook])
            #expect(Set(notebook.changedValues().keys) == ["name", "creationDate"])
        }
    }

    @Test func pendingChangesAreRegisteredBeforeUndoAndAreWhatItUndoes() throws {
        let context = try makeUndoContext()
        context.performAndWait {
            let notebook = makeNotebook("A", in: context)
            context.processPendingChanges()
            notebook.name = "B"
            // No processPendingChanges: undo's checkpoint registers the change, then undoes it.
            context.undo()
            #expect(notebook.name == "A")
            #expect(notebook.isInserted)
            context.undo()
            #expect(!notebook.isInserted)
        }
    }

    @Test func toOneAndToManyRelationshipsUndoWithTheirInverses() throws {
        let context = try makeUndoContext()
        try context.performAndWait {
            let home = makeNotebook("Home", in: context)
            let work = makeNotebook("Work", in: context)
            let note = Note(context: context)
            note.text = "n"
            note.notebook = home
            let red = Tag(context: context)
            red.title = "red"
            let blue = Tag(context: context)
            blue.title = "blue"
            note.tags = [red]
            try context.save()
            let saved = ContextChanges(context)

            note.notebook = work
            note.tags = [blue]
            context.processPendingChanges()
            #expect(work.notes?.count == 1 && home.notes?.count == 0)
            #expect(red.notes == [] && blue.notes == [note])

            context.undo()
            #expect(note.notebook === home)
            #expect(home.notes?.contains(note) == true)
            #expect(work.notes?.count == 0)
            #expect(note.tags == [red])
            #expect(red.notes == [note])
            #expect(blue.notes == [])
            #expect(ContextChanges(context) == saved)

            context.redo()
            #expect(note.notebook === work)
            #expect(work.notes?.contains(note) == true)
            #expect(home.notes?.count == 0)
            #expect(note.tags == [blue])
            #expect(red.notes == [])
            #expect(blue.notes == [note])
            #expect(context.updatedObjects == [note, home, work, red, blue])

            try context.save()
            let sibling = siblingContext(of: context)
            try sibling.performAndWait {
                let request = NSFetchRequest<Note>(entityName: "Note")
                let stored = try sibling.fetch(request)
                #expect(stored.first?.notebook?.name == "Work")
                #expect(stored.first?.tags?.map(\.title) == ["blue"])
            }
        }
    }

    @Test func orderedRelationshipOrderUndoes() throws {
        let context = try makeUndoContext()
        try context.performAndWait {
            let playlist = Playlist(context: context)
            let songs = (1...3).map { number -> Song in
                let song = Song(context: context)
                song.title = "\(number)"
                return song
            }
            playlist.songs = NSOrderedSet(array: songs)
            try context.save()

            playlist.mutableOrderedSetValue(forKey: "songs").exchangeObject(at: 0, withObjectAt: 2)
            playlist.mutableOrderedSetValue(forKey: "songs").removeObject(at: 1)
            context.processPendingChanges()
            #expect((playlist.songs?.array as? [Song])?.map(\.title) == ["3", "1"])
            #expect(songs[1].playlist == nil)

            context.undo()
            #expect((playlist.songs?.array as? [Song])?.map(\.title) == ["1", "2", "3"])
            #expect(songs[1].playlist === playlist)
            #expect(!context.hasChanges)
        }
    }

    @Test func cascadeDeleteUndoRestoresTheChildrenAndNullifiedInverses() throws {
        let context = try makeUndoContext()
        try context.performAndWait {
            let log = ChangeLog(context)
            let notebook = makeNotebook("Trip", in: context)
            let notes = makeNotes(["a", "b"], in: notebook)
            let tag = Tag(context: context)
            tag.title = "travel"
            tag.notes = Set(notes)
            try context.save()
            let saved = ContextChanges(context)
            _ = log.take()

            context.delete(notebook)
            context.processPendingChanges()
            #expect(context.deletedObjects == Set([notebook] + notes))
            #expect(tag.notes == [])
            _ = log.take()

            context.undo()
            #expect(ContextChanges(context) == saved)
            #expect(!notebook.isDeleted && notes.allSatisfy { !$0.isDeleted })
            #expect(titles(notebook) == ["a", "b"])
            #expect(tag.notes == Set(notes))
            #expect(notes.allSatisfy { $0.notebook === notebook })
            #expect(log.take().inserted == Set([notebook] + notes))

            context.redo()
            #expect(context.deletedObjects == Set([notebook] + notes))
            #expect(tag.notes == [])
            #expect(log.take().deleted == Set([notebook] + notes))
        }
    }

    @Test func undoAfterSaveThenSaveWritesTheUndoneState() throws {
        let context = try makeUndoContext()
        let sibling = siblingContext(of: context)
        func storedNames() throws -> [String] {
            try sibling.performAndWait {
                sibling.reset()
                let request = NSFetchRequest<Notebook>(entityName: "Notebook")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                return try sibling.fetch(request).compactMap(\.name)
            }
        }
        try context.performAndWait {
            let notebook = makeNotebook("A", in: context)
            try context.save()
            notebook.name = "B"
            try context.save()
            #expect(try storedNames() == ["B"])
            // Saving keeps the undo stack.
            #expect(context.undoManager?.canUndo == true)

            context.undo()
            #expect(notebook.name == "A")
            #expect(context.updatedObjects == [notebook])
            try context.save()
            #expect(try storedNames() == ["A"])

            // Undoing the insert after it was saved deletes the row.
            context.undo()
            #expect(context.deletedObjects == [notebook])
            try context.save()
            #expect(try storedNames() == [])

            // Redoing it after that save inserts it again, with its values.
            context.redo()
            #expect(context.insertedObjects == [notebook])
            #expect(notebook.name == "A")
            try context.save()
            #expect(try storedNames() == ["A"])
            context.redo()
            #expect(notebook.name == "B")
            try context.save()
            #expect(try storedNames() == ["B"])
        }
    }

    @Test func undoOfASavedCascadeDeleteBringsTheRowsBack() throws {
        let context = try makeUndoContext()
        let sibling = siblingContext(of: context)
        try context.performAndWait {
            let notebook = makeNotebook("Trip", in: context)
            _ = makeNotes(["a", "b"], in: notebook)
            try context.save()
            context.delete(notebook)
            try context.save()
            #expect(
                try sibling.performAndWait { try sibling.count(for: NSFetchRequest<Note>(entityName: "Note")) } == 0)

            context.undo()
            #expect(context.insertedObjects.count == 3)
            try context.save()
            try sibling.performAndWait {
                let stored = try sibling.fetch(NSFetchRequest<Notebook>(entityName: "Notebook"))
                #expect(stored.count == 1)
                #expect(stored.first.map(titles) == ["a", "b"])
            }
        }
    }

    /// A notebook another context deleted (merged here) is not brought back by undoing
    /// a step that changed it, and a restored relationship does not point at it.
    @Test func undoLeavesObjectsDeletedElsewhereDeleted() throws {
        let context = try makeUndoContext()
        let (notebook, note) = try context.performAndWait {
            let notebook = makeNotebook("A", in: context)
            let note = makeNotes(["n"], in: notebook)[0]
            try context.save()
            note.notebook = nil
            notebook.name = "B"
            try context.save()
            return (notebook, note)
        }
        let id = context.performAndWait { notebook.objectID }
        let other = siblingContext(of: context)
        try other.performAndWait {
            other.delete(try other.existingObject(with: id))
            try other.save()
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: [id]], into: [context])
        try context.performAndWait {
            #expect(notebook.isDeleted && notebook.managedObjectContext == nil)
            context.undo()
            #expect(notebook.managedObjectContext == nil && notebook.isDeleted, "not back as a saved object")
            #expect(note.notebook == nil, "no link to a row that is gone")
            #expect(!context.hasChanges)
            try context.save()
            #expect(try context.count(for: NSFetchRequest<Notebook>(entityName: "Notebook")) == 0)
            // Pointing at it by hand cannot write a key to the missing row either.
            note.notebook = notebook
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSManagedObjectExternalRelationshipError, "not in this context")
        }
    }

    @Test func deletingAnUnsavedObjectUndoesToInserted() throws {
        let context = try makeUndoContext()
        context.performAndWait {
            let notebook = makeNotebook("Trip", in: context)
            let note = Note(context: context)
            note.notebook = notebook
            context.processPendingChanges()
            context.delete(note)
            context.processPendingChanges()
            #expect(context.insertedObjects == [notebook])
            #expect(notebook.notes?.count == 0)

            context.undo()
            #expect(context.insertedObjects == [notebook, note])
            #expect(note.managedObjectContext === context)
            #expect(notebook.notes?.contains(note) == true)
            #expect(note.notebook === notebook)
        }
    }

    @Test func undoReloadsAnObjectTurnedIntoAFault() throws {
        let context = try makeUndoContext()
        try context.performAndWait {
            let notebook = makeNotebook("A", in: context)
            try context.save()
            notebook.name = "B"
            try context.save()
            context.refresh(notebook, mergeChanges: false)
            #expect(notebook.isFault)

            context.undo()
            #expect(!notebook.isFault)
            #expect(notebook.name == "A")
            #expect(context.updatedObjects == [notebook])
            #expect(notebook.changedValues()["name"] as? String == "A")
        }
    }

    @Test func aChildsSaveIsUndoableInTheParentAndInTheChild() throws {
        let parent = try makeUndoContext()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        try child.performAndWait {
            child.undoManager = UndoManager()
            let notebook = makeNotebook("Draft", in: child)
            try child.save()
            #expect(!child.hasChanges)
            // Undone in the child after its save: the next save deletes it from the parent.
            child.undo()
            #expect(child.deletedObjects == [notebook])
            try child.save()
        }
        parent.performAndWait {
            #expect(!parent.hasChanges)
            // The parent recorded the first save's insert and the second's delete.
            parent.undo()
            #expect(parent.insertedObjects.count == 1)
            #expect((parent.insertedObjects.first as? Notebook)?.name == "Draft")
            parent.undo()
            #expect(!parent.hasChanges)
            #expect(parent.undoManager?.canUndo == false)
        }
    }

    @Test func changesWithRegistrationDisabledAreNotUndoable() throws {
        let context = try makeUndoContext()
        try context.performAndWait {
            let manager = try #require(context.undoManager)
            let notebook = makeNotebook("A", in: context)
            context.processPendingChanges()
            manager.disableUndoRegistration()
            notebook.name = "B"
            context.processPendingChanges()
            manager.enableUndoRegistration()
            context.undo()
            // The insert is undone; the disabled change was never recorded.
            #expect(!notebook.isInserted)
            #expect(!manager.canUndo)
        }
    }

    @Test func rollbackAndResetClearTheContextsUndoActions() throws {
        let context = try makeUndoContext()
        context.performAndWait {
            let manager = context.undoManager!
            let other = NSObject()
            manager.registerUndo(withTarget: other) { _ in }
            _ = makeNotebook("A", in: context)
            context.processPendingChanges()
            context.rollback()
            // The other target's action stays.
            #expect(manager.canUndo)
            manager.removeAllActions()

            _ = Notebook(context: context)
            context.processPendingChanges()
            #expect(manager.canUndo)
            context.reset()
            #expect(!manager.canUndo)
        }
    }

    @Test func groupingFollowsTheManagersGroups() throws {
        let context = try makeUndoContext()
        context.performAndWait {
            let manager = context.undoManager!
            let notebook = makeNotebook("A", in: context)
            context.processPendingChanges()
            // An explicit group collects several processPendingChanges.
            manager.beginUndoGrouping()
            notebook.name = "B"
            context.processPendingChanges()
            notebook.name = "C"
            context.processPendingChanges()
            manager.endUndoGrouping()
            context.undo()
            #expect(notebook.name == "A")

            // Without groupsByEvent, each processPendingChanges makes its own group.
            manager.groupsByEvent = false
            notebook.name = "D"
            context.processPendingChanges()
            notebook.name = "E"
            context.processPendingChanges()
            #expect(manager.groupingLevel == 0)
            context.undo()
            #expect(notebook.name == "D")
        }
    }

    @Test func actionNamesApplyToPendingChanges() throws {
        let context = try makeUndoContext()
        context.performAndWait {
            let manager = context.undoManager!
            let notebook = makeNotebook("A", in: context)
            manager.setActionName("New Notebook")
            notebook.name = "B"
            manager.setActionName("Rename")
            #expect(manager.undoActionName == "Rename")
            context.undo()
            #expect(notebook.name == "A")
            #expect(manager.undoActionName == "New Notebook")
            #expect(manager.redoActionName == "Rename")
        }
    }

    @Test func eachPerformBlockIsOneUndoGroup() async throws {
        let context = try makeUndoContext()
        let notebook = await context.perform {
            let notebook = makeNotebook("A", in: context)
            return UncheckedSendable(notebook)
        }.value
        await context.perform { notebook.name = "B" }
        await context.perform { notebook.name = "C" }
        let names = await context.perform {
            #expect(context.undoManager?.groupingLevel == 0)
            context.undo()
            let first = notebook.name
            context.undo()
            return [first, notebook.name]
        }
        #expect(names == ["B", "A"])
    }

    @Test func aSharedUndoManagerInterleavesContextAndAppActions() throws {
        let context = try makeUndoContext()
        context.performAndWait {
            let manager = context.undoManager!
            final class Counter { var value = 0 }
            let counter = Counter()
            let notebook = makeNotebook("A", in: context)
            context.processPendingChanges()
            manager.beginUndoGrouping()
            counter.value = 1
            manager.registerUndo(withTarget: counter) { $0.value = 0 }
            notebook.name = "B"
            manager.endUndoGrouping()
            context.undo()
            #expect(counter.value == 0)
            #expect(notebook.name == "A")
            context.redo()
            #expect(notebook.name == "B")
        }
    }

    /// Reading the manager from another thread (a UI asking `canRedo`, which checkpoints, of
    /// a private-queue context) checkpoints the context on its own queue: after the work
    /// queued there.
    @Test func aCheckpointFromAnotherThreadWaitsForTheContextsQueue() throws {
        let context = try makeUndoContext()
        let manager = try #require(context.performAndWait { context.undoManager })
        let order = OrderLog()
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        context.perform {
            started.signal()
            release.wait()
            order.append("queued work done")
        }
        started.wait()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { release.signal() }
        _ = manager.canRedo
        order.append("checkpoint done")
        #expect(order.entries == ["queued work done", "checkpoint done"])
    }

    /// What `willSave()` changes belongs to the save's event: one undo takes back both the
    /// app's change and the stamp `willSave()` added.
    @Test func willSaveChangesShareTheSavesUndoGroup() throws {
        let stamped = ModelBuilder.entity("UndoStampedNote", className: NSStringFromClass(UndoStampedNote.self))
        stamped.properties = [
            ModelBuilder.attribute("text", .stringAttributeType), ModelBuilder.attribute("stamp", .stringAttributeType),
        ]
        let context = try makeContext(ModelBuilder.model(stamped))
        try context.performAndWait {
            context.undoManager = UndoManager()
            let entity = try #require(
                context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["UndoStampedNote"])
            let note = UndoStampedNote(entity: entity, insertInto: context)
            note.setValue("a", forKey: "text")
            try context.save()
            #expect(note.value(forKey: "stamp") as? String == "stamped")
            context.undo()
            // The insert is undone (the saved row is to be deleted), not just the stamp.
            #expect(note.isDeleted)
            #expect(context.undoManager?.canUndo == false)
        }
    }
}

/// Stamps itself in `willSave()`, as apps set modification dates.
final class UndoStampedNote: NSManagedObject {
    override func willSave() {
        super.willSave()
        if !isDeleted, value(forKey: "stamp") == nil { setValue("stamped", forKey: "stamp") }
    }
}

private final class OrderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [String] = []
    func append(_ entry: String) { lock.withLock { log.append(entry) } }
    var entries: [String] { lock.withLock { log } }
}
