import GRDB
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

@Suite struct ContextTests {
    let model = ModelBuilder.notesModel()

    @Test func cascadeDeletesNotesAndNullifyUpdatesInverse() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Coding Notes"
            let first = Note(context: context)
            first.notebook = notebook
            let second = Note(context: context)
            second.notebook = notebook
            try context.save()

            context.delete(first)
            context.processPendingChanges()
            #expect(notebook.notes?.count == 1, "nullify removed the deleted note from its notebook")
            context.delete(notebook)
            try context.save()
            let remaining = try context.count(for: NSFetchRequest<Note>(entityName: "Note"))
            #expect(remaining == 0, "cascade deleted the notebook's notes")
        }
    }

    @Test func cascadeCycleDeletesEachObjectOnce() throws {
        let a = ModelBuilder.entity("Left", className: "NSManagedObject")
        let b = ModelBuilder.entity("Right", className: "NSManagedObject")
        let (forward, inverse) = ModelBuilder.pair(
            "right", from: a, toMany: false, rule: .cascadeDeleteRule, "left", to: b, toMany: false,
            rule: .cascadeDeleteRule)
        a.properties = [forward]
        b.properties = [inverse]
        let model = NSManagedObjectModel()
        model.entities = [a, b]
        let context = try makeContext(model)
        try context.performAndWait {
            let left = NSEntityDescription.insertNewObject(forEntityName: "Left", into: context)
            let right = NSEntityDescription.insertNewObject(forEntityName: "Right", into: context)
            left.setValue(right, forKey: "right")
            #expect(right.value(forKey: "left") as? NSManagedObject === left)
            try context.save()
            context.delete(left)
            try context.save()
            let lefts = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Left"))
            let rights = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Right"))
            #expect(lefts == 0 && rights == 0)
        }
    }

    @Test func notificationsCarryAppleKeys() throws {
        let context = try makeContext(model)
        let center = NotificationCenter.default
        nonisolated(unsafe) var saved: [AnyHashable: Any] = [:]
        nonisolated(unsafe) var changed: [AnyHashable: Any] = [:]
        nonisolated(unsafe) var willSave = 0
        let tokens = [
            center.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) {
                saved = $0.userInfo ?? [:]
            },
            center.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) {
                changed = $0.userInfo ?? [:]
            },
            center.addObserver(forName: .NSManagedObjectContextWillSave, object: context, queue: nil) { _ in
                willSave += 1
            },
        ]
        defer { tokens.forEach(center.removeObserver) }
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Inbox"
            context.processPendingChanges()
            #expect((changed[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.contains(notebook) == true)
            try context.save()
            #expect(willSave == 1)
            #expect((saved[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.contains(notebook) == true)
            notebook.name = "Outbox"
            try context.save()
            #expect((saved[NSUpdatedObjectsKey] as? Set<NSManagedObject>)?.contains(notebook) == true)
            context.delete(notebook)
            try context.save()
            #expect((saved[NSDeletedObjectsKey] as? Set<NSManagedObject>)?.count == 1)
        }
    }

    /// Observers that build the name from Core Data's string (or log it) see the same
    /// notifications: the raw values are the ones Core Data posts.
    @Test func notificationNamesHaveCoreDataRawValues() {
        #expect(
            Notification.Name.NSManagedObjectContextObjectsDidChange.rawValue
                == "NSObjectsChangedInManagingContextNotification")
        #expect(
            Notification.Name.NSManagedObjectContextWillSave.rawValue == "NSManagingContextWillSaveChangesNotification")
        #expect(
            Notification.Name.NSManagedObjectContextDidSave.rawValue == "NSManagingContextDidSaveChangesNotification")
        #expect(
            Notification.Name.NSManagedObjectContextDidSaveObjectIDs.rawValue
                == "NSManagedObjectContextDidSaveObjectIDsNotification")
        #expect(NSManagedObjectContext.didSaveObjectsNotification == .NSManagedObjectContextDidSave)
    }

    @Test func pendingChangesCountInFetches() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            for name in ["b", "d"] { Notebook(context: context).name = name }
            try context.save()
            Notebook(context: context).name = "a"
            let request = Notebook.fetchRequest()
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            var names = try context.fetch(request).compactMap(\.name)
            #expect(names == ["a", "b", "d"])
            let d = try context.fetch(request).last!
            d.name = "c"
            request.predicate = NSPredicate(format: "name < %@", "d")
            names = try context.fetch(request).compactMap(\.name)
            #expect(names == ["a", "b", "c"])
            context.delete(d)
            let count = try context.count(for: request)
            #expect(count == 2)
            request.includesPendingChanges = false
            names = try context.fetch(request).compactMap(\.name)
            #expect(names == ["b"])
        }
    }

    @Test func rollbackRestoresSavedValues() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Saved"
            try context.save()
            notebook.name = "Changed"
            #expect(notebook.isUpdated && context.hasChanges)
            #expect(notebook.changedValues()["name"] as? String == "Changed")
            #expect(notebook.committedValues(forKeys: ["name"])["name"] as? String == "Saved")
            context.rollback()
            #expect(notebook.name == "Saved")
            #expect(!context.hasChanges)
        }
    }

    @Test func badFetchRequestsThrowClearErrors() throws {
        let context = try makeContext(model)
        context.performAndWait {
            let unknownEntity = NSFetchRequest<NSManagedObject>(entityName: "Nope")
            let entityError = #expect(throws: NSError.self) { try context.fetch(unknownEntity) }
            #expect(entityError?.localizedDescription.contains("Nope") == true)
            let unknownKey = Notebook.fetchRequest()
            unknownKey.predicate = NSPredicate(format: "colour == 'red'")
            let keyError = #expect(throws: NSError.self) { try context.fetch(unknownKey) }
            #expect(keyError?.localizedDescription.contains("colour") == true)
            let unknownSort = Notebook.fetchRequest()
            unknownSort.sortDescriptors = [NSSortDescriptor(key: "size", ascending: true)]
            #expect(throws: NSError.self) { try context.fetch(unknownSort) }
        }
    }

    @Test func objectWithIDAndExistingObject() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Ideas"
            #expect(notebook.objectID.isTemporaryID)
            try context.obtainPermanentIDs(for: [notebook])
            #expect(!notebook.objectID.isTemporaryID)
            try context.save()
            let id = notebook.objectID
            #expect(id.uriRepresentation().absoluteString.hasPrefix("x-coredata://"))
            let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            other.persistentStoreCoordinator = context.persistentStoreCoordinator
            try other.performAndWait {
                let fault = other.object(with: id)
                #expect(fault.isFault)
                #expect(fault.value(forKey: "name") as? String == "Ideas")
                let existing = try other.existingObject(with: id)
                #expect(existing === fault)
                let uriID = other.persistentStoreCoordinator?.managedObjectID(
                    forURIRepresentation: id.uriRepresentation())
                #expect(uriID == id)
            }
            context.delete(notebook)
            try context.save()
            #expect(throws: NSError.self) { try context.existingObject(with: id) }
        }
    }

    @Test func asyncPerformReturnsValue() async throws {
        let context = try makeContext(model)
        let name = try await context.perform {
            let notebook = Notebook(context: context)
            notebook.name = "Async"
            try context.save()
            return notebook.name
        }
        #expect(name == "Async")
    }

    @Test func noActionRuleLeavesTheOtherSidePointingAtTheDeletedObject() throws {
        let owner = ModelBuilder.entity("Owner", className: "NSManagedObject")
        let item = ModelBuilder.entity("Item", className: "NSManagedObject")
        let (items, itemOwner) = ModelBuilder.pair(
            "items", from: owner, toMany: true, rule: .noActionDeleteRule, "owner", to: item, toMany: false)
        owner.properties = [ModelBuilder.attribute("name", .stringAttributeType), items]
        item.properties = [ModelBuilder.attribute("name", .stringAttributeType), itemOwner]
        let url = temporaryStoreURL()
        let context = try makeContext(ModelBuilder.model(owner, item), url: url)
        let ownerKey = try context.performAndWait { () throws -> Int64 in
            let boss = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
            let thing = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            thing.setValue(boss, forKey: "owner")
            try context.save()

            context.delete(boss)
            context.processPendingChanges()
            #expect(boss.isDeleted)
            #expect(
                thing.value(forKey: "owner") as? NSManagedObject === boss,
                "no action: the item still points at its deleted owner")
            #expect(!thing.isUpdated && context.updatedObjects.isEmpty, "and is not changed by the delete")
            let key = try #require(boss.objectID.primaryKey)
            try context.save()
            #expect(
                thing.value(forKey: "owner") as? NSManagedObject === boss, "after the save too, until the app fixes it")
            #expect(boss.managedObjectContext == nil)
            return key
        }
        // The item's row was not touched either: it still holds the deleted owner's key.
        let db = try DatabaseQueue(path: url.path)
        let stored = try db.read { db in try Int64.fetchOne(db, sql: "SELECT ZOWNER FROM ZITEM") }
        #expect(stored == ownerKey)
        let owners = try db.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZOWNER") }
        #expect(owners == 0)
    }

    @Test func performRunsTheBlockLaterOnTheContextsQueue() async throws {
        let context = try makeContext(model)
        // Both facts travel through the continuation, so no variable is shared across threads.
        let (ranOnQueue, ranBeforePerformReturned) = await withCheckedContinuation { continuation in
            context.performAndWait {
                nonisolated(unsafe) var returned = false
                context.perform {
                    continuation.resume(returning: (context.isOnQueue, !returned))
                }
                // The queue is busy with this block, so the one just scheduled cannot have run.
                returned = true
            }
        }
        #expect(ranOnQueue)
        #expect(!ranBeforePerformReturned, "perform(_:) is asynchronous")
        #expect(!context.isOnQueue)
    }

    @Test func objectsDidChangeCarriesEachKindOfChange() throws {
        let context = try makeContext(model)
        let center = NotificationCenter.default
        nonisolated(unsafe) var posted: [[AnyHashable: Any]] = []
        let token = center.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) {
            posted.append($0.userInfo ?? [:])
        }
        defer { center.removeObserver(token) }
        func objects(_ info: [AnyHashable: Any], _ key: String) -> Set<NSManagedObject>? {
            info[key] as? Set<NSManagedObject>
        }
        try context.performAndWait {
            let changed = Notebook(context: context), doomed = Notebook(context: context)
            changed.name = "Changed"
            doomed.name = "Doomed"
            try context.save()
            posted.removeAll()

            changed.name = "Changed again"
            context.delete(doomed)
            let added = Notebook(context: context)
            added.name = "Added"
            context.processPendingChanges()
            #expect(posted.count == 1)
            let info = posted.last ?? [:]
            #expect(objects(info, NSInsertedObjectsKey) == [added])
            #expect(objects(info, NSUpdatedObjectsKey) == [changed], "a new object's edits are not updates")
            #expect(objects(info, NSDeletedObjectsKey) == [doomed])
            #expect(info[NSRefreshedObjectsKey] == nil)
            context.processPendingChanges()
            #expect(posted.count == 1, "nothing new to announce")
            try context.save()

            // A change merged from elsewhere refreshes the registered object.
            posted.removeAll()
            NSManagedObjectContext.mergeChanges(
                fromRemoteContextSave: [NSUpdatedObjectsKey: [changed.objectID]], into: [context])
            let merged = posted.last ?? [:]
            #expect(objects(merged, NSRefreshedObjectsKey) == [changed])
            #expect(
                merged[NSInsertedObjectsKey] == nil && merged[NSUpdatedObjectsKey] == nil
                    && merged[NSDeletedObjectsKey] == nil)

            context.reset()
            #expect(posted.last?[NSInvalidatedAllObjectsKey] != nil)
        }
    }

    @Test func storeFetchSubstitutesKeysForPercentK() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let work = Notebook(context: context), home = Notebook(context: context)
            work.name = "Work"
            home.name = "Home"
            for (text, notebook) in [("x", work), ("y", work), ("x", home)] {
                let note = Note(context: context)
                note.text = text
                note.notebook = notebook
            }
            try context.save()
        }
        let fresh = siblingContext(of: context)
        try fresh.performAndWait {
            let request = Note.fetchRequest()
            request.predicate = NSPredicate(format: "%K == %@", "text", "x")
            let notes = try fresh.fetch(request)
            #expect(notes.count == 2 && notes.allSatisfy { $0.text == "x" })
            request.predicate = NSPredicate(format: "%K == %@ AND %K == %@", "notebook.name", "Work", "text", "x")
            let workX = try fresh.fetch(request)
            #expect(workX.count == 1 && workX.first?.notebook?.name == "Work")
            let notebooks = Notebook.fetchRequest()
            notebooks.predicate = NSPredicate(format: "%K > %@", "name", "Hz")
            #expect(try fresh.fetch(notebooks).compactMap(\.name) == ["Work"])
        }
    }

    @Test func insertedThenDeletedObjectsLeaveTheContext() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        context.performAndWait {
            let note = Note(context: context)
            context.delete(note)
            context.processPendingChanges()
            #expect(note.managedObjectContext == nil)
            #expect(context.registeredObjects.isEmpty)
            #expect(!context.hasChanges)
        }
    }

    @Test func negativeOffsetsAndHugeLimitsInMemory() throws {
        let context = try makeContext(ModelBuilder.notesModel(), url: nil, type: NSInMemoryStoreType)
        try context.performAndWait {
            for title in ["a", "b", "c"] {
                NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context).setValue(
                    title, forKey: "title")
            }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            request.fetchOffset = -3
            let all = try context.fetch(request)
            request.fetchOffset = 1
            request.fetchLimit = .max
            let rest = try context.fetch(request)
            #expect(all.count == 3)
            #expect(rest.count == 2)
        }
    }
}
