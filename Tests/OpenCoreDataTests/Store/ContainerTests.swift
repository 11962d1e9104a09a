@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// `NSPersistentContainer`'s contexts and background work.
@Suite struct ContainerTests {
    let model = ModelBuilder.notesModel()

    @Test func contextsHaveTheirQueuesAndShareTheCoordinator() throws {
        let container = try openContainer(at: temporaryStoreURL(), model: model)
        #expect(container.viewContext.concurrencyType == .mainQueueConcurrencyType)
        #expect(container.viewContext === container.viewContext, "one view context")
        let background = container.newBackgroundContext()
        #expect(background.concurrencyType == .privateQueueConcurrencyType)
        #expect(background !== container.newBackgroundContext(), "a new context each time")
        #expect(background.persistentStoreCoordinator === container.persistentStoreCoordinator)
        #expect(container.viewContext.persistentStoreCoordinator === container.persistentStoreCoordinator)
    }

    @Test func performBackgroundTaskRunsOnAPrivateQueueContext() async throws {
        let container = try openContainer(at: temporaryStoreURL(), model: model)
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<(Bool, Bool, String?), Never>) in
            container.performBackgroundTask { context in
                let notebook = Notebook(context: context)
                notebook.name = "From the background"
                let saveError = (try? context.save()) == nil ? "save failed" : nil
                let onQueue = context.isOnQueue && context.concurrencyType == .privateQueueConcurrencyType
                continuation.resume(returning: (onQueue, context !== container.viewContext, saveError))
            }
        }
        #expect(outcome.0, "the block runs on its context's private queue")
        #expect(outcome.1)
        #expect(outcome.2 == nil)

        let (onQueue, names) = try await container.performBackgroundTask { context in
            (
                context.isOnQueue && context.concurrencyType == .privateQueueConcurrencyType,
                try context.fetch(Notebook.fetchRequest()).compactMap(\.name)
            )
        }
        #expect(onQueue)
        #expect(names == ["From the background"], "the async form sees what the first task saved")

        let failure = await #expect(throws: NSError.self) {
            try await container.performBackgroundTask { context in
                _ = Notebook(context: context)  // no name: the save must fail
                try context.save()
            }
        }
        #expect(failure?.code == NSValidationMissingMandatoryPropertyError, "the block's error reaches the caller")

        let viewNames = try await container.viewContext.perform {
            try container.viewContext.fetch(Notebook.fetchRequest()).compactMap(\.name)
        }
        #expect(viewNames == ["From the background"])
    }

    @Test func containerWithoutAModelFailsToLoad() throws {
        let container = NSPersistentContainer(name: "NoSuchModel-\(UUID().uuidString)")
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: temporaryStoreURL())]
        var errors: [NSError?] = []
        container.loadPersistentStores { _, error in errors.append(error as NSError?) }
        #expect(errors.count == 1)
        let error = errors.first ?? nil
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSCoreDataError)
        #expect(error?.localizedDescription.contains(container.name) == true)
        #expect(error?.localizedDescription.contains("init(name:managedObjectModel:)") == true)
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
        let file = container.persistentStoreDescriptions[0].url!
        #expect(!FileManager.default.fileExists(atPath: file.path), "no store file was created")
    }
}
