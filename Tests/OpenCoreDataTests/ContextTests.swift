import OpenCoreData
import Testing

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
        let (forward, inverse) = ModelBuilder.pair("right", from: a, toMany: false, rule: .cascadeDeleteRule, "left", to: b, toMany: false, rule: .cascadeDeleteRule)
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
            center.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { saved = $0.userInfo ?? [:] },
            center.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { changed = $0.userInfo ?? [:] },
            center.addObserver(forName: .NSManagedObjectContextWillSave, object: context, queue: nil) { _ in willSave += 1 },
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
        #expect(Notification.Name.NSManagedObjectContextObjectsDidChange.rawValue == "NSObjectsChangedInManagingContextNotification")
        #expect(Notification.Name.NSManagedObjectContextWillSave.rawValue == "NSManagingContextWillSaveChangesNotification")
        #expect(Notification.Name.NSManagedObjectContextDidSave.rawValue == "NSManagingContextDidSaveChangesNotification")
        #expect(Notification.Name.NSManagedObjectContextDidSaveObjectIDs.rawValue == "NSManagedObjectContextDidSaveObjectIDsNotification")
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
                let uriID = other.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: id.uriRepresentation())
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
}
