/// The request a context's save sends to an ``NSIncrementalStore``'s
/// ``NSIncrementalStore/execute(_:with:)``: the objects to insert, update and delete, and
/// those whose versions must still be current.
///
/// The store reads the objects' values through key-value coding (inserted objects
/// already carry the permanent IDs ``NSIncrementalStore/obtainPermanentIDs(for:)`` gave
/// them) and writes them all, or throws and writes nothing.
open class NSSaveChangesRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// Objects saved for the first time.
    open private(set) var insertedObjects: Set<NSManagedObject>?
    /// Saved objects with changed values or relationships.
    open private(set) var updatedObjects: Set<NSManagedObject>?
    /// Objects to remove from the store.
    open private(set) var deletedObjects: Set<NSManagedObject>?
    /// Objects the save leaves unchanged whose stored versions must not have moved.
    open private(set) var lockedObjects: Set<NSManagedObject>?

    /// A save of these objects.
    ///
    /// - Parameters:
    ///   - insertedObjects: Objects to insert.
    ///   - updatedObjects: Objects to update.
    ///   - deletedObjects: Objects to delete.
    ///   - lockedObjects: Objects whose versions the store checks without writing them.
    public init(
        inserted insertedObjects: Set<NSManagedObject>?, updated updatedObjects: Set<NSManagedObject>?,
        deleted deletedObjects: Set<NSManagedObject>?, locked lockedObjects: Set<NSManagedObject>?
    ) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
        self.lockedObjects = lockedObjects
        super.init()
    }

    /// `.saveRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .saveRequestType }
}
