/// What a store engine does for a coordinator. Every store type sits behind this
/// protocol: the SQLite store today (files and `:memory:`), a PostgreSQL store next.
///
/// Calls arrive serialized by the coordinator, except reads of an engine that says it
/// ``readsConcurrently``: those may arrive side by side, never beside a write. Rows come
/// back in `StoreRow` form and changes go in as `StoreSaveRequest`; SQL, if any, is the
/// engine's business.
package protocol PersistentStoreBackend: AnyObject {
    /// The store's metadata (`NSStoreType`, `NSStoreUUID`, model version hashes, …).
    var metadata: [String: Any] { get }
    /// Replaces the metadata (the store's UUID stays); written with the next save.
    func setMetadata(_ metadata: [String: Any])
    /// Writes metadata set since the last save, for a save that changes no object.
    func saveMetadata() throws
    /// Rows matching `fetch`, in order.
    func fetch(_ fetch: StoreFetch) throws -> [StoreRow]
    /// The keys of the rows matching `fetch`, in order, without their values.
    func fetchObjectIDs(_ fetch: StoreFetch) throws -> StoreObjectList
    /// How many rows match `fetch` (limit and offset ignored).
    func count(_ fetch: StoreFetch) throws -> Int
    /// The dictionaries of a dictionary fetch (values, aggregates, groups), from the store alone.
    func fetchDictionaries(_ fetch: StoreDictionaryFetch) throws -> [NSDictionary]
    /// The row of one object, or `nil` when it no longer exists.
    func row(for objectID: NSManagedObjectID) throws -> StoreRow?
    /// The rows of these objects (any order; missing rows are left out).
    func rows(for objectIDs: [NSManagedObjectID]) throws -> [StoreRow]
    /// The destination rows of a to-many relationship for many source objects at once,
    /// each with its source's key, grouped by source and in order for ordered relationships.
    func relatedRows(
        of sources: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [(source: Int64, row: StoreRow)]
    /// The IDs a to-many relationship of a saved object holds, in order for ordered ones.
    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID]
    /// Reserves primary keys for new objects of these entities.
    func reservePrimaryKeys(for entities: [NSEntityDescription]) throws -> [Int64]
    /// Runs one save in one transaction: the request's checks (``StoreSaveChecks/conflicts(of:reading:)``
    /// on the transaction's connection), then, when none fails, all its writes. Conflicts
    /// come back as ``StoreSaveOutcome/conflicts(_:)`` with nothing written; any other
    /// failure throws, also with nothing written.
    func save(_ request: StoreSaveRequest) throws -> StoreSaveOutcome
    /// Inserts rows in one transaction, giving new rows keys from the store's counters.
    func batchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome
    /// Updates every matching row in one statement.
    func batchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome
    /// Deletes every matching row, applying delete rules, in one transaction.
    func batchDelete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome
    /// Whether the store records persistent history (`NSPersistentHistoryTrackingKey`).
    var tracksHistory: Bool { get }
    /// The history transactions in `range`, oldest first, with their changes when asked for.
    func historyTransactions(in range: StoreHistoryRange, withChanges: Bool) throws -> [NSPersistentHistoryTransaction]
    /// Deletes the history in `range`; returns how many transactions went.
    func deleteHistory(in range: StoreHistoryRange) throws -> Int
    /// The number of the last history transaction (0 when there is none), and the number
    /// through which history was deleted (a token before it has expired).
    func historyBounds() throws -> (last: Int64, deletedThrough: Int64)
    /// Calls `changed` (on any thread) after commits to the store by anyone, this
    /// process included, until `close()`. Stores that nobody else can reach do nothing.
    ///
    /// `changed` gets the number of the last history transaction the commits recorded when
    /// the engine heard it with them (PostgreSQL's notifications carry it), `nil` when
    /// the store must be asked (a file that changed, a notification missed while the
    /// engine reconnected).
    func observeChanges(_ changed: @escaping @Sendable (_ lastTransaction: Int64?) -> Void) throws
    /// Releases files and connections.
    func close()
    /// Makes `store` the store whose object IDs this engine's rows and answers carry: a
    /// store type built over another engine's store (``NSAtomicStore`` over an in-memory
    /// database) serves those rows as its own.
    func serve(as store: NSPersistentStore)

    // MARK: Query generations

    /// Whether ``openSnapshot()`` can work: the engine must be able to keep reading the
    /// store as it was while others write (an SQLite file in WAL mode).
    func supportsSnapshots() throws -> Bool
    /// Freezes the store as it is now, for a query generation: the snapshot keeps serving
    /// this state to ``reading(at:_:)`` until it is closed, whoever writes meanwhile.
    /// `nil` when the store cannot keep an older state (see ``supportsSnapshots()``).
    func openSnapshot() throws -> (any StoreSnapshot)?
    /// Runs `body` with every read of this engine served from `snapshot` (one it opened).
    func reading<T>(at snapshot: any StoreSnapshot, _ body: () throws -> T) throws -> T

    /// Whether reads (fetches, counts, rows, related rows and IDs, dictionary fetches)
    /// may run on several threads at once, while no write runs. Reads at a snapshot
    /// never do.
    var readsConcurrently: Bool { get }
}

extension PersistentStoreBackend {
    /// One read at a time, unless the engine says otherwise.
    package var readsConcurrently: Bool { false }
}
