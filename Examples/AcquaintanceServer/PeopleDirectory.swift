import ExampleSupport
import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL

/// The people of one database, as one server process sees them.
///
/// Saves go through contexts of their own. The list is a results controller on `live`, a
/// context that merges every save to the store, this server's and the others', from
/// persistent history when the store's remote change notification arrives
/// (`NSPersistentStoreRemoteChangeNotificationPostOptionKey`, PostgreSQL's LISTEN/NOTIFY).
final class PeopleDirectory: @unchecked Sendable {
    private let container: NSPersistentContainer
    /// The context the list lives in; used only on its queue.
    private let live: NSManagedObjectContext
    private let controller: NSFetchedResultsController<NSManagedObject>
    private let follower = ListFollower()
    /// Where the merged history ends; read and written on `live`'s queue.
    private var lastToken: NSPersistentHistoryToken?
    private var notifications = 0
    private var mergedTransactions = 0

    /// Opens the store (creating its tables in `schema` when missing) and loads the list.
    init(database: URL, schema: String) throws {
        container = NSPersistentContainer(name: "Acquaintance", managedObjectModel: AcquaintanceModel.make())
        let description = NSPersistentStoreDescription(url: database)
        description.type = NSPostgreSQLStoreType
        description.setOption(schema as NSString, forKey: NSPostgreSQLSchemaNameOption)
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure {
            throw ExampleFailure("Can't open the store in \(database.absoluteString): \(failure.localizedDescription)")
        }
        live = container.newBackgroundContext()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        controller = NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: live, sectionNameKeyPath: nil, cacheName: nil)
        controller.delegate = follower
        let coordinator = container.persistentStoreCoordinator
        // Listening first, and the token before the fetch: a save committed meanwhile is
        // merged (perhaps again, which changes nothing), never missed.
        NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { [weak self] _ in self?.catchUp(notified: true) }
        try live.performAndWait {
            lastToken = coordinator.currentPersistentHistoryToken(fromStores: nil)
            try controller.performFetch()
        }
        catchUp(notified: false)
    }

    /// Merges the history after `lastToken` into `live`, so the list shows it; `notified`
    /// when a remote change notification asked (counted in /status).
    private func catchUp(notified: Bool) {
        live.perform { [self] in
            if notified { notifications += 1 }
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
            let transactions: [NSPersistentHistoryTransaction]
            do {
                let result = try live.execute(request) as? NSPersistentHistoryResult
                transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
            } catch let error as NSError where error.code == NSPersistentHistoryTokenExpiredError {
                // The history after our token was deleted: start over from what the store holds now.
                lastToken = container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)
                try? controller.performFetch()
                return
            } catch {
                // The next notification (the store posts one when its listener reconnects) tries again.
                FileHandle.standardError.write(
                    Data("could not read the store's history: \(error.localizedDescription)\n".utf8))
                return
            }
            for transaction in transactions {
                live.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                lastToken = transaction.token
                mergedTransactions += 1
            }
        }
    }

    /// The people in the list, by name.
    func people() async -> [Person] {
        await live.perform { [self] in
            (controller.fetchedObjects ?? []).map {
                Person(name: $0.value(forKey: "name") as? String ?? "", phone: $0.value(forKey: "phone") as? String)
            }
        }
    }

    /// Saves a new person; returns the object's URI.
    func add(_ person: Person) async throws -> String {
        let context = container.newBackgroundContext()
        return try await context.perform {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            object.setValue(person.name, forKey: "name")
            object.setValue(person.phone, forKey: "phone")
            try context.save()
            return object.objectID.uriRepresentation().absoluteString
        }
    }

    /// What /status shows.
    func status() async -> (people: Int, remoteChanges: Int, mergedTransactions: Int) {
        await live.perform { [self] in (controller.fetchedObjects?.count ?? 0, notifications, mergedTransactions) }
    }

    /// One person as the API sends and takes it.
    struct Person: Codable, Sendable {
        var name: String
        var phone: String?
    }
}

/// The results controller's delegate: with one, the controller follows its context's changes
/// (merges included), as Core Data's does.
private final class ListFollower: NSObject, NSFetchedResultsControllerDelegate {
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}
}
