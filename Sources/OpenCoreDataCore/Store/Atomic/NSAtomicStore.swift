/// A store that keeps its whole object graph in memory and reads and writes it as a
/// whole: Core Data's abstract base of the Binary store and of custom file formats.
///
/// A subclass reads its file in ``load()``, making one ``NSAtomicStoreCacheNode`` per
/// object (its ID from ``objectID(for:referenceObject:)``) and registering them with
/// ``addCacheNodes(_:)``; it writes ``cacheNodes()`` back in ``save()``. Between the two,
/// a context's save calls ``newReferenceObject(for:)`` and ``newCacheNode(for:)`` for
/// each inserted object, ``updateCacheNode(_:from:)`` for each updated one and
/// ``willRemoveCacheNodes(_:)`` with the deleted ones' nodes, then ``save()``.
///
/// Fetches, predicates, sorts, counts, faulting and relationships work as on any other
/// store: the store keeps the nodes' values in an in-memory database of OpenCoreData's
/// own and answers from it, so a subclass writes only its file format. A save whose
/// ``save()`` throws fails with that error and leaves the store as it was before the save
/// (the nodes and what fetches see), so the context can save again.
///
/// Register a subclass with
/// ``NSPersistentStoreCoordinator/registerStoreClass(_:type:)`` and add stores of that
/// type by name, as in Core Data. The coordinator creates it with
/// ``init(persistentStoreCoordinator:configurationName:at:options:)``, which is
/// `required` here (Swift creates a class from its type only through a required
/// initializer): a subclass that overrides it writes `required override init`.
open class NSAtomicStore: NSPersistentStore, @unchecked Sendable {
    /// Reference objects ↔ keys of the IDs this store hands out.
    let references = ReferenceObjectTable()
    /// The registered nodes by object ID, and the state of a save in progress.
    /// Guarded by `lock`: a subclass may ask for nodes from any thread.
    var nodesByID: [NSManagedObjectID: NSAtomicStoreCacheNode] = [:]
    /// Nodes registered during ``load()``, written to the in-memory database when it returns.
    var loadedNodes: [NSAtomicStoreCacheNode] = []
    /// Whether ``load()`` is running (metadata set then may name the store's UUID).
    var isLoading = false
    /// The save whose callbacks are running, for ``cacheNode(for:)`` to find new objects' nodes.
    var savingChanges: AtomicStoreSaving?
    let lock = NSRecursiveLock()
    /// The entities of the store's configuration, known once the coordinator opens it.
    var storeEntities: [NSEntityDescription] = []
    /// The metadata, kept here rather than in the in-memory database: it is the file's.
    private var metadataValues: [String: Any] = [:]
    /// Bumped when the metadata changes; compared with the value last written.
    private(set) var metadataVersion = 0
    var writtenMetadataVersion = 0

    /// Creates a store of this class for `url`. The coordinator calls it, then ``load()``.
    ///
    /// - Parameters:
    ///   - coordinator: The coordinator that will own the store.
    ///   - configurationName: The model configuration whose entities the store holds; `nil` for all.
    ///   - url: The store's file.
    ///   - options: The options the store is added with.
    public required init(
        persistentStoreCoordinator coordinator: NSPersistentStoreCoordinator?, configurationName: String?, at url: URL,
        options: [AnyHashable: Any]? = nil
    ) {
        let identifier = UUID().uuidString
        super.init(
            type: String(describing: Self.self), url: url, configurationName: configurationName, options: options,
            identifier: identifier)
        persistentStoreCoordinator = coordinator
        metadataValues = [NSStoreUUIDKey: identifier]
    }

    // MARK: Loading and saving: what a subclass implements

    /// Reads the store's file: a subclass makes a node for each object and registers them
    /// with ``addCacheNodes(_:)``, and sets ``NSPersistentStore/metadata`` from the file.
    ///
    /// The coordinator calls it once, when the store is added and its file exists; a new
    /// store starts empty, and the first save creates its file.
    ///
    /// - Throws: When the file can't be read; the store is then not added.
    open func load() throws {
        throw CoreDataError.make(
            NSPersistentStoreInvalidTypeError,
            "\(Swift.type(of: self)) does not override NSAtomicStore.load(), so it cannot read its store",
            [NSFilePathErrorKey: url?.path ?? ""])
    }

    /// Writes ``cacheNodes()`` and the metadata to the store's file; called after each
    /// save's node callbacks.
    ///
    /// - Throws: When the file can't be written; the context's save then fails with the
    ///   error and the store keeps the state it had before that save.
    open func save() throws {
        throw CoreDataError.make(
            NSPersistentStoreSaveError,
            "\(Swift.type(of: self)) does not override NSAtomicStore.save(), so it cannot write its store",
            [NSFilePathErrorKey: url?.path ?? ""])
    }

    /// A new reference object for an object saved for the first time: what the subclass's
    /// file will call it.
    ///
    /// Core Data requires subclasses to override it; here the default is the object's key
    /// in the store (an `Int64`), which ``objectID(for:referenceObject:)`` maps back to the
    /// same ID on the next launch.
    ///
    /// - Parameter managedObject: An inserted object, which already has its permanent ID.
    /// - Returns: A value unique among the store's objects of the entity's inheritance tree.
    open func newReferenceObject(for managedObject: NSManagedObject) -> Any {
        managedObject.objectID.primaryKey ?? 0
    }

    /// A new node for an object saved for the first time, filled from the object; the
    /// store registers it.
    ///
    /// Core Data requires subclasses to override it; the default makes an
    /// ``NSAtomicStoreCacheNode`` and fills it with ``updateCacheNode(_:from:)``.
    ///
    /// - Parameter managedObject: An inserted object.
    /// - Returns: Its node, whose ``NSAtomicStoreCacheNode/objectID`` is the object's ID.
    open func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
        let node = NSAtomicStoreCacheNode(objectID: managedObject.objectID)
        updateCacheNode(node, from: managedObject)
        return node
    }

    /// Copies an updated object's values into its node.
    ///
    /// Core Data requires subclasses to override it; the default copies every stored
    /// property by name: attributes as their values, a to-one as the destination's node, a
    /// to-many as a `Set` of nodes (an `NSOrderedSet` for an ordered one).
    ///
    /// - Parameters:
    ///   - node: The object's node.
    ///   - managedObject: The object, with the values being saved.
    open func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        let cache = node.propertyCache ?? NSMutableDictionary()
        for property in managedObject.entity.facts.slots where property.isStored {
            switch property {
            case let relationship as NSRelationshipDescription where relationship.isToMany:
                let members = managedObject.toMany(relationship).members.compactMap { cacheNode(for: $0.objectID) }
                cache[relationship.name] =
                    relationship.isOrdered ? NSOrderedSet(array: members) as Any : Set(members) as Any
            case let relationship as NSRelationshipDescription:
                let destination = (managedObject.value(forKey: relationship.name) as? NSManagedObject).flatMap {
                    cacheNode(for: $0.objectID)
                }
                if let destination {
                    cache[relationship.name] = destination
                } else {
                    cache.removeObject(forKey: relationship.name)
                }
            case is NSAttributeDescription:
                if let value = managedObject.value(forKey: property.name), !(value is NSNull) {
                    cache[property.name] = value
                } else {
                    cache.removeObject(forKey: property.name)
                }
            default:
                break
            }
        }
        node.propertyCache = cache
    }

    /// Called during a save, before ``save()``, with the nodes of the objects the save
    /// deletes; they leave ``cacheNodes()`` afterwards. Does nothing by default.
    ///
    /// - Parameter cacheNodes: The deleted objects' nodes.
    open func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {}

    // MARK: Nodes

    /// Every node registered with the store: the objects ``save()`` writes.
    ///
    /// - Returns: The nodes.
    open func cacheNodes() -> Set<NSAtomicStoreCacheNode> {
        lock.withLock { Set(nodesByID.values) }
    }

    /// Registers nodes with the store: in ``load()``, the objects read from the file.
    ///
    /// Nodes registered outside ``load()`` become objects of the store at once (their
    /// relationships may name only nodes registered by then). The call cannot throw, as in
    /// Core Data: nodes the store cannot take are refused together, so its fetches and its
    /// next file agree, and the reason is printed to standard error.
    ///
    /// - Parameter cacheNodes: Nodes whose IDs this store made.
    open func addCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
        // Under the coordinator's lock (taken before the store's, as saves take them): a
        // failed save may replace the database these nodes are written into.
        let add = {
            self.lock.withLock {
                for node in cacheNodes { self.nodesByID[node.objectID] = node }
                if self.isLoading || self.backend == nil {
                    self.loadedNodes.append(contentsOf: cacheNodes)
                    return
                }
                do {
                    try self.writeAddedNodes(Array(cacheNodes))
                } catch {
                    for node in cacheNodes { self.nodesByID[node.objectID] = nil }
                    FileHandle.standardError.write(
                        Data(
                            "OpenCoreData: addCacheNodes(_:) refused \(cacheNodes.count) node(s) of the store at \(self.url?.path ?? "?"): \(error)\n"
                                .utf8))
                }
            }
        }
        if let coordinator = persistentStoreCoordinator { coordinator.performAndWait(add) } else { add() }
    }

    /// The node of an object of the store, `nil` when it has none.
    ///
    /// During a save's callbacks this also answers for the objects the save inserts.
    ///
    /// - Parameter objectID: An object's ID.
    /// - Returns: Its node.
    open func cacheNode(for objectID: NSManagedObjectID) -> NSAtomicStoreCacheNode? {
        lock.withLock {
            if let node = nodesByID[objectID] { return node }
            return savingChanges?.nodeForInsertedObject(objectID, in: self)
        }
    }

    // MARK: Reference objects

    /// The ID of the object the subclass calls `data`, in `entity`: the same ID for the
    /// same reference object every time.
    ///
    /// - Parameters:
    ///   - entity: The object's entity.
    ///   - data: The reference object (a string, number, UUID or other hashable value).
    /// - Returns: The object's ID in this store.
    open func objectID(for entity: NSEntityDescription, referenceObject data: Any) -> NSManagedObjectID {
        references.objectID(for: entity, reference: data, in: self)
    }

    /// The reference object of an object of the store: what ``newReferenceObject(for:)``
    /// gave it, or what ``objectID(for:referenceObject:)`` was given.
    ///
    /// An ID the store never named (one obtained with `obtainPermanentIDs(for:)` for an
    /// object not saved yet) answers its key, the reference object it will get by default.
    ///
    /// - Parameter objectID: An ID of this store.
    /// - Returns: The reference object.
    open func referenceObject(for objectID: NSManagedObjectID) -> Any {
        references.reference(of: objectID)
    }

    // MARK: Metadata

    /// The store's metadata: `NSStoreType`, `NSStoreUUID` and the model's version hashes
    /// among them. A subclass sets it in ``load()`` from its file and writes it in ``save()``.
    ///
    /// Setting it in ``load()`` with an `NSStoreUUID` makes that UUID the store's
    /// ``NSPersistentStore/identifier``; afterwards the UUID stays.
    open override var metadata: [String: Any]! {
        get { lock.withLock { metadataValues } }
        set { setAtomicMetadata(newValue ?? [:]) }
    }

    func setAtomicMetadata(_ values: [String: Any]) {
        lock.withLock {
            var merged = values
            if isLoading || backend == nil, let uuid = values[NSStoreUUIDKey] as? String, !uuid.isEmpty {
                identifier = uuid
            } else {
                merged[NSStoreUUIDKey] = identifier
            }
            metadataValues = merged
            metadataVersion += 1
        }
    }
}
