/// A fetch that runs in the background of its context and reports its progress.
///
/// Execute it with the context's `execute(_:)`: that returns at once with an
/// ``NSAsynchronousFetchResult`` whose `progress` follows the fetch, and later the
/// completion block runs on the context's queue with the final result. Cancel it
/// through the result (`cancel()`) or its progress.
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest, @unchecked Sendable {
    /// The fetch to run; any result type works (objects, IDs, dictionaries, counts).
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Called on the context's queue when the fetch has finished or failed (not
    /// when it was cancelled).
    public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// The number of results expected, if known: the progress's unit count until
    /// the real number is known. 0 means unknown.
    open var estimatedResultCount: Int = 0

    /// Creates an asynchronous fetch of `request` that hands its result to `blk`.
    public init(
        fetchRequest request: NSFetchRequest<ResultType>,
        completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)? = nil
    ) {
        fetchRequest = request
        completionBlock = blk
        super.init()
    }

    open override var description: String {
        "<NSAsynchronousFetchRequest: \(fetchRequest)>"
    }
}
