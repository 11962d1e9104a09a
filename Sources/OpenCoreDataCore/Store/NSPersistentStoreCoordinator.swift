internal import Synchronization
/// Connects contexts to stores through one model.
///
/// Several contexts share a coordinator; it orders their calls into the stores with a
/// lock, as Core Data's coordinator does. Saves and every other change run alone; reads
/// of a store that serves several at once (an SQLite file, through a pool of read
/// connections as Core Data's own) run side by side.
open class NSPersistentStoreCoordinator: NSObject, @unchecked Sendable {
    /// The model, frozen from now on.
    public let managedObjectModel: NSManagedObjectModel
    /// The stores added so far.
    open private(set) var persistentStores: [NSPersistentStore] = []
    /// A name for debugging.
    open var name: String?

    let lock = CoordinatorLock()
    /// Snapshots shared by the contexts (filled by reads sharing `lock`, so the cache
    /// locks itself, as it must anyway: rows leave it as they deallocate, on any thread).
    private let rowCache = RowCache()
    /// Bumped (holding `lock` alone) whenever saves or batch requests change cached rows; read
    /// without the lock by faults checking that the row their fetch read is still current.
    private let cacheGeneration = Atomic<Int>(0)

    /// Caches rows read for a context: rows of a query generation in that generation's
    /// cache (see ``QueryGeneration``), others in the shared cache stamped with the
    /// current cache generation (call holding or sharing `lock`).
    private func cache(_ rows: [StoreRow], at queryGeneration: QueryGeneration? = nil) {
        if let queryGeneration {
            // Never current for an unpinned reader: it looks for a newer row first.
            for row in rows { row.generation = -1 }
            queryGeneration.rows.insert(rows)
            return
        }
        let generation = cacheGeneration.load(ordering: .relaxed)
        for row in rows { row.generation = generation }
        rowCache.insert(rows)
    }

    /// Creates a coordinator for `model` (which becomes immutable).
    ///
    /// - Parameter model: The model of every store the coordinator opens.
    public init(managedObjectModel model: NSManagedObjectModel) {
        managedObjectModel = model
        model.freeze()
        ModelRegistry.shared.add(model)
        super.init()
    }

    /// Runs `block` on the coordinator, serialized with its other work.
    ///
    /// - Parameter block: The work.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws.
    open func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        try lock.exclusively(block)
    }

    /// Runs a context's read of `store` (the first store when `nil`): beside other such
    /// reads when the store's engine serves several at once and no query generation pins
    /// the read, else alone as ``performAndWait(_:)``. Reads sharing the lock change
    /// nothing of the coordinator but the row cache, which locks itself.
    private func performReading<T>(
        _ store: NSPersistentStore?, at generation: QueryGeneration?, _ block: () throws -> T
    ) rethrows -> T {
        try lock.shared {
            // Query generations open and switch snapshots: those reads run alone.
            guard generation == nil, (store ?? persistentStores.first)?.backend?.readsConcurrently == true else {
                return try lock.exclusively(block)
            }
            return try block()
        }
    }

    /// Runs `block` on the coordinator if no other thread is working on it, else does
    /// nothing: for callers that must not wait (an object's deallocation).
    final func performIfFree(_ block: () -> Void) {
        _ = lock.exclusivelyIfFree(block)
    }

    /// Runs `block` on the coordinator, asynchronously.
    ///
    /// - Parameter block: The work.
    open func perform(_ block: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async { self.performAndWait(block) }
    }

    // MARK: Stores

    /// Opens (creating it if needed) a store and adds it.
    ///
    /// Throws for an invalid model, an unknown store type, a file that is not a store,
    /// or a store made with an incompatible model.
    ///
    /// - Parameters:
    ///   - storeType: `NSSQLiteStoreType` or `NSInMemoryStoreType`.
    ///   - configuration: The model configuration whose entities the store holds; `nil` for all.
    ///   - storeURL: The store file; `nil` or `/dev/null` for a store in memory.
    ///   - options: Store options, such as ``NSMigratePersistentStoresAutomaticallyOption``,
    ///     ``NSPersistentHistoryTrackingKey`` or ``NSReadOnlyPersistentStoreOption``.
    /// - Returns: The open store.
    /// - Throws: An `NSError` naming why the store did not open; the coordinator is unchanged.
    @discardableResult
    open func addPersistentStore(
        ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
        options: [AnyHashable: Any]? = nil
    ) throws -> NSPersistentStore {
        try addPersistentStore(
            ofType: storeType, configurationName: configuration, at: storeURL, options: options, copying: nil)
    }

    /// Adds a store; an in-memory one starts as a copy of `source` when given.
    private func addPersistentStore(
        ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
        options: [AnyHashable: Any]?,
        copying source: (any PersistentStoreBackend)?
    ) throws -> NSPersistentStore {
        try managedObjectModel.validateForUse()
        let entities = managedObjectModel.entities(forConfigurationName: configuration)
        guard let entities else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError, "The model has no configuration named '\(configuration ?? "")'")
        }
        return try performAndWait {
            let store: NSPersistentStore
            switch storeType {
            case NSSQLiteStoreType:
                let engine = try StoreEngines.sqlite()
                guard let storeURL else {
                    throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "An SQLite store needs a file URL")
                }
                if let source, StoreLocation.isDevNull(storeURL) {
                    store = try engine.openInMemoryStore(
                        model: managedObjectModel, entities: entities, configuration: configuration, options: options,
                        type: NSSQLiteStoreType, copying: source)
                    break
                }
                if let source {
                    try engine.copyStore(source, toFileAt: storeURL)
                    do {
                        store = try engine.openStore(
                            at: storeURL, model: managedObjectModel, entities: entities, configuration: configuration,
                            options: options)
                    } catch {
                        // A copy that cannot be opened is removed, so a retry starts clean.
                        try? engine.destroyStoreFiles(at: storeURL)
                        throw error
                    }
                    break
                }
                if let staged = options?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager,
                    !((options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false)
                {
                    try staged.migrateStore(
                        at: storeURL, to: managedObjectModel, configuration: configuration, options: options)
                }
                try AutomaticMigration.migrateBeforeOpening(
                    storeAt: storeURL, to: managedObjectModel, configuration: configuration, options: options)
                store = try engine.openStore(
                    at: storeURL, model: managedObjectModel, entities: entities, configuration: configuration,
                    options: options)
            case StoreEngines.postgreSQLStoreType:
                let engine = try StoreEngines.postgreSQL()
                guard let storeURL, source == nil else {
                    throw CoreDataError.make(
                        NSPersistentStoreInvalidTypeError,
                        storeURL == nil
                            ? "A PostgreSQL store needs a database URL (postgres://user@host:port/database)"
                            : "Can't copy a store into a PostgreSQL database yet")
                }
                store = try engine.openStore(
                    at: storeURL, model: managedObjectModel, entities: entities, configuration: configuration,
                    options: options)
            case NSInMemoryStoreType:
                store = try StoreEngines.sqlite().openInMemoryStore(
                    model: managedObjectModel, entities: entities, configuration: configuration, options: options,
                    type: NSInMemoryStoreType, copying: source)
            default:
                // Registered store types are incremental stores (Store/Incremental/) or, as
                // the Binary type is, atomic stores (Store/Atomic/).
                if let storeClass = Self.incrementalStoreClass(forType: storeType) {
                    guard source == nil else {
                        throw CoreDataError.make(
                            NSPersistentStoreOperationError,
                            "Can't copy a store into the incremental store type '\(storeType)': its subclass saves only a context's objects"
                        )
                    }
                    store = try openIncrementalStore(
                        storeClass, type: storeType, configuration: configuration, at: storeURL, options: options)
                    break
                }
                guard let storeClass = try Self.atomicStoreClass(forType: storeType) else {
                    throw CoreDataError.make(
                        NSPersistentStoreInvalidTypeError,
                        "Unsupported store type '\(storeType)': use NSSQLiteStoreType, NSInMemoryStoreType, NSBinaryStoreType or a type registered with registerStoreClass(_:type:)"
                    )
                }
                store = try openAtomicStore(
                    storeClass, type: storeType, configuration: configuration, at: storeURL, options: options,
                    entities: entities, copying: source)
            }
            store.persistentStoreCoordinator = self
            if NSPersistentStore.isSet(options?[NSPersistentStoreRemoteChangeNotificationPostOptionKey]) {
                do {
                    try store.backend?.observeChanges { [weak self, weak store] lastTransaction in
                        guard let self, let store else { return }
                        postRemoteChange(of: store, lastTransaction: lastTransaction)
                    }
                } catch {
                    store.backend?.close()
                    throw CoreDataError.make(
                        NSPersistentStoreOpenError,
                        "Can't watch the store at \(storeURL?.path ?? "?") for remote changes: \(error)",
                        [NSUnderlyingErrorKey: error as NSError])
                }
            }
            let change = [NSAddedPersistentStoresKey: [store]]
            NotificationCenter.default.post(
                name: .NSPersistentStoreCoordinatorStoresWillChange, object: self, userInfo: change)
            persistentStores.append(store)
            NotificationCenter.default.post(
                name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: change)
            return store
        }
    }

    /// Swift spelling of ``addPersistentStore(ofType:configurationName:at:options:)``.
    ///
    /// - Parameters:
    ///   - type: The store type.
    ///   - configuration: The model configuration whose entities the store holds; `nil` for all.
    ///   - storeURL: The store file, or `/dev/null` for a store in memory.
    ///   - options: Store options.
    /// - Returns: The open store.
    /// - Throws: An `NSError` naming why the store did not open.
    @discardableResult
    open func addPersistentStore(
        type: NSPersistentStore.StoreType, configuration: String? = nil, at storeURL: URL,
        options: [AnyHashable: Any]? = nil
    ) throws -> NSPersistentStore {
        try addPersistentStore(ofType: type.rawValue, configurationName: configuration, at: storeURL, options: options)
    }

    /// Adds the store a description describes and reports the outcome to `block`.
    ///
    /// - Parameters:
    ///   - description: The store's type, location, configuration and options.
    ///   - block: Called once, before this returns, with the description and `nil` or the error.
    open func addPersistentStore(
        with description: NSPersistentStoreDescription,
        completionHandler block: @escaping (NSPersistentStoreDescription, Error?) -> Void
    ) {
        do {
            try addPersistentStore(
                ofType: description.type, configurationName: description.configuration, at: description.url,
                options: description.effectiveOptions)
            block(description, nil)
        } catch {
            block(description, error)
        }
    }

    /// Moves a store to a new location and, if asked, another type: the store's data
    /// (objects, metadata, persistent history, values kept in files) is copied into a
    /// new store at `url`, which is added with `options` in place of `store`, and `store`
    /// is removed. Returns the new store.
    ///
    /// The copy is SQLite's online backup, so it is consistent even while other
    /// processes write. A file already at `url` is not overwritten: the call throws and
    /// nothing changes (use ``replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)``
    /// to overwrite a store). Objects fetched from `store` belong to a store that is
    /// gone afterwards; fetch them again (as in Core Data, the old store is no longer a
    /// useful reference).
    ///
    /// - Parameters:
    ///   - store: A store of this coordinator.
    ///   - url: Where the copy goes; nothing may exist there yet.
    ///   - options: Options for the new store.
    ///   - storeType: The new store's type.
    /// - Returns: The new store, which replaced `store` in the coordinator.
    /// - Throws: An `NSError` when `store` is not this coordinator's or the copy fails; the
    ///   coordinator then still has `store`.
    @discardableResult
    open func migratePersistentStore(
        _ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil, withType storeType: String
    ) throws -> NSPersistentStore {
        try performAndWait {
            guard persistentStores.contains(where: { $0 === store }), let backend = try Self.copyableBackend(of: store),
                try StoreEngines.sqlite().canCopy(backend)
            else {
                throw CoreDataError.make(
                    NSPersistentStoreOperationError, "Can't migrate a store that is not added to this coordinator")
            }
            let destination = storeType == NSInMemoryStoreType ? nil : url
            let copy = try addPersistentStore(
                ofType: storeType, configurationName: store.configurationName, at: destination, options: options,
                copying: backend)
            try remove(store)
            return copy
        }
    }

    /// Swift spelling of ``migratePersistentStore(_:to:options:withType:)``.
    ///
    /// - Parameters:
    ///   - store: A store of this coordinator.
    ///   - url: Where the copy goes; nothing may exist there yet.
    ///   - options: Options for the new store.
    ///   - storeType: The new store's type.
    /// - Returns: The new store.
    /// - Throws: An `NSError` when the copy fails.
    @discardableResult
    public func migratePersistentStore(
        _ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil,
        type storeType: NSPersistentStore.StoreType
    ) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, withType: storeType.rawValue)
    }

    /// Closes a store and removes it.
    ///
    /// - Parameter store: A store of this coordinator.
    /// - Throws: Declared as in Core Data; removing a store here does not fail.
    open func remove(_ store: NSPersistentStore) throws {
        performAndWait {
            let change = [NSRemovedPersistentStoresKey: [store]]
            NotificationCenter.default.post(
                name: .NSPersistentStoreCoordinatorStoresWillChange, object: self, userInfo: change)
            NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store)
            store.backend?.close()
            persistentStores.removeAll { $0 === store }
            NotificationCenter.default.post(
                name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: change)
        }
    }

    /// The store at `url`, if it was added.
    ///
    /// - Parameter url: A store file's location.
    /// - Returns: The store, or `nil`.
    open func persistentStore(for url: URL) -> NSPersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    /// The URL of a store.
    ///
    /// - Parameter store: A store of this coordinator.
    /// - Returns: Its file, or `/dev/null` for a store in memory.
    open func url(for store: NSPersistentStore) -> URL { store.url ?? URL(fileURLWithPath: "/dev/null") }

    /// The metadata of a store.
    ///
    /// - Parameter store: A store of this coordinator.
    /// - Returns: Its metadata, with unsaved changes to it.
    open func metadata(for store: NSPersistentStore) -> [String: Any] { store.metadata ?? [:] }

    /// Writes the metadata set on any store since its last save (a save with no object changes).
    func saveMetadata() throws {
        try performAndWait {
            for store in persistentStores where !store.isReadOnly { try store.backend?.saveMetadata() }
        }
    }

    /// Replaces a store's metadata (its `NSStoreUUID` stays); written with the next save.
    ///
    /// - Parameters:
    ///   - metadata: Property-list values by key; `nil` for none. The store keeps its `NSStoreUUID`.
    ///   - store: A store of this coordinator.
    open func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        store.metadata = metadata ?? [:]
    }

    /// Reads a store file's metadata without opening it for use.
    ///
    /// - Parameters:
    ///   - storeType: The store's type.
    ///   - url: The store file.
    ///   - options: Store options.
    /// - Returns: The metadata: the store's UUID, type and entity version hashes among them.
    /// - Throws: An `NSError` when the file is missing or not a store.
    open class func metadataForPersistentStore(
        ofType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil
    ) throws -> [String: Any] {
        if let storeClass = incrementalStoreClass(forType: storeType) {
            // The subclass reads its metadata itself, as when the store is added.
            let store = storeClass.init(
                persistentStoreCoordinator: nil, configurationName: nil, at: url, options: options)
            try store.loadMetadata()
            return store.metadata ?? [:]
        }
        if let metadata = try atomicStoreMetadata(ofType: storeType, at: url) { return metadata }
        if storeType == StoreEngines.postgreSQLStoreType {
            return try StoreEngines.postgreSQL().metadata(ofStoreAt: url, options: options)
        }
        try requireFileStoreType(storeType)
        return try StoreEngines.sqlite().metadata(ofStoreAt: url)
    }

    /// The model cached in the SQLite store at `url` (its `Z_MODELCACHE`): the model that
    /// created or last migrated the store, so a store can be read without its app's model
    /// file. Core Data and OpenCoreData both write it. Throws when the file is not a store,
    /// or the store caches no model (stores written before the cache existed).
    ///
    /// - Parameters:
    ///   - url: The store file.
    ///   - options: Store options.
    /// - Returns: The cached model.
    /// - Throws: An `NSError` when there is no store or no cached model.
    open class func cachedModelForPersistentStore(
        at url: URL, options: [AnyHashable: Any]? = nil
    ) throws -> NSManagedObjectModel {
        guard let model = try StoreEngines.sqlite().cachedModel(inStoreAt: url) else {
            throw CoreDataError.make(
                NSPersistentStoreIncompatibleSchemaError, "The store at \(url.path) caches no model",
                [NSFilePathErrorKey: url.path])
        }
        return model
    }

    /// Writes `metadata` into the store file at `url`, which must not be open (for a store
    /// of this or another coordinator, use ``setMetadata(_:for:)`` and save): it replaces
    /// the store's metadata, keeping its `NSStoreUUIDKey` and, unless given, its
    /// `NSStoreTypeKey`. Read it back with ``metadataForPersistentStore(ofType:at:options:)``.
    ///
    /// - Parameters:
    ///   - metadata: Property-list values by key; `nil` for none but the UUID and type.
    ///   - storeType: The store's type.
    ///   - url: The store file.
    ///   - options: Store options.
    /// - Throws: An `NSError` when the file is missing or not a store, or a value is not a
    ///   property-list type.
    open class func setMetadata(
        _ metadata: [String: Any]?, forPersistentStoreOfType storeType: String, at url: URL,
        options: [AnyHashable: Any]? = nil
    ) throws {
        try requireFileStoreType(storeType)
        try StoreEngines.sqlite().setMetadata(metadata ?? [:], ofStoreAt: url)
    }

    /// Swift spelling of ``setMetadata(_:forPersistentStoreOfType:at:options:)``.
    ///
    /// - Parameters:
    ///   - metadata: Property-list values by key; `nil` for none but the UUID and type.
    ///   - type: The store's type.
    ///   - url: The store file.
    ///   - options: Store options.
    /// - Throws: An `NSError` when the file is missing or not a store.
    public class func setMetadata(
        _ metadata: [String: Any]?, type: NSPersistentStore.StoreType, at url: URL,
        options: [AnyHashable: Any]? = nil
    ) throws {
        try setMetadata(metadata, forPersistentStoreOfType: type.rawValue, at: url, options: options)
    }

    /// Swift spelling of ``metadataForPersistentStore(ofType:at:options:)``.
    ///
    /// - Parameters:
    ///   - type: The store's type.
    ///   - url: The store file.
    ///   - options: Store options.
    /// - Returns: The metadata.
    /// - Throws: An `NSError` when the file is missing or not a store.
    public class func metadataForPersistentStore(
        type: NSPersistentStore.StoreType, at url: URL, options: [AnyHashable: Any]? = nil
    ) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: type.rawValue, at: url, options: options)
    }

    /// Destroys a store as Core Data does, removing it from this coordinator first when it
    /// was added: an SQLite store file stays, truncated to an empty database (its `-wal`
    /// and `-shm` files go, and so does the data kept in files beside it), so a connection
    /// another process still holds sees an empty store rather than a deleted file.
    ///
    /// Only a store is ever destroyed: a URL naming anything else (`/dev/null`, a folder, a
    /// file that is not a Core Data store) throws and leaves it as it was. A missing file
    /// is no error; a missing folder is.
    ///
    /// - Parameters:
    ///   - url: The store file.
    ///   - storeType: The store's type.
    ///   - options: Store options.
    /// - Throws: An `NSError` when `url` names no store file of that type, or the store
    ///   cannot be emptied (another connection is writing it).
    open func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        try Self.refuseIncrementalStoreFiles(of: storeType, "destroy")
        if try Self.atomicStoreClass(forType: storeType) != nil {
            try destroyAtomicStore(at: url, ofType: storeType)
            return
        }
        if storeType == StoreEngines.postgreSQLStoreType {
            let engine = try StoreEngines.postgreSQL()
            // The URL names a database; the schema option names the store in it.
            func schema(_ options: [AnyHashable: Any]?) -> String {
                options?[StoreEngines.postgreSQLSchemaOption] as? String ?? "public"
            }
            for store in persistentStores
            where store.type == storeType && store.url == url && schema(store.options) == schema(options) {
                try remove(store)
            }
            try engine.destroyStore(at: url, options: options)
            return
        }
        let inMemory = storeType == NSInMemoryStoreType
        if !inMemory { try Self.requireFileStoreType(storeType) }
        if !inMemory, StoreLocation.isDevNull(url) {
            throw CoreDataError.make(
                NSPersistentStoreOperationError,
                "A store at /dev/null lives in memory: there is no store file to destroy (remove the store from its coordinator instead)",
                [NSFilePathErrorKey: url.path])
        }
        if let store = persistentStore(for: url) { try remove(store) }
        if !inMemory { try StoreEngines.sqlite().destroyStore(at: url) }
    }

    /// Swift spelling of ``destroyPersistentStore(at:ofType:options:)``.
    ///
    /// - Parameters:
    ///   - url: The store file.
    ///   - type: The store's type.
    ///   - options: Store options.
    /// - Throws: An `NSError` when the files cannot be removed.
    public func destroyPersistentStore(
        at url: URL, type: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil
    ) throws {
        try destroyPersistentStore(at: url, ofType: type.rawValue, options: options)
    }

    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL`
    /// (a missing destination is created, so this also copies a store), as Core Data
    /// recommends over migrating a store to back it up or restore it.
    ///
    /// The source may be in use; the destination must not be added to this coordinator
    /// (remove it first, then add it again). Throws when the source is missing or not a
    /// store, leaving the destination as it was.
    ///
    /// - Parameters:
    ///   - destinationURL: The store to replace, or where to create the copy.
    ///   - destinationOptions: Options of the destination store.
    ///   - sourceURL: The store to copy.
    ///   - sourceOptions: Options of the source store.
    ///   - storeType: The stores' type; it must be a file store.
    /// - Throws: An `NSError` when the source is missing or not a store, or the destination
    ///   is in use by this coordinator.
    open func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
        withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
        ofType storeType: String
    ) throws {
        try Self.refuseIncrementalStoreFiles(of: storeType, "replace")
        let atomic = try Self.atomicStoreClass(forType: storeType) != nil
        if !atomic { try Self.requireFileStoreType(storeType) }
        if persistentStore(for: destinationURL) != nil, !StoreLocation.isDevNull(destinationURL) {
            throw CoreDataError.make(
                NSPersistentStoreOperationError,
                "The store at \(destinationURL.path) is in use by this coordinator; remove it before replacing it",
                [NSFilePathErrorKey: destinationURL.path])
        }
        if atomic {
            try Self.replaceAtomicStoreFile(ofType: storeType, at: destinationURL, from: sourceURL)
            return
        }
        try StoreEngines.sqlite().replaceStoreFiles(at: destinationURL, from: sourceURL)
    }

    /// Swift spelling of ``replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)``.
    ///
    /// - Parameters:
    ///   - destinationURL: The store to replace, or where to create the copy.
    ///   - destinationOptions: Options of the destination store.
    ///   - sourceURL: The store to copy.
    ///   - sourceOptions: Options of the source store.
    ///   - type: The stores' type.
    /// - Throws: An `NSError` when the source is missing or not a store.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
        withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
        type: NSPersistentStore.StoreType
    ) throws {
        try replacePersistentStore(
            at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL,
            sourceOptions: sourceOptions, ofType: type.rawValue)
    }

    /// Stores that live in files here are SQLite stores; other types cannot be read from a URL.
    private static func requireFileStoreType(_ storeType: String) throws {
        guard storeType == NSSQLiteStoreType else {
            throw CoreDataError.make(
                NSPersistentStoreInvalidTypeError,
                "Unsupported store type '\(storeType)' for a store file: use NSSQLiteStoreType")
        }
    }

    /// The ID named by a URI from `uriRepresentation()`, when one of the stores holds that entity.
    ///
    /// - Parameter url: A URI such as `x-coredata://<store UUID>/Person/p12`.
    /// - Returns: The ID, or `nil` when no store of this coordinator matches.
    open func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard url.scheme == "x-coredata", let host = url.host else { return nil }
        // Split before decoding: an incremental store's reference may hold an encoded "/".
        let parts = url.path(percentEncoded: true).split(separator: "/").map { $0.removingPercentEncoding ?? "" }
        guard parts.count == 2, let store = persistentStores.first(where: { $0.identifier == host }),
            let entity = managedObjectModel.entitiesByName[parts[0]]
        else { return nil }
        return store.objectID(forURIObjectComponent: parts[1], entity: entity)
    }

    /// What an object ID's URI (`x-coredata://STORE-UUID/Entity/pKEY`) names, or `nil`
    /// when `url` is not such a URI.
    static func objectURIParts(_ url: URL) -> (store: String, entity: String, key: Int64)? {
        guard url.scheme == "x-coredata", let host = url.host else { return nil }
        let parts = url.path.split(separator: "/")
        guard parts.count == 2, parts[1].hasPrefix("p"), let key = Int64(parts[1].dropFirst()) else { return nil }
        return (host, String(parts[0]), key)
    }

    // MARK: Requests from contexts

    /// Runs a read on `store`'s engine (call holding or sharing `lock`): at the query generation's
    /// snapshot of the store when the context is pinned, else on the latest data.
    /// `nil` when the store has no engine (it was never opened). An incremental store's
    /// subclass is handed `context`, the context the read is for.
    private func reading<T>(
        _ store: NSPersistentStore, at generation: QueryGeneration?, by context: NSManagedObjectContext? = nil,
        _ body: (any PersistentStoreBackend) throws -> T
    ) throws -> T? {
        guard let backend = store.backend else { return nil }
        if store.isIncremental, let incremental = backend as? IncrementalStoreBackend {
            return try incremental.serving(context) { try body(backend) }
        }
        guard let generation, let snapshot = try generation.snapshot(of: store, among: persistentStores) else {
            return try body(backend)
        }
        return try backend.reading(at: snapshot) { try body(backend) }
    }

    /// ``reading(_:at:_:)`` on the store a fetch of `entity` reads.
    private func reading<T>(
        _ entity: NSEntityDescription, at generation: QueryGeneration?, _ body: (any PersistentStoreBackend) throws -> T
    ) throws -> T {
        guard let store = persistentStores.first, let result = try reading(store, at: generation, body) else {
            throw CoreDataError.make(
                NSCoreDataError,
                "This NSPersistentStoreCoordinator has no persistent stores. It cannot perform a fetch.")
        }
        return result
    }

    // Reads for contexts take the query generation the context is pinned to (`nil`:
    // unpinned, the latest data). Writes never do: saves and their conflict checks see
    // the store as it is.

    func fetch(_ fetch: StoreFetch, at generation: QueryGeneration?) throws -> [StoreRow] {
        try performReading(nil, at: generation) {
            let rows = try reading(fetch.entity, at: generation) { try $0.fetch(fetch) }
            cache(rows, at: generation)
            return rows
        }
    }

    func fetchObjectIDs(_ fetch: StoreFetch, at generation: QueryGeneration?) throws -> StoreObjectList {
        try performReading(nil, at: generation) {
            try reading(fetch.entity, at: generation) { try $0.fetchObjectIDs(fetch) }
        }
    }

    /// The rows of these objects, read together (one query per table) and cached.
    func rows(
        for objectIDs: [NSManagedObjectID], at generation: QueryGeneration?, by context: NSManagedObjectContext
    ) throws -> [StoreRow] {
        guard let first = objectIDs.first(where: { !$0.isTemporaryID }), let store = first.persistentStore else {
            return []
        }
        return try performReading(store, at: generation) {
            let rows = try reading(store, at: generation, by: context) { try $0.rows(for: objectIDs) } ?? []
            cache(rows, at: generation)
            return rows
        }
    }

    /// The destination rows of a to-many for many sources at once (prefetching), cached.
    func relatedRows(
        of sources: [NSManagedObjectID], relationship: NSRelationshipDescription, at generation: QueryGeneration?,
        by context: NSManagedObjectContext
    ) throws -> [(source: Int64, row: StoreRow)] {
        guard let first = sources.first(where: { !$0.isTemporaryID }), let store = first.persistentStore else {
            return []
        }
        return try performReading(store, at: generation) {
            let related =
                try reading(store, at: generation, by: context) {
                    try $0.relatedRows(of: sources, relationship: relationship)
                } ?? []
            cache(related.map(\.row), at: generation)
            return related
        }
    }

    func count(_ fetch: StoreFetch, at generation: QueryGeneration?) throws -> Int {
        try performReading(nil, at: generation) { try reading(fetch.entity, at: generation) { try $0.count(fetch) } }
    }

    func fetchDictionaries(_ fetch: StoreDictionaryFetch, at generation: QueryGeneration?) throws -> [NSDictionary] {
        try performReading(nil, at: generation) {
            try reading(fetch.fetch.entity, at: generation) { try $0.fetchDictionaries(fetch) }
        }
    }

    /// The snapshot of one object: from the row cache when it is at most `maxAge`
    /// seconds old (negative: any age), else read from the store. At a query generation,
    /// from that generation's cache, where rows never go stale, else from its snapshot.
    func row(
        for objectID: NSManagedObjectID, maxAge: TimeInterval, at generation: QueryGeneration?,
        by context: NSManagedObjectContext
    ) throws -> StoreRow? {
        try performReading(objectID.persistentStore, at: generation) {
            let cache = generation?.rows ?? rowCache
            let maxAge = generation == nil ? maxAge : -1
            if maxAge != 0, let cached = cache.row(for: objectID, maxAge: maxAge, now: StoreRow.now()) {
                return cached
            }
            guard let store = objectID.persistentStore,
                let row = try reading(store, at: generation, by: context, { try $0.row(for: objectID) }) ?? nil
            else {
                cache.remove([objectID])
                return nil
            }
            self.cache([row], at: generation)
            return row
        }
    }

    /// The freshest snapshot for an object a fetch read as `row`: `row` itself unless
    /// a save or batch request changed the cache since; then the newer cached row, or a
    /// new read when the batch dropped it. At a query generation: `row` when it was read
    /// at that generation, else the object's row at the generation.
    func currentRow(
        for row: StoreRow, at generation: QueryGeneration?, by context: NSManagedObjectContext
    ) throws -> StoreRow? {
        if let generation {
            // The row's cache was set under `lock` before the row reached the context.
            if row.cache === generation.rows { return row }
            return try self.row(for: row.objectID, maxAge: -1, at: generation, by: context)
        }
        if row.generation == cacheGeneration.load(ordering: .relaxed) { return row }
        return try performReading(row.persistentStore, at: nil) {
            if let cached = rowCache.row(forKey: row.key, maxAge: -1, now: 0) {
                return cached.version >= row.version ? cached : row
            }
            return try self.row(for: row.objectID, maxAge: 0, at: nil, by: context)
        }
    }

    /// Records the snapshots a save produced and forgets deleted rows.
    func cacheSavedRows(_ rows: [StoreRow], deleted: [NSManagedObjectID]) {
        performAndWait {
            cacheGeneration.add(1, ordering: .relaxed)
            rowCache.remove(deleted)
            cache(rows)
        }
    }

    /// How many snapshots are alive in the row cache.
    var cachedRowCount: Int { performAndWait { rowCache.liveCount } }

    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription, at generation: QueryGeneration?,
        by context: NSManagedObjectContext
    ) throws -> [NSManagedObjectID] {
        guard let store = objectID.persistentStore else { return [] }
        return try performReading(store, at: generation) {
            try reading(store, at: generation, by: context) {
                try $0.relatedObjectIDs(of: objectID, relationship: relationship)
            } ?? []
        }
    }

    /// Whether every store can serve query generations (see
    /// `NSManagedObjectContext.setQueryGenerationFrom(_:)`).
    func supportsQueryGenerations() throws -> Bool {
        try performAndWait {
            try persistentStores.allSatisfy { try $0.backend?.supportsSnapshots() ?? true }
        }
    }

    func permanentIDs(for entities: [NSEntityDescription]) throws -> [NSManagedObjectID] {
        try performAndWait {
            guard let store = persistentStores.first, let backend = store.backend else {
                throw CoreDataError.make(NSCoreDataError, "This NSPersistentStoreCoordinator has no persistent stores.")
            }
            let keys = try backend.reservePrimaryKeys(for: entities)
            return zip(entities, keys).map { NSManagedObjectID(entity: $0, store: store, primaryKey: $1) }
        }
    }

    /// Drops cached rows of these objects: the store changed them behind the contexts'
    /// back (batch requests), so the next fault must read the store.
    func forgetCachedRows(for objectIDs: [NSManagedObjectID]) {
        performAndWait {
            cacheGeneration.add(1, ordering: .relaxed)
            rowCache.remove(objectIDs)
        }
    }

    /// Drops every cached row of these entities, when a batch request's rows are not known one by one.
    func forgetCachedRows(of entities: [NSEntityDescription]) {
        performAndWait {
            cacheGeneration.add(1, ordering: .relaxed)
            rowCache.remove(entities: entities)
        }
    }

    /// Runs a context's save request on `store` (see ``PersistentStoreBackend/save(_:)``).
    func save(_ request: StoreSaveRequest, to store: NSPersistentStore) throws -> StoreSaveOutcome {
        try performAndWait { try writableBackend(of: store).save(request) }
    }

    /// Reserves keys for a save's new objects of these entities in `store`, in a
    /// transaction of its own: a save that then fails leaves them unused, as Core Data does.
    func reservePrimaryKeys(in store: NSPersistentStore, for entities: [NSEntityDescription]) throws -> [Int64] {
        try performAndWait { try writableBackend(of: store).reservePrimaryKeys(for: entities) }
    }

    private func writableBackend(of store: NSPersistentStore) throws -> any PersistentStoreBackend {
        guard !store.isReadOnly else {
            throw store.readOnlyError
        }
        guard let backend = store.backend else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The store was removed from its coordinator")
        }
        return backend
    }
}
