/// The kinds of request a store executes.
public enum NSPersistentStoreRequestType: UInt, Sendable {
    case fetchRequestType = 1
    case saveRequestType = 2
    case batchInsertRequestType = 5
    case batchUpdateRequestType = 6
    case batchDeleteRequestType = 7
}

/// A request to a persistent store (fetches, batch operations).
open class NSPersistentStoreRequest: NSObject, @unchecked Sendable {
    /// The stores to search; `nil` means all of the coordinator's stores.
    open var affectedStores: [NSPersistentStore]?
    /// The kind of request.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }
}
