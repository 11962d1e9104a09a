/// What executing a store request returns (`NSManagedObjectContext.execute(_:)`).
///
/// Each request type has its own subclass carrying the result in the form its
/// `resultType` asked for.
open class NSPersistentStoreResult: NSObject, @unchecked Sendable {}

/// The result of an ``NSBatchInsertRequest``.
open class NSBatchInsertResult: NSPersistentStoreResult, @unchecked Sendable {
    /// The form of ``result``.
    public let resultType: NSBatchInsertRequestResultType
    /// `true` (`.statusOnly`), the number of rows written (`.count`), or their
    /// `[NSManagedObjectID]` (`.objectIDs`).
    public let result: Any?

    init(resultType: NSBatchInsertRequestResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
    }
}

/// The result of an ``NSBatchUpdateRequest``.
open class NSBatchUpdateResult: NSPersistentStoreResult, @unchecked Sendable {
    /// The form of ``result``.
    public let resultType: NSBatchUpdateRequestResultType
    /// `true` (`.statusOnlyResultType`), the number of rows updated
    /// (`.updatedObjectsCountResultType`), or their `[NSManagedObjectID]`
    /// (`.updatedObjectIDsResultType`).
    public let result: Any?

    init(resultType: NSBatchUpdateRequestResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
    }
}

/// The result of an ``NSBatchDeleteRequest``.
open class NSBatchDeleteResult: NSPersistentStoreResult, @unchecked Sendable {
    /// The form of ``result``.
    public let resultType: NSBatchDeleteRequestResultType
    /// `true` (`.resultTypeStatusOnly`), the number of objects the request matched and
    /// deleted (`.resultTypeCount`), or their `[NSManagedObjectID]` (`.resultTypeObjectIDs`).
    public let result: Any?

    init(resultType: NSBatchDeleteRequestResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
    }
}
