//
//  Persistence.swift
//  Notes
//
//  The persistence layer of a Core Data app, as such apps write it: a container subclass
//  named after the model, an in-memory mode for tests and previews that puts the store at
//  /dev/null, and a view context that follows background saves.
//

import Foundation
import OpenCoreData

final class NotesContainer: NSPersistentContainer {
    /// Stores live beside other app data in a folder of their own.
    override class func defaultDirectoryURL() -> URL {
        super.defaultDirectoryURL().appendingPathComponent("NotesStores", isDirectory: true)
    }
}

struct PersistenceController {
    let container: NSPersistentContainer

    init(inMemory: Bool = false) throws {
        container = NotesContainer(name: "Notes")
        if inMemory {
            container.persistentStoreDescriptions.first!.url = URL(fileURLWithPath: "/dev/null")
        }
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        container.viewContext.automaticallyMergesChangesFromParent = true
        container.viewContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    }

    /// Saves the view context when it has changes, as apps do on their way to the background.
    func saveIfNeeded() throws {
        let context = container.viewContext
        if context.hasChanges {
            try context.save()
        }
    }
}
