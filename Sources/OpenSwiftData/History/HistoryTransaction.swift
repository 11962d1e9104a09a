import OpenCoreData

/// A bookmark in a store's history: fetch what came after it next time.
public protocol HistoryToken: Codable, Comparable, Hashable, Sendable {}

/// One save (or batch operation) as the store's history recorded it.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of the transaction's token.
    associatedtype TokenType: HistoryToken
    /// The changes, in the order they were made.
    var changes: [HistoryChange] { get }
    /// The transaction's number, increasing with time in its store.
    var transactionIdentifier: Int64 { get }
    /// The saving context's ``ModelContext/author``.
    var author: String? { get }
    /// The bundle identifier (or executable name) of the saving process.
    var bundleIdentifier: String { get }
    /// The identifier of the saving process.
    var processIdentifier: String { get }
    /// The identifier of the store the transaction changed.
    var storeIdentifier: String { get }
    /// When the transaction was committed.
    var timestamp: Date { get }
    /// The token of this transaction.
    var token: TokenType { get }
}

/// The history token of OpenSwiftData's stores: the last transaction number seen per store.
public struct DefaultHistoryToken: HistoryToken {
    /// Store identifier → last transaction number covered.
    let transactionNumbers: [String: Int64]

    init(_ token: NSPersistentHistoryToken) {
        transactionNumbers = token.transactionNumbers
    }

    var coreDataToken: NSPersistentHistoryToken { NSPersistentHistoryToken(transactionNumbers: transactionNumbers) }

    /// A token is before another when it is before it in every store it shares with it
    /// (and in at least one).
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        let shared = Set(lhs.transactionNumbers.keys).intersection(rhs.transactionNumbers.keys)
        guard !shared.isEmpty else { return false }
        return shared.allSatisfy { lhs.transactionNumbers[$0]! <= rhs.transactionNumbers[$0]! }
            && shared.contains { lhs.transactionNumbers[$0]! < rhs.transactionNumbers[$0]! }
    }
}

/// A transaction of OpenSwiftData's history.
public struct DefaultHistoryTransaction: HistoryTransaction {
    public let changes: [HistoryChange]
    public let transactionIdentifier: Int64
    public let author: String?
    public let bundleIdentifier: String
    public let processIdentifier: String
    public let storeIdentifier: String
    public let timestamp: Date
    public let token: DefaultHistoryToken

    /// The transaction's identity: its store and number.
    public var id: String { "\(storeIdentifier)/\(transactionIdentifier)" }

    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// What a history fetch or deletion covers: transactions matching a predicate, in an order.
///
/// The predicate is evaluated on the transactions the store's history holds (history is
/// not model data: it is read from its own tables, then filtered).
public struct HistoryDescriptor<T: HistoryTransaction>: @unchecked Sendable {
    /// Which transactions (all when `nil`).
    public var predicate: Predicate<T>?
    /// The order of the results (oldest first when empty).
    public var sortBy: [SortDescriptor<T>] = []
    /// The most transactions to fetch (0: no limit).
    public var fetchLimit: Int = 0

    /// A descriptor of the transactions matching `predicate`.
    public init(predicate: Predicate<T>? = nil) {
        self.predicate = predicate
    }
}
