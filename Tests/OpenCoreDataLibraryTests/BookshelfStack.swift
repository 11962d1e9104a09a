//
//  BookshelfStack.swift
//  Bookshelf (a Core Data library, as third-party libraries ship one)
//
//  Ported with the porting checklist's rewrites only: `import CoreData` became
//  `import OpenCoreData`. Everything else is the library's code as it runs on Apple platforms.
//

import Foundation
import OpenCoreData

/// The library's Core Data stack: the model its bundle carries, compiled by the build
/// (`Bookshelf.momd`), on the store a client chooses.
public final class BookshelfStack {
    /// Where the library keeps its objects.
    public enum StoreKind {
        case sqlite(URL)
        case inMemory
        case binary(URL)
    }

    /// Why the stack could not be built.
    public enum StackError: Error, CustomStringConvertible {
        case modelNotFound(String)
        case modelUnreadable(URL)

        public var description: String {
            switch self {
            case .modelNotFound(let name): return "no compiled model named \(name).momd in the library's bundle"
            case .modelUnreadable(let url): return "the model at \(url.path) could not be read"
            }
        }
    }

    /// The compiled model, as every client of the library loads it.
    public static func model(named name: String = "Bookshelf", in bundle: Bundle? = nil) throws -> NSManagedObjectModel
    {
        guard let url = (bundle ?? .module).url(forResource: name, withExtension: "momd") else {
            throw StackError.modelNotFound(name)
        }
        guard let model = NSManagedObjectModel(contentsOf: url) else { throw StackError.modelUnreadable(url) }
        return model
    }

    public let coordinator: NSPersistentStoreCoordinator
    public let mainContext: NSManagedObjectContext
    public let store: NSPersistentStore

    public init(kind: StoreKind, model: NSManagedObjectModel? = nil) throws {
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: try model ?? Self.model())
        let options: [AnyHashable: Any] = [
            NSMigratePersistentStoresAutomaticallyOption: true,
            NSInferMappingModelAutomaticallyOption: true,
        ]
        switch kind {
        case .sqlite(let url):
            store = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        case .inMemory:
            store = try coordinator.addPersistentStore(
                ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        case .binary(let url):
            store = try coordinator.addPersistentStore(
                ofType: NSBinaryStoreType, configurationName: nil, at: url, options: options)
        }
        mainContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        mainContext.persistentStoreCoordinator = coordinator
        mainContext.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    }

    /// A context for imports, saving into the main context.
    public func newChildContext() -> NSManagedObjectContext {
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = mainContext
        return child
    }

    /// Saves the main context when it has changes.
    public func save() throws {
        try mainContext.performAndWait {
            if mainContext.hasChanges { try mainContext.save() }
        }
    }

    /// The books whose title starts with each letter, a list as the library's clients show it.
    public func booksByInitial() throws -> NSFetchedResultsController<Volume> {
        let request: NSFetchRequest<Volume> = Volume.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: mainContext,
            sectionNameKeyPath: "titleInitial", cacheName: nil)
        try controller.performFetch()
        return controller
    }
}
