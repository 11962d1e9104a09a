/// What an asynchronous fetch produces: handed out when the fetch starts, holding
/// the fetched results (`finalResult`) once it has finished.
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult, @unchecked Sendable {
    /// The asynchronous request this is the result of.
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>
    private var results: [ResultType]?

    init(fetchRequest: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext, progress: Progress) {
        self.fetchRequest = fetchRequest
        super.init(context: context, progress: progress)
    }

    /// The fetched results; `nil` until the fetch has finished, and when it failed or was cancelled.
    open var finalResult: [ResultType]? { locked { results } }

    /// Records the fetched results.
    func finish(with results: [ResultType]) {
        locked { self.results = results }
    }
}
