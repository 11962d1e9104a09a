@testable import OpenCoreDataCore
import Testing

/// What a completion block saw, written on the context's queue and read by the test.
private final class Completion<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: (results: [T]?, error: Error?, onContextQueue: Bool)?
    private(set) var calls = 0

    func record(_ result: NSAsynchronousFetchResult<some Any>, map: ([Any]) -> [T]) {
        lock.lock(); defer { lock.unlock() }
        calls += 1
        recorded = (result.finalResult.map(map), result.operationError, result.managedObjectContext.isOnQueue)
    }

    var value: (results: [T]?, error: Error?, onContextQueue: Bool)? {
        lock.lock(); defer { lock.unlock() }; return recorded
    }
}

@Suite struct AsyncFetchTests {
    let model = HouseholdFixture.model()

    /// The work an asynchronous fetch queued has run once a later block on the
    /// context's serial queue has: no waiting on time.
    private func drain(_ context: NSManagedObjectContext) {
        context.performAndWait {}
    }

    @Test func completionGetsTheObjectsOnTheContextQueueAndProgressCompletes() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        let completion = Completion<String>()
        let fetch = NSFetchRequest<NSManagedObject>(entityName: "Resident")
        fetch.predicate = NSPredicate(format: "age >= 40")
        fetch.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let request = NSAsynchronousFetchRequest(fetchRequest: fetch) { result in
            completion.record(result) { $0.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String } }
        }
        request.estimatedResultCount = 10
        let parent = Progress(totalUnitCount: 1)
        let result = try context.performAndWait {
            parent.becomeCurrent(withPendingUnitCount: 1)
            defer { parent.resignCurrent() }
            // Through the public entry point, as apps call it.
            let result = try context.execute(request) as! NSAsynchronousFetchResult<NSManagedObject>
            // It returns before fetching: the fetch is queued behind this block.
            #expect(result.finalResult == nil)
            #expect(completion.calls == 0)
            return result
        }
        #expect(result.managedObjectContext === context)
        #expect(result.fetchRequest === request)
        drain(context)
        #expect(completion.calls == 1)
        #expect(completion.value?.results == ["Bob", "Dee", "Eve"])
        #expect(completion.value?.onContextQueue == true)
        #expect(completion.value?.error == nil)
        #expect(result.finalResult?.count == 3)
        #expect(result.operationError == nil)
        let progress = try #require(result.progress)
        #expect(progress.totalUnitCount == 3)
        #expect(progress.completedUnitCount == 3)
        #expect(progress.isFinished)
        #expect(parent.fractionCompleted == 1, "the fetch's progress is a child of the caller's current progress")
    }

    @Test func dictionaryResultsToo() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        let completion = Completion<Int64>()
        let fetch = HouseholdFixture.request([
            HouseholdFixture.expression("total", "sum:", "age", .integer64AttributeType)
        ])
        let request = NSAsynchronousFetchRequest(fetchRequest: fetch) { result in
            completion.record(result) { $0.compactMap { ($0 as? NSDictionary)?["total"] as? Int64 } }
        }
        let result = try context.performAndWait { try context.executeAsynchronousFetch(request) }
        drain(context)
        #expect(completion.value?.results == [200])
        #expect(result.finalResult?.first?["total"] as? Int64 == 200)
    }

    @Test func cancellingStopsTheFetchAndSkipsTheCompletionBlock() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        let completion = Completion<String>()
        let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Resident"))
        { result in
            completion.record(result) { _ in [] }
        }
        let recorder = SQLRecorder(context)
        let result = try context.performAndWait {
            let result = try context.executeAsynchronousFetch(request)
            result.cancel()
            return result
        }
        drain(context)
        #expect(completion.calls == 0)
        #expect(result.finalResult == nil)
        #expect(result.progress?.isCancelled == true)
        #expect((result.operationError as NSError?)?.code == CocoaError.Code.userCancelled.rawValue)
        #expect(recorder.selects.isEmpty, "a fetch cancelled before it ran reads nothing")

        // Cancelling after the end changes nothing.
        let finished = try context.performAndWait { try context.executeAsynchronousFetch(request) }
        drain(context)
        finished.cancel()
        #expect(finished.finalResult?.count == 5)
        #expect(finished.operationError == nil)
    }

    @Test func failuresReachTheCompletionBlock() throws {
        let context = try makeContext(model)
        let completion = Completion<String>()
        let fetch = NSFetchRequest<NSManagedObject>(entityName: "Resident")
        fetch.predicate = NSPredicate(format: "nope == 1")
        let request = NSAsynchronousFetchRequest(fetchRequest: fetch) { result in
            completion.record(result) { _ in [] }
        }
        let result = try context.performAndWait { try context.executeAsynchronousFetch(request) }
        drain(context)
        #expect(completion.calls == 1)
        #expect(completion.value?.results == nil)
        let error = try #require(completion.value?.error as NSError?)
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.localizedDescription.contains("nope"))
        #expect(result.finalResult == nil)
        #expect(result.operationError != nil)
    }

    @Test func startsFromAnUntypedRequest() throws {
        let context = try makeContext(model)
        _ = try HouseholdFixture.populate(context)
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Household")
        ids.resultType = .managedObjectIDResultType
        let request: NSPersistentStoreRequest = NSAsynchronousFetchRequest(fetchRequest: ids)
        let starter = try #require(request as? any AsynchronousFetchStarting)
        let result = try context.performAndWait { try starter.start(in: context) }
        drain(context)
        let typed = try #require(result as? NSAsynchronousFetchResult<NSManagedObjectID>)
        #expect(typed.finalResult?.count == 3)
        #expect(typed.operationError == nil)
    }
}
