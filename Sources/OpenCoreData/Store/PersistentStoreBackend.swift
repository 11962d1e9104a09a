/// What a store engine does for a coordinator. Every store type sits behind this
/// protocol: the SQLite store today (files and `:memory:`), a PostgreSQL store next.
///
/// Calls arrive serialized by the coordinator. Rows come back in `StoreRow` form
/// and changes go in as `StoreSaveRequest`; SQL, if any, is the engine's business.
protocol PersistentStoreBackend: AnyObject {
    /// The store's metadata (`NSStoreType`, `NSStoreUUID`, model version hashes, …).
    var metadata: [String: Any] { get }
    /// Replaces the user-settable part of the metadata; written at the next save.
    func setMetadata(_ metadata: [String: Any]) throws
    /// Rows matching `fetch`, in order.
    func fetch(_ fetch: StoreFetch) throws -> [StoreRow]
    /// How many rows match `fetch` (limit and offset ignored).
    func count(_ fetch: StoreFetch) throws -> Int
    /// The IDs of the rows matching `fetch`, in order, without reading their values.
    func fetchObjectIDs(_ fetch: StoreFetch) throws -> [NSManagedObjectID]
    /// The dictionaries of a dictionary fetch (values, aggregates, groups), from the store alone.
    func fetchDictionaries(_ fetch: StoreDictionaryFetch) throws -> [NSDictionary]
    /// The row of one object, or `nil` when it no longer exists.
    func row(for objectID: NSManagedObjectID) throws -> StoreRow?
    /// The IDs a to-many relationship of a saved object holds, in order for ordered ones.
    func relatedObjectIDs(of objectID: NSManagedObjectID, relationship: NSRelationshipDescription) throws -> [NSManagedObjectID]
    /// Reserves primary keys for new objects of these entities.
    func reservePrimaryKeys(for entities: [NSEntityDescription]) throws -> [Int64]
    /// Writes one save atomically: `build` gets a key allocator inside the transaction.
    func save(_ build: (inout any PrimaryKeyAllocator) throws -> StoreSaveRequest) throws
    /// Releases files and connections.
    func close()
}
