import Testing
@testable import OpenCoreDataCore
import OpenCoreDataStoreTestSupport

/// Faults, the row cache, batched results and prefetching: which queries run when.
@Suite struct FaultingTests {
    /// A store with `notebooks` notebooks of `notesEach` notes (pages 1…), saved; the context is reset.
    private func seeded(notebooks: Int = 3, notesEach: Int = 4) throws -> NSManagedObjectContext {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            for n in 0..<notebooks {
                let notebook = Notebook(context: context)
                notebook.name = "book \(n)"
                for i in 0..<notesEach {
                    let note = Note(context: context)
                    note.text = "note \(n).\(i)"
                    note.pages = Int16(i + 1)
                    note.notebook = notebook
                }
            }
            try context.save()
            context.reset()
        }
        return context
    }

    @Test func fetchedObjectsAreFaultsThatFireWithoutAQuery() throws {
        let context = try seeded()
        try context.performAndWait {
            let recorder = SQLRecorder(context)
            let notes = try context.fetch(Note.fetchRequest())
            #expect(notes.count == 12)
            #expect(notes.allSatisfy { $0.isFault && $0.faultingState == 1 })
            #expect(recorder.selects.count == 1)
            let pages = notes.map { Int($0.pages) }.reduce(0, +)
            #expect(pages == 3 * (1 + 2 + 3 + 4))
            #expect(!notes[0].isFault)
            #expect(recorder.selects.count == 1, "the fetch read the rows; firing the faults must not query again")
        }
    }

    @Test func returnsObjectsAsFaultsFalseLoadsAtOnce() throws {
        let context = try seeded()
        try context.performAndWait {
            let request = Note.fetchRequest()
            request.returnsObjectsAsFaults = false
            let notes = try context.fetch(request)
            #expect(notes.allSatisfy { !$0.isFault })
        }
    }

    @Test func withoutPropertyValuesEachTouchFiresOneQueryForItsRow() throws {
        let context = try seeded()
        try context.performAndWait {
            let request = Note.fetchRequest()
            request.includesPropertyValues = false
            request.sortDescriptors = [NSSortDescriptor(key: "text", ascending: true)]
            let recorder = SQLRecorder(context)
            let notes = try context.fetch(request)
            #expect(recorder.selects.count == 1)
            // One entity: its keys alone, so an index on the sort key can cover the query.
            #expect(recorder.selects[0].hasPrefix("SELECT t0.Z_PK FROM ZNOTE"))
            #expect(notes.allSatisfy { $0.isFault })
            recorder.clear()
            let firstText = notes[0].text
            #expect(firstText == "note 0.0")
            _ = notes[0].pages
            #expect(recorder.selects.count == 1)
            #expect(recorder.selects[0].hasSuffix("WHERE t0.Z_PK = ?"))
            _ = notes[1].text
            #expect(recorder.selects.count == 2)
        }
    }

    @Test func relationshipFaults() throws {
        let context = try seeded()
        try context.performAndWait {
            let request = Note.fetchRequest()
            request.predicate = NSPredicate(format: "text == %@", "note 1.2")
            let note = try #require(try context.fetch(request).first)
            let recorder = SQLRecorder(context)
            // A to-one is a fault object, made without a query.
            let notebook = try #require(note.notebook)
            #expect(notebook.isFault)
            #expect(note.hasFault(forRelationshipNamed: "tags"))
            #expect(recorder.selects.isEmpty)
            // Touching it reads its row; its to-many loads on first access, with one query.
            #expect(notebook.name == "book 1")
            #expect(recorder.selects.count == 1)
            #expect(notebook.hasFault(forRelationshipNamed: "notes"))
            #expect(notebook.notes?.count == 4)
            #expect(recorder.selects.count == 2)
            #expect(!notebook.hasFault(forRelationshipNamed: "notes"))
        }
    }

    @Test func rowCacheIsSharedByTheContextsOfOneCoordinator() throws {
        let context = try seeded()
        let other = siblingContext(of: context)
        try context.performAndWait {
            let notes = try context.fetch(Note.fetchRequest())
            _ = notes.map(\.text)
            let ids = notes.map(\.objectID)
            let recorder = SQLRecorder(context)
            other.performAndWait {
                let copy = other.object(with: ids[0])
                #expect(copy.isFault)
                #expect(copy.value(forKey: "text") as? String == notes[0].text)
            }
            #expect(recorder.selects.isEmpty, "the other context's fault fired from the shared snapshot")
            // No staleness accepted: the fault reads the store.
            other.stalenessInterval = 0
            other.performAndWait {
                _ = other.object(with: ids[1]).value(forKey: "text")
            }
            #expect(recorder.selects.count == 1)
        }
    }

    @Test func unreferencedObjectsAndSnapshotsAreReleased() throws {
        let context = try seeded()
        let coordinator = try #require(context.persistentStoreCoordinator)
        try context.performAndWait {
            do {
                let notes = try context.fetch(Note.fetchRequest())
                _ = notes.map(\.text)
                #expect(context.registeredObjects.count == 12)
                #expect(coordinator.cachedRowCount == 12)
            }
            #expect(context.registeredObjects.isEmpty)
            #expect(coordinator.cachedRowCount == 0)

            context.retainsRegisteredObjects = true
            do { _ = try context.fetch(Note.fetchRequest()) }
            #expect(context.registeredObjects.count == 12)
            context.retainsRegisteredObjects = false
            #expect(context.registeredObjects.isEmpty)

            // Objects with unsaved changes stay, whoever references them.
            do {
                let note = try #require(try context.fetch(Note.fetchRequest()).first)
                note.text = "changed"
            }
            #expect(context.registeredObjects.count == 1)
            #expect(context.updatedObjects.first?.value(forKey: "text") as? String == "changed")
        }
    }

    @Test func batchedResultsMaterializeLazily() throws {
        let context = try seeded(notebooks: 1, notesEach: 230)
        try context.performAndWait {
            let request = Note.fetchRequest()
            request.fetchBatchSize = 50
            request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
            let recorder = SQLRecorder(context)
            let notes = try context.fetchBatched(request)
            #expect(notes.count == 230)
            #expect(recorder.selects.count == 1, "only the keys are read up front")
            #expect(context.registeredObjects.isEmpty)
            #expect(notes[0].pages == 230)
            #expect(recorder.selects.count == 2)
            for index in 1..<50 { _ = notes[index].pages }
            #expect(recorder.selects.count == 2, "the rest of the batch came with the first read")
            #expect(notes[50].pages == 180)
            #expect(recorder.selects.count == 3)
            #expect(notes[229].pages == 1)
            #expect(recorder.selects.count == 4)
            // Batches that were left behind are released: memory stays bounded.
            var total = 0
            for note in notes { total += Int(note.pages) }
            #expect(total == 230 * 231 / 2)
            #expect(context.registeredObjects.count <= 50)
            #expect(Array(notes.prefix(3)).map(\.pages) == [230, 229, 228])
        }
    }

    @Test func batchedResultsSeeUnsavedChangesAndReturnIDs() throws {
        let context = try seeded(notebooks: 1, notesEach: 10)
        try context.performAndWait {
            let request = Note.fetchRequest()
            request.fetchBatchSize = 4
            let fresh = Note(context: context)
            fresh.text = "unsaved"
            let notes = try context.fetchBatched(request)
            #expect(notes.count == 11)
            #expect(notes.contains(fresh))

            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
            ids.resultType = .managedObjectIDResultType
            ids.includesPendingChanges = false
            let list = try context.fetchBatched(ids)
            #expect(list.count == 10)
            #expect(list.allSatisfy { !$0.isTemporaryID })

            let wrong = NSFetchRequest<Notebook>(entityName: "Note")
            #expect(throws: NSError.self) { try context.fetchBatched(wrong) }
            let mismatched = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
            #expect(throws: NSError.self) { try context.fetchBatched(mismatched) }
        }
        // A child context sees its parent's unsaved objects too.
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = context
        try child.performAndWait {
            let request = Note.fetchRequest()
            request.fetchBatchSize = 4
            let notes = try child.fetchBatched(request)
            #expect(notes.count == 11)
            #expect(notes.contains { $0.text == "unsaved" })
        }
    }

    @Test func prefetchingAvoidsAQueryPerObject() throws {
        let context = try seeded(notebooks: 5, notesEach: 6)
        try context.performAndWait {
            let request = Notebook.fetchRequest()
            request.relationshipKeyPathsForPrefetching = ["notes"]
            let recorder = SQLRecorder(context)
            let notebooks = try context.fetch(request)
            #expect(recorder.selects.count == 2)
            let pages = notebooks.flatMap { ($0.notes as? Set<Note>) ?? [] }.map { Int($0.pages) }.reduce(0, +)
            #expect(pages == 5 * (1 + 2 + 3 + 4 + 5 + 6))
            #expect(recorder.selects.count == 2, "no query per notebook or per note")

            let notesRequest = Note.fetchRequest()
            notesRequest.relationshipKeyPathsForPrefetching = ["notebook", "notebook.notes"]
            recorder.clear()
            let notes = try context.fetch(notesRequest)
            let names = Set(notes.compactMap { $0.notebook?.name })
            #expect(names.count == 5)
            #expect(notes.allSatisfy { ($0.notebook?.notes?.count ?? 0) == 6 })
            #expect(recorder.selects.count <= 3)

            let bad = Note.fetchRequest()
            bad.relationshipKeyPathsForPrefetching = ["text"]
            #expect(throws: NSError.self) { try context.fetch(bad) }
        }
    }

    @Test func refreshMergesOrDiscardsChanges() throws {
        let context = try seeded(notebooks: 1, notesEach: 1)
        let writer = siblingContext(of: context)
        try context.performAndWait {
            let note = try #require(try context.fetch(Note.fetchRequest()).first)
            note.text = "local edit"
            try writer.performAndWait {
                let copy = try #require(try writer.fetch(Note.fetchRequest()).first)
                copy.pages = 42
                try writer.save()
            }
            context.refresh(note, mergeChanges: true)
            #expect(note.text == "local edit")
            #expect(note.pages == 42, "the saved value of the other context came in")
            #expect(note.isUpdated)

            context.refresh(note, mergeChanges: false)
            #expect(note.isFault)
            #expect(!note.hasChanges)
            #expect(note.text == "note 0.0")

            note.text = "again"
            context.refreshAllObjects()
            #expect(note.text == "again")
        }
    }
}

@Suite struct FaultingValidationTests {
    @Test func unloadedRequiredToManyDoesNotFailAnUpdate() throws {
        let model = ModelBuilder.notesModel()
        let notes = model.entitiesByName["Notebook"]!.propertiesByName["notes"] as! NSRelationshipDescription
        notes.isOptional = false
        let context = try makeContext(model)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "kept"
            let note = Note(context: context)
            note.notebook = notebook
            try context.save()
            context.reset()
            let fetched = try #require(try context.fetch(Notebook.fetchRequest()).first)
            fetched.name = "renamed"
            let recorder = SQLRecorder(context)
            try context.save()
            // The save's optimistic-locking check reads row versions only; nothing else is read.
            #expect(recorder.selects.isEmpty, "validation must not load the to-many")
        }
    }
}

@Suite struct FaultingMergeTests {
    @Test func untouchedFaultsDoNotFireFromTheirFetchedRowAfterAMerge() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            let note = Note(context: context)
            note.text = "before"
            try context.save()
            context.reset()
            // A fault holding the row its fetch read, never touched.
            let fetched = try #require(try context.fetch(Note.fetchRequest()).first)
            #expect(fetched.isFault)
            let update = NSBatchUpdateRequest(entityName: "Note")
            update.propertiesToUpdate = ["text": "after"]
            update.resultType = .updatedObjectIDsResultType
            let ids = try (context.execute(update) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID] ?? []
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [context])
            #expect(fetched.text == "after")
        }
    }
}

/// Regressions from the review of the faulting work.
@Suite struct FaultingReviewTests {
    @Test func batchedIDsWithUnsavedChangesAreIDs() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            let note = Note(context: context)
            note.text = "unsaved"
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
            request.resultType = .managedObjectIDResultType
            let ids = try context.fetchBatched(request)
            #expect(Array(ids) == [note.objectID])
        }
    }

    @Test func newObjectWithPermanentIDHasAnEmptyLoadedToMany() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "new"
            try context.obtainPermanentIDs(for: [notebook])
            #expect(!notebook.objectID.isTemporaryID)
            let recorder = SQLRecorder(context)
            #expect(!notebook.hasFault(forRelationshipNamed: "notes"))
            #expect(notebook.notes?.count == 0)
            #expect(recorder.selects.isEmpty, "there is no row to read yet")
        }
    }

    @Test func faultFiresFromARowSavedAfterItsFetch() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        let writer = siblingContext(of: context)
        try context.performAndWait {
            let note = Note(context: context)
            note.text = "v1"
            try context.save()
            context.reset()
            let fetched = try #require(try context.fetch(Note.fetchRequest()).first)
            #expect(fetched.isFault)
            try writer.performAndWait {
                let copy = try #require(try writer.fetch(Note.fetchRequest()).first)
                copy.text = "v2"
                try writer.save()
            }
            // The other context's save is newer than the row this fault's fetch read.
            #expect(fetched.text == "v2")
            fetched.text = "v3"
            try context.save()
        }
    }

    @Test func reloadingALoadedObjectDropsItsStaleToMany() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        let writer = siblingContext(of: context)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "book"
            try context.save()
            #expect(notebook.notes?.count == 0)
            let id = notebook.objectID
            try writer.performAndWait {
                let note = Note(context: writer)
                note.notebook = try writer.existingObject(with: id) as? Notebook
                try writer.save()
            }
            let request = Notebook.fetchRequest()
            request.shouldRefreshRefetchedObjects = true
            _ = try context.fetch(request)
            #expect(notebook.notes?.count == 1)
        }
    }
}
