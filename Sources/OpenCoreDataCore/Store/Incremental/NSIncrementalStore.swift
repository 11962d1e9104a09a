/// A store whose subclass fetches and saves objects itself, one request at a time: Core
/// Data's base of custom stores over a web service, another database, or a file format
/// read piece by piece.
///
/// The coordinator creates the store with ``init(persistentStoreCoordinator:configurationName:at:options:)``
/// and calls ``loadMetadata()``, which sets ``NSPersistentStore/metadata`` (its
/// `NSStoreTypeKey` and `NSStoreUUIDKey` at least). Then contexts call:
/// - ``execute(_:with:)`` with each fetch request (answered with objects, object IDs,
///   dictionaries or a count, as the request's `resultType` says) and with an
///   ``NSSaveChangesRequest`` for each save;
/// - ``newValuesForObject(with:with:)`` when a fault fires, for the object's values as an
///   ``NSIncrementalStoreNode``, and ``newValue(forRelationship:forObjectWith:with:)`` for
///   a relationship the node left out;
/// - ``obtainPermanentIDs(for:)`` before a save, for the objects it inserts;
/// - ``managedObjectContextDidRegisterObjects(with:)`` and
///   ``managedObjectContextDidUnregisterObjects(with:)`` as contexts start and stop using
///   objects of the store.
///
/// The subclass names its objects by reference objects of its own (a string, a number, a
/// UUID) and turns them into IDs with ``newObjectID(for:referenceObject:)``; the same
/// reference always gives the same ID, and ``referenceObject(for:)`` gives it back.
///
/// Calls arrive one at a time, serialized by the coordinator (the unregistration calls
/// may come from the thread that released an object's last reference, still under the
/// coordinator's lock). The context's own unsaved changes are merged into fetch results
/// by the context, as for every store: the subclass answers from what it stores.
///
/// Register a subclass with ``NSPersistentStoreCoordinator/registerStoreClass(_:type:)``
/// and add stores of that type by name, as in Core Data. ``init(persistentStoreCoordinator:configurationName:at:options:)``
/// is `required` here (Swift creates a class from its type only through a required
/// initializer): a subclass that overrides it writes `required override init`.
open class NSIncrementalStore: NSPersistentStore, @unchecked Sendable {
    /// Reference objects ↔ keys of the IDs this store hands out.
    let references = ReferenceObjectTable()
    /// The metadata the subclass sets, kept here: it is the subclass's to store.
    private var metadataValues: [String: Any] = [:]
    private let metadataLock = NSLock()
    /// Unregistrations waiting for the coordinator (see ``contextDid(register:_:)``).
    private var pendingUnregistrations: [NSManagedObjectID] = []
    private let pendingLock = NSLock()

    /// Creates a store of this class for `url`. The coordinator calls it, then ``loadMetadata()``.
    ///
    /// - Parameters:
    ///   - coordinator: The coordinator that will own the store.
    ///   - configurationName: The model configuration whose entities the store holds; `nil` for all.
    ///   - url: Where the store's data lives, in whatever sense the subclass gives it.
    ///   - options: The options the store is added with.
    public required init(
        persistentStoreCoordinator coordinator: NSPersistentStoreCoordinator?, configurationName: String?, at url: URL,
        options: [AnyHashable: Any]? = nil
    ) {
        super.init(
            type: String(describing: Self.self), url: url, configurationName: configurationName, options: options,
            identifier: "")
        persistentStoreCoordinator = coordinator
        isIncremental = true
    }

    // MARK: What a subclass implements

    /// Reads the store's metadata and sets ``NSPersistentStore/metadata``, with at least
    /// `NSStoreTypeKey` and `NSStoreUUIDKey` (for a new store, a UUID from
    /// ``identifierForNewStore(at:)``). Model version hashes in the metadata
    /// (`NSStoreModelVersionHashes`) are checked against the coordinator's model.
    ///
    /// - Throws: When the store can't be reached or read; the store is then not added.
    open func loadMetadata() throws {
        throw notOverridden("loadMetadata()", NSPersistentStoreOpenError)
    }

    /// Runs a request: a fetch request (an `NSFetchRequest<NSFetchRequestResult>`) or an
    /// ``NSSaveChangesRequest``.
    ///
    /// For a fetch, return an array as the request's `resultType` says: managed objects
    /// (made with `context.object(with:)`, faults are fine), object IDs, dictionaries of
    /// the requested properties, or one `NSNumber` with the count. The predicate, sort
    /// descriptors, limit and offset are the subclass's to apply; the context adds its own
    /// unsaved changes afterwards.
    ///
    /// For a save, write every inserted, updated and deleted object (raising each saved
    /// object's version) and return an empty array, or throw and write nothing.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - context: The context the request runs for.
    /// - Returns: The request's results.
    /// - Throws: When the request can't run; the context's fetch or save throws the error.
    open func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        throw notOverridden("execute(_:with:)", NSPersistentStoreUnsupportedRequestTypeError)
    }

    /// The values of one object, for a fault that fires.
    ///
    /// Throw an error with code `NSManagedObjectReferentialIntegrityError` when the
    /// object no longer exists: the fault then fails as a deleted object's does. Any
    /// other error fails the fault with that error.
    ///
    /// - Parameters:
    ///   - objectID: The object's ID.
    ///   - context: The context whose fault fired.
    /// - Returns: The object's values and their version.
    /// - Throws: When the values can't be read.
    open func newValuesForObject(
        with objectID: NSManagedObjectID, with context: NSManagedObjectContext
    ) throws
        -> NSIncrementalStoreNode
    {
        throw notOverridden("newValuesForObject(with:with:)", NSPersistentStoreOperationError)
    }

    /// The value of a relationship that a node left out: for a to-one, the destination's
    /// ID or `NSNull`; for a to-many, an array or set of IDs.
    ///
    /// - Parameters:
    ///   - relationship: A relationship of the object's entity.
    ///   - objectID: The object's ID.
    ///   - context: The context that needs the value, if any.
    /// - Returns: The value.
    /// - Throws: When the value can't be read.
    open func newValue(
        forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
        with context: NSManagedObjectContext?
    ) throws -> Any {
        throw notOverridden("newValue(forRelationship:forObjectWith:with:)", NSPersistentStoreOperationError)
    }

    /// A new identifier for a store at `storeURL`: a UUID string, for ``loadMetadata()``
    /// to record as a new store's `NSStoreUUIDKey`.
    ///
    /// - Parameter storeURL: The store's location.
    /// - Returns: The identifier.
    open class func identifierForNewStore(at storeURL: URL) -> Any {
        UUID().uuidString
    }

    /// Permanent IDs for objects about to be saved for the first time, in their order:
    /// the subclass picks each object's reference object and returns
    /// ``newObjectID(for:referenceObject:)``.
    ///
    /// - Parameter array: Objects with temporary IDs.
    /// - Returns: One ID of this store per object.
    /// - Throws: When no IDs can be given; the save (or the context's
    ///   `obtainPermanentIDs(for:)`) then fails with the error.
    open func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        throw notOverridden("obtainPermanentIDs(for:)", NSPersistentStoreSaveError)
    }

    /// Called when a context starts using objects of the store (a fetch, a fault, a save
    /// that gave objects their IDs). Does nothing by default.
    ///
    /// - Parameter objectIDs: The objects' IDs.
    open func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// Called when a context stops using objects of the store (the object was released,
    /// the context reset, or the object's deletion saved). Does nothing by default.
    ///
    /// - Parameter objectIDs: The objects' IDs.
    open func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// Passes a context's registrations to the subclass, serialized with the coordinator's
    /// other calls to the store.
    ///
    /// An unregistration may come from the thread that released an object's last reference,
    /// whatever that thread holds, so it never waits for the coordinator: when another thread
    /// has the coordinator, it is queued and delivered before the store's next call.
    func contextDid(register: Bool, _ objectIDs: [NSManagedObjectID]) {
        guard let coordinator = persistentStoreCoordinator else {
            if register {
                managedObjectContextDidRegisterObjects(with: objectIDs)
            } else {
                managedObjectContextDidUnregisterObjects(with: objectIDs)
            }
            return
        }
        guard register else {
            pendingLock.withLock { pendingUnregistrations += objectIDs }
            coordinator.performIfFree { deliverPendingUnregistrations() }
            return
        }
        coordinator.performAndWait {
            deliverPendingUnregistrations()
            managedObjectContextDidRegisterObjects(with: objectIDs)
        }
    }

    /// Hands the queued unregistrations to the subclass (call under the coordinator's lock).
    func deliverPendingUnregistrations() {
        let objectIDs = pendingLock.withLock {
            defer { pendingUnregistrations = [] }
            return pendingUnregistrations
        }
        if !objectIDs.isEmpty { managedObjectContextDidUnregisterObjects(with: objectIDs) }
    }

    // MARK: Reference objects

    /// The ID of the object the subclass calls `data`, in `entity`: the same ID for the
    /// same reference object every time.
    ///
    /// - Parameters:
    ///   - entity: The object's entity.
    ///   - data: The reference object (a string, number, UUID or other hashable value).
    /// - Returns: The object's ID in this store.
    open func newObjectID(for entity: NSEntityDescription, referenceObject data: Any) -> NSManagedObjectID {
        references.objectID(for: entity, reference: data, in: self)
    }

    /// The reference object an ID of this store was made from.
    ///
    /// - Parameter objectID: An ID from ``newObjectID(for:referenceObject:)``.
    /// - Returns: The reference object.
    open func referenceObject(for objectID: NSManagedObjectID) -> Any {
        references.reference(of: objectID)
    }

    // MARK: Metadata

    /// The store's metadata, as ``loadMetadata()`` set it; `NSStoreUUIDKey` is the
    /// store's ``NSPersistentStore/identifier`` and the host of its objects' URIs.
    open override var metadata: [String: Any]! {
        get { metadataLock.withLock { metadataValues } }
        set {
            let values = newValue ?? [:]
            metadataLock.withLock { metadataValues = values }
            if let uuid = values[NSStoreUUIDKey] as? String, !uuid.isEmpty { identifier = uuid }
        }
    }

    // MARK: URIs

    /// The last part of an object's URI: `p` and the reference object's text
    /// (percent-encoded), so a URI names the same object on every launch.
    override func uriObjectComponent(forKey key: Int64, entity: NSEntityDescription) -> String {
        let reference = references.reference(forKey: key, in: entity).map { "\($0)" } ?? "\(key)"
        return "p" + (reference.addingPercentEncoding(withAllowedCharacters: Self.uriSafe) ?? reference)
    }

    /// The ID a URI's last part names (``uriObjectComponent(forKey:entity:)``, decoded): the
    /// object whose reference has that text when the store named one (a string, a number, a
    /// UUID), else a number when the text reads as one, else a string.
    override func objectID(
        forURIObjectComponent component: String, entity: NSEntityDescription
    )
        -> NSManagedObjectID?
    {
        guard component.hasPrefix("p") else { return nil }
        let text = String(component.dropFirst())
        let number: Any? = Int64(text) ?? Double(text).map { $0 as Any }
        let candidates: [Any] = [text] + [number, UUID(uuidString: text)].compactMap { $0 }
        let known = candidates.first { references.isRecorded($0, in: entity) }
        // Apple's reference objects are strings or numbers: a text that reads as a number was one.
        return newObjectID(for: entity, referenceObject: known ?? number ?? text)
    }

    private static let uriSafe = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/%"))

    /// The error of a method the subclass must override and did not.
    private func notOverridden(_ method: String, _ code: Int) -> NSError {
        CoreDataError.make(
            code, "\(Swift.type(of: self)) does not override NSIncrementalStore.\(method)",
            [NSAffectedStoresErrorKey: [self]])
    }
}
