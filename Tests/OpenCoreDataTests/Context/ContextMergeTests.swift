@testable import OpenCoreDataCore
import Testing

/// `mergeChanges(fromContextDidSave:)` and the object-ID notifications: one context's
/// save reaches another (on the same coordinator, or another on the same file).
@Suite struct ContextMergeTests {
    let model = ConflictFixture.accountsModel()

    /// Saves in `saver` and returns its did-save notification.
    private func save(_ saver: NSManagedObjectContext, _ changes: () throws -> Void) throws -> Notification {
        let recorder = NotificationLog(.NSManagedObjectContextDidSave, saver)
        try saver.performAndWait {
            try changes()
            try saver.save()
        }
        let info = try #require(recorder.last)
        return Notification(name: .NSManagedObjectContextDidSave, object: saver, userInfo: info)
    }

    /// An account saved through `context`, and its ID.
    private func savedAccount(
        _ context: NSManagedObjectContext, _ name: String
    ) throws -> (NSManagedObject, NSManagedObjectID) {
        try context.performAndWait {
            let object = account(context, name)
            try context.save()
            return (object, object.objectID)
        }
    }

    private func account(_ context: NSManagedObjectContext, _ name: String) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: "Account", into: context)
        object.setValue(name, forKey: "name")
        return object
    }

    @Test(arguments: [false, true])
    func updatesAreRefreshedUnderThisContextsOwnChanges(separateCoordinators: Bool) throws {
        let (first, second) = try ConflictFixture.contexts(
            model, url: temporaryStoreURL(), separateCoordinators: separateCoordinators)
        let mine = try first.performAndWait {
            let object = account(first, "base")
            object.setValue("m0", forKey: "memo")
            try first.save()
            return object
        }
        let id = first.performAndWait { mine.objectID }
        first.performAndWait { mine.setValue(Int64(7), forKey: "balance") }
        let changes = NotificationLog(.NSManagedObjectContextObjectsDidChange, first)
        let merged = NotificationLog(.NSManagedObjectContextDidMergeChangesObjectIDs, first)
        let note = try save(second) {
            let theirs = try ConflictFixture.load(id, in: second)
            theirs.setValue("theirs", forKey: "name")
        }
        first.mergeChanges(fromContextDidSave: note)
        try first.performAndWait {
            #expect(mine.value(forKey: "name") as? String == "theirs")
            #expect((mine.value(forKey: "balance") as? NSNumber)?.int64Value == 7, "the unsaved change stays on top")
            #expect(mine.isUpdated)
            // The merge brought the object to the saved version: saving now is no conflict.
            try first.save()
        }
        #expect((changes.last?[NSRefreshedObjectsKey] as? Set<NSManagedObject>)?.contains(mine) == true)
        let ids = try #require(merged.last)
        #expect((ids[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID>) == [id])
        #expect((ids[NSRefreshedObjectIDsKey] as? Set<NSManagedObjectID>) == [id])
        #expect((ids[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>)?.isEmpty == true)
    }

    @Test func withoutMergingTheSameEditsAreAConflict() throws {
        let (first, second) = try ConflictFixture.contexts(model, url: temporaryStoreURL(), separateCoordinators: false)
        let (mine, id) = try savedAccount(first, "base")
        _ = try save(second) { try ConflictFixture.load(id, in: second).setValue("theirs", forKey: "name") }
        first.performAndWait {
            mine.setValue(Int64(7), forKey: "balance")
            #expect(throws: NSError.self) { try first.save() }
        }
    }

    @Test(arguments: [false, true])
    func insertsBecomeAvailableAndDeletesLeave(separateCoordinators: Bool) throws {
        let (first, second) = try ConflictFixture.contexts(
            model, url: temporaryStoreURL(), separateCoordinators: separateCoordinators)
        let (doomed, doomedID) = try savedAccount(first, "doomed")
        let changes = NotificationLog(.NSManagedObjectContextObjectsDidChange, first)
        let merged = NotificationLog(.NSManagedObjectContextDidMergeChangesObjectIDs, first)
        var newID: NSManagedObjectID?
        let note = try save(second) {
            second.delete(try ConflictFixture.load(doomedID, in: second))
            let fresh = account(second, "fresh")
            try second.obtainPermanentIDs(for: [fresh])
            newID = fresh.objectID
        }
        first.mergeChanges(fromContextDidSave: note)
        let insertedHere = try first.performAndWait { () -> NSManagedObject in
            #expect(doomed.isDeleted)
            #expect(doomed.managedObjectContext == nil)
            let uri = try #require(newID).uriRepresentation()
            let local = try #require(first.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
            let object = try #require(first.registeredObject(for: local))
            #expect(object.value(forKey: "name") as? String == "fresh")
            return object
        }
        let info = try #require(changes.last)
        #expect((info[NSInsertedObjectsKey] as? Set<NSManagedObject>) == [insertedHere])
        #expect((info[NSDeletedObjectsKey] as? Set<NSManagedObject>) == [doomed])
        let ids = try #require(merged.last)
        #expect((ids[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>)?.count == 1)
        #expect((ids[NSDeletedObjectIDsKey] as? Set<NSManagedObjectID>) == [doomedID])
    }

    @Test func theSaverPostsDidSaveObjectIDs() throws {
        let context = try makeContext(model)
        let (kept, gone) = try context.performAndWait {
            let kept = account(context, "kept")
            let gone = account(context, "gone")
            try context.save()
            return (kept, gone)
        }
        let recorder = NotificationLog(.NSManagedObjectContextDidSaveObjectIDs, context)
        let added = try context.performAndWait {
            kept.setValue("changed", forKey: "name")
            context.delete(gone)
            let added = account(context, "added")
            try context.save()
            return added
        }
        let info = try #require(recorder.last)
        context.performAndWait {
            #expect((info[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>) == [added.objectID])
            #expect((info[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID>) == [kept.objectID])
            #expect((info[NSDeletedObjectIDsKey] as? Set<NSManagedObjectID>)?.count == 1)
            #expect(added.objectID.isTemporaryID == false)
        }
        #expect(
            Notification.Name.NSManagedObjectContextDidSaveObjectIDs.rawValue
                == "NSManagedObjectContextDidSaveObjectIDsNotification")
        #expect(
            Notification.Name.NSManagedObjectContextDidMergeChangesObjectIDs.rawValue
                == "NSManagedObjectContextDidMergeChangesObjectIDsNotification")
    }

    @Test func theObjectIDNotificationMergesToo() throws {
        let (first, second) = try ConflictFixture.contexts(model, url: temporaryStoreURL(), separateCoordinators: true)
        let (mine, id) = try savedAccount(first, "base")
        let recorder = NotificationLog(.NSManagedObjectContextDidSaveObjectIDs, second)
        try second.performAndWait {
            try ConflictFixture.load(id, in: second).setValue("theirs", forKey: "name")
            try second.save()
        }
        let info = try #require(recorder.last)
        first.mergeChanges(
            fromContextDidSave: Notification(
                name: .NSManagedObjectContextDidSaveObjectIDs, object: second, userInfo: info))
        first.performAndWait { #expect(mine.value(forKey: "name") as? String == "theirs") }
    }

    @Test func mergingOwnSaveOrEmptyNotificationsChangesNothing() throws {
        let context = try makeContext(model)
        let object = try context.performAndWait {
            let object = account(context, "x")
            try context.save()
            object.setValue("y", forKey: "name")
            return object
        }
        context.mergeChanges(
            fromContextDidSave: Notification(
                name: .NSManagedObjectContextDidSave, object: context, userInfo: [NSUpdatedObjectsKey: Set([object])]))
        context.mergeChanges(
            fromContextDidSave: Notification(name: .NSManagedObjectContextDidSave, object: nil, userInfo: nil))
        context.mergeChanges(
            fromContextDidSave: Notification(
                name: .NSManagedObjectContextDidSave, object: nil, userInfo: [NSUpdatedObjectsKey: "garbage"]))
        context.performAndWait { #expect(object.value(forKey: "name") as? String == "y") }
    }
}
