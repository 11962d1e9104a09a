/// What an ``NSPersistentHistoryChangeRequest`` returns in its result.
public enum NSPersistentHistoryResultType: Int, Sendable {
    /// `true` when the request succeeded.
    case statusOnly = 0
    /// The IDs of the objects changed (fetch), in history order, each once.
    case objectIDs = 1
    /// The number of changes (fetch) or of transactions deleted (delete).
    case count = 2
    /// The transactions, without their changes.
    case transactionsOnly = 3
    /// The changes, in history order.
    case changesOnly = 4
    /// The transactions with their changes (the default).
    case transactionsAndChanges = 5
}

/// A request that fetches or deletes a store's persistent history; run it with
/// ``NSManagedObjectContext/execute(_:)`` to get an ``NSPersistentHistoryResult``.
///
/// History is recorded only for stores added with ``NSPersistentHistoryTrackingKey``.
/// Boundaries are exclusive when fetching (after a token, transaction or date) and,
/// when deleting, cover history up to and including a token, and before a transaction
/// or date.
open class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// Where the requested history starts (fetch) or ends (delete).
    enum Boundary {
        case everything
        case afterToken(NSPersistentHistoryToken?)
        case afterTransaction(NSPersistentHistoryTransaction?)
        case afterDate(Date)
        case throughToken(NSPersistentHistoryToken?)
        case beforeTransaction(NSPersistentHistoryTransaction?)
        case beforeDate(Date)

        var deletes: Bool {
            switch self {
            case .throughToken, .beforeTransaction, .beforeDate: true
            default: false
            }
        }
    }

    private(set) var boundary = Boundary.everything

    /// The form of the result; ``NSPersistentHistoryResultType/transactionsAndChanges`` by default.
    open var resultType: NSPersistentHistoryResultType = .transactionsAndChanges
    /// A fetch request on ``NSPersistentHistoryTransaction/entityDescription`` or
    /// ``NSPersistentHistoryChange/entityDescription`` whose predicate (and, for
    /// changes, limit) narrows what a fetch returns.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    /// The token the request starts after (or deletes through), if it was made with one.
    open var token: NSPersistentHistoryToken? {
        switch boundary {
        case let .afterToken(token), let .throughToken(token): token
        default: nil
        }
    }

    /// A request for the whole history; the class methods make the usual ones.
    public required override init() {
        super.init()
    }

    private static func make(_ boundary: Boundary) -> Self {
        let request = Self()
        request.boundary = boundary
        return request
    }

    /// Fetches the history committed after `date`.
    ///
    /// - Parameter date: Transactions at or before this moment are left out.
    /// - Returns: A request to run with ``NSManagedObjectContext/execute(_:)``.
    open class func fetchHistory(after date: Date) -> Self { make(.afterDate(date)) }
    /// Fetches the history after `token` (all of it for `nil`).
    ///
    /// - Parameter token: The last transaction already processed, or `nil`.
    /// - Returns: A request to run with ``NSManagedObjectContext/execute(_:)``.
    open class func fetchHistory(after token: NSPersistentHistoryToken?) -> Self { make(.afterToken(token)) }
    /// Fetches the history after `transaction` (all of it for `nil`).
    ///
    /// - Parameter transaction: The last transaction already processed, or `nil`.
    /// - Returns: A request to run with ``NSManagedObjectContext/execute(_:)``.
    open class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> Self {
        make(.afterTransaction(transaction))
    }
    /// Fetches the history that `fetchRequest` selects, from the beginning.
    ///
    /// - Parameter fetchRequest: A request on the transaction or change entity; its predicate,
    ///   limit and offset select the history.
    /// - Returns: A request to run with ``NSManagedObjectContext/execute(_:)``.
    open class func fetchHistory<T>(withFetch fetchRequest: NSFetchRequest<T>) -> Self {
        let request = Self()
        request.fetchRequest = fetchRequest.copied(as: NSFetchRequestResult.self)
        return request
    }
    /// Deletes the history committed before `date`.
    ///
    /// - Parameter date: Transactions before this moment are deleted.
    /// - Returns: A request to run with ``NSManagedObjectContext/execute(_:)``.
    open class func deleteHistory(before date: Date) -> Self { make(.beforeDate(date)) }
    /// Deletes the history up to and including `token`'s transaction (all of it for `nil`).
    ///
    /// - Parameter token: The last transaction every reader has processed, or `nil` for all.
    /// - Returns: A request to run with ``NSManagedObjectContext/execute(_:)``.
    open class func deleteHistory(before token: NSPersistentHistoryToken?) -> Self { make(.throughToken(token)) }
    /// Deletes the history before `transaction` (all of it for `nil`).
    ///
    /// - Parameter transaction: The first transaction to keep, or `nil` to delete all.
    /// - Returns: A request to run with ``NSManagedObjectContext/execute(_:)``.
    open class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> Self {
        make(.beforeTransaction(transaction))
    }
}

/// The result of an ``NSPersistentHistoryChangeRequest``.
open class NSPersistentHistoryResult: NSPersistentStoreResult, @unchecked Sendable {
    /// The form of ``result``.
    public let resultType: NSPersistentHistoryResultType
    /// `true` (`.statusOnly`), a count (`.count`), `[NSManagedObjectID]` (`.objectIDs`),
    /// `[NSPersistentHistoryTransaction]` (`.transactionsOnly`, `.transactionsAndChanges`)
    /// or `[NSPersistentHistoryChange]` (`.changesOnly`).
    public let result: Any?

    init(resultType: NSPersistentHistoryResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
    }
}
