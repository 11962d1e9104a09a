//
//  NotesTests.swift
//  NotesTests
//
//  An app's Core Data tests, written against Apple's API: in-memory stores at /dev/null, the
//  model from the bundle, Xcode's generated classes, and the idioms of Core Data code.
//

import XCTest
import Foundation
import OpenCoreData

final class NotesTests: XCTestCase {
    var persistence: PersistenceController!
    var context: NSManagedObjectContext { persistence.container.viewContext }

    override func setUpWithError() throws {
        persistence = try PersistenceController(inMemory: true)
    }

    override func tearDownWithError() throws {
        persistence = nil
    }

    @discardableResult
    private func makeNote(_ title: String, body: String? = nil, in folder: Folder? = nil) -> Note {
        let note = Note(context: context)
        note.title = title
        note.body = body
        folder?.addToNotes(note)
        return note
    }

    func testTheContainerLoadsTheModelFromTheBundle() throws {
        let model = persistence.container.managedObjectModel
        XCTAssertEqual(model.entities.compactMap(\.name).sorted(), ["Folder", "Note"])
        XCTAssertEqual(model.entitiesByName["Note"]?.managedObjectClassName, "Note")
        XCTAssertEqual(persistence.container.persistentStoreDescriptions.first?.url?.path, "/dev/null")
        XCTAssertEqual(persistence.container.persistentStoreCoordinator.persistentStores.first?.type, NSSQLiteStoreType)
        XCTAssertTrue(type(of: persistence.container) == NotesContainer.self)
        XCTAssertTrue(NotesContainer.defaultDirectoryURL().path.hasSuffix("NotesStores"))

        let url = try XCTUnwrap(Bundle.module.url(forResource: "Notes", withExtension: "xcdatamodeld"))
        XCTAssertEqual(
            NSManagedObjectModel(contentsOf: url), NSManagedObjectModel(contentsOf: url), "models compare by content")
        XCTAssertEqual(NSManagedObjectModel(contentsOf: url), model)
    }

    func testNewNotesAreStampedAndSaved() throws {
        let note = makeNote("Groceries", body: "eggs milk bread")
        XCTAssertNotNil(note.id)
        XCTAssertNotNil(note.createdAt)
        XCTAssertTrue(note.objectID.isTemporaryID)
        try persistence.saveIfNeeded()
        XCTAssertFalse(note.objectID.isTemporaryID)
        XCTAssertEqual(note.wordCount, 3, "willSave keeps the word count")

        context.reset()
        let fetched = try context.fetch(Note.fetchRequest())
        XCTAssertEqual(fetched.count, 1)
        XCTAssertEqual(fetched.first?.title, "Groceries")
        XCTAssertEqual(fetched.first?.wordCount, 3)
        XCTAssertEqual(fetched.first?.isPinned, false, "the model's default")
    }

    func testFetchRequestsAsCoreDataCodeWritesThem() throws {
        for (index, title) in ["b", "a", "c"].enumerated() {
            let note = makeNote(title)
            note.createdAt = Date(timeIntervalSinceReferenceDate: Double(index))
            note.isPinned = title != "c"
        }
        try persistence.saveIfNeeded()

        let request: NSFetchRequest<Note> = Note.fetchRequest()
        request.predicate = NSPredicate(format: "%K == YES", #keyPathString(\Note.isPinned))
        request.sortDescriptors = [NSSortDescriptor(keyPath: \Note.title, ascending: true)]
        XCTAssertEqual(try context.fetch(request).map(\.title), ["a", "b"])

        let untyped = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
        untyped.sortDescriptors = [NSSortDescriptor(key: #keyPathString(\Note.createdAt), ascending: false)]
        let notes = try context.fetch(untyped) as! [Note]
        XCTAssertEqual(notes.map(\.title), ["c", "a", "b"])
        XCTAssertEqual(try context.count(for: untyped), 3)

        let titles = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
        titles.resultType = .dictionaryResultType
        titles.propertiesToFetch = ["title"]
        titles.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
        let rows = try context.fetch(titles) as? [NSDictionary]
        XCTAssertEqual(rows?.compactMap { $0["title"] as? String }, ["c", "b", "a"])

        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
        ids.resultType = .managedObjectIDResultType
        XCTAssertEqual(try context.fetch(ids).count, 3)

        let pinned = try XCTUnwrap(
            persistence.container.managedObjectModel.fetchRequestTemplate(forName: "PinnedNotes"))
        XCTAssertEqual(try context.fetch(pinned).count, 2)
    }

    func testFoldersHoldNotesAndCascade() throws {
        let folder = Folder(context: context)
        XCTAssertEqual(folder.name, "New Folder", "the model's default")
        folder.createdAt = Date()
        let first = makeNote("first", in: folder)
        makeNote("second", in: folder)
        XCTAssertEqual(folder.notes?.count, 2)
        XCTAssertTrue(first.folder === folder, "the inverse is kept")
        try persistence.saveIfNeeded()

        folder.removeFromNotes(first)
        XCTAssertNil(first.folder)
        context.delete(folder)
        try persistence.saveIfNeeded()
        XCTAssertEqual(
            try context.fetch(Note.fetchRequest()).map(\.title), ["first"], "deleting a folder deletes its notes")
    }

    func testBackgroundSavesReachTheViewContext() throws {
        let note = makeNote("draft")
        try persistence.saveIfNeeded()

        let background = persistence.container.newBackgroundContext()
        let saved = expectation(description: "background save")
        let id = note.objectID
        background.perform {
            let copy = background.object(with: id) as! Note
            copy.body = "finished in the background"
            do { try background.save() } catch { XCTFail("\(error)") }
            saved.fulfill()
        }
        wait(for: [saved], timeout: 10)
        let merged = expectation(description: "merged into the view context")
        DispatchQueue.main.async { merged.fulfill() }
        wait(for: [merged], timeout: 10)
        XCTAssertEqual(note.body, "finished in the background")
    }

    func testBatchDeleteMergedIntoTheViewContext() throws {
        let keep = makeNote("keep")
        makeNote("drop one")
        makeNote("drop two")
        try persistence.saveIfNeeded()

        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
        fetch.predicate = NSPredicate(format: "title BEGINSWITH %@", "drop")
        let delete = NSBatchDeleteRequest(fetchRequest: fetch)
        delete.resultType = .resultTypeObjectIDs
        let result = try context.execute(delete) as? NSBatchDeleteResult
        let deleted = result?.result as? [NSManagedObjectID] ?? []
        XCTAssertEqual(deleted.count, 2)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [context])
        XCTAssertEqual(try context.fetch(Note.fetchRequest()), [keep])
    }

    func testValidationErrorsAreCoreDatasErrors() throws {
        let note = makeNote("untitled")
        note.setValue(nil, forKey: "createdAt")
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSValidationMissingMandatoryPropertyError)
        }
    }
}
