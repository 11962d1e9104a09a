/// The kinds of request a store executes.
public enum NSPersistentStoreRequestType: UInt, Sendable {
    /// An ``NSFetchRequest``.
    case fetchRequestType = 1
    /// A save, made by a context.
    case saveRequestType = 2
    /// An `NSBatchInsertRequest`.
    case batchInsertRequestType = 5
    /// An `NSBatchUpdateRequest`.
    case batchUpdateRequestType = 6
    /// An `NSBatchDeleteRequest`.
    case batchDeleteRequestType = 7
}

/// A request to a persistent store (fetches, batch operations).
open class NSPersistentStoreRequest: NSObject, @unchecked Sendable {
    /// The stores the request names (its `affectedStores`, a type of the core above);
    /// `nil` means all of the coordinator's stores.
    package final var affectedStoreObjects: [AnyObject]?
    /// The kind of request.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }
}
