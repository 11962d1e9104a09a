// What the core adds to fetch requests (a description of a query, from the model module):
// running one in a context, finding its entity from a managed object class, and the
// `fetchRequest()` class methods of managed objects.
extension NSManagedObject: NSFetchRequestResult {}
extension NSManagedObjectID: NSFetchRequestResult {}

extension NSPersistentStoreRequest {
    /// The stores to search; `nil` means all of the coordinator's stores.
    public var affectedStores: [NSPersistentStore]? {
        get { affectedStoreObjects?.map { unsafeDowncast($0, to: NSPersistentStore.self) } }
        set { affectedStoreObjects = newValue }
    }
}

extension NSFetchRequest {
    /// Runs the request in the context whose `perform` block is executing.
    ///
    /// Core Data finds that context implicitly; without an Objective-C runtime there
    /// is no such ambient context, so pass it: `try request.execute(in: context)`.
    ///
    /// - Parameter context: The context to fetch in; call this on its queue.
    /// - Returns: The results, as ``NSManagedObjectContext/fetch(_:)`` returns them.
    /// - Throws: What ``NSManagedObjectContext/fetch(_:)`` throws.
    public func execute(in context: NSManagedObjectContext) throws -> [ResultType] {
        try context.fetch(self)
    }

    /// The entity this request targets in `model`, or a clear error.
    func resolveEntity(in model: NSManagedObjectModel) throws -> NSEntityDescription {
        if let explicitEntity { return explicitEntity }
        if let entityName {
            guard let entity = model.entitiesByName[entityName] else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "The fetch request's entity '\(entityName)' is not in the model (entities: \(model.entitiesByName.keys.sorted().joined(separator: ", ")))"
                )
            }
            return entity
        }
        if let type = (resultClass ?? (ResultType.self as? AnyClass)) as? NSManagedObject.Type,
            let entity = type.entity(in: model)
        {
            return entity
        }
        throw CoreDataError.make(NSCoreDataError, "The fetch request has no entity: set entityName or entity")
    }
}

extension NSManagedObject {
    /// A fetch request for this class's entity, typed as Apple's:
    /// `let request: NSFetchRequest<NSFetchRequestResult> = Person.fetchRequest()`.
    ///
    /// Disfavoured, so that where the type is not spelled out (`Person.fetchRequest()` alone
    /// or followed by `as! NSFetchRequest<Person>`) Swift picks the typed `fetchRequest()`
    /// and the cast succeeds: Swift's generic classes do not cast between arguments as
    /// Objective-C's lightweight generics do.
    @_disfavoredOverload
    public class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.resultClass = self
        request.entityName = registeredEntityName
        return request
    }

    /// The name of this class's entity in the first registered model that has one.
    static var registeredEntityName: String? {
        ModelRegistry.shared.models.lazy.compactMap { self.entity(in: $0) }.first?.name
    }
}

/// Gives every managed object class a typed `fetchRequest()`.
///
/// Plumbing that apps never name: only a protocol extension can return `Self` from a
/// class method, so the typed ``fetchRequest()`` lives here and every `NSManagedObject`
/// conforms. The protocol stays in the documentation because hiding it would hide that
/// method from `NSManagedObject`'s page too.
public protocol ManagedObjectFetchRequestProviding {}
extension NSManagedObject: ManagedObjectFetchRequestProviding {}

extension ManagedObjectFetchRequestProviding where Self: NSManagedObject {
    /// A fetch request for this class's entity: `Person.fetchRequest()` is an `NSFetchRequest<Person>`.
    ///
    /// - Returns: A new request whose entity is found from the class when it runs.
    public static func fetchRequest() -> NSFetchRequest<Self> {
        let request = NSFetchRequest<Self>()
        request.resultClass = Self.self
        request.entityName = registeredEntityName
        return request
    }
}
