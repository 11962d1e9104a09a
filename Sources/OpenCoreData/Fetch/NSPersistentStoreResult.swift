/// The result of executing a persistent store request with
/// `NSManagedObjectContext.execute(_:)`; subclasses carry what each kind of request returns.
open class NSPersistentStoreResult: NSObject, @unchecked Sendable {}
