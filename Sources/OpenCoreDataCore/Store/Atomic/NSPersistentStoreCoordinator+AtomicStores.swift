/// Store types named by class: the Binary store and the ``NSAtomicStore`` and
/// ``NSIncrementalStore`` subclasses apps register, as Core Data finds a store type's
/// class by its name.
extension NSPersistentStoreCoordinator {
    /// Makes `storeClass` the class of stores of type `storeType`, so
    /// `addPersistentStore(ofType: storeType, …)` creates one; `nil` unregisters the type.
    ///
    /// `storeClass` is an ``NSIncrementalStore`` or ``NSAtomicStore`` subclass (adding a
    /// store of a type whose class is neither throws).
    ///
    /// - Parameters:
    ///   - storeClass: An `NSIncrementalStore` or `NSAtomicStore` subclass, or `nil`.
    ///   - storeType: The type's name.
    public class func registerStoreClass(_ storeClass: AnyClass?, type storeType: String) {
        StoreClassRegistry.shared.register(storeClass, for: storeType)
    }

    /// Every store type a coordinator can add, with its class: the built-in types (SQLite
    /// and in-memory stores are `NSPersistentStore`s here) and the registered ones.
    ///
    /// Core Data wraps each class in an `NSValue`; Foundation on Linux cannot, so the
    /// values are the classes themselves.
    public class var registeredStoreTypes: [String: AnyClass] {
        var types: [String: AnyClass] = [
            NSSQLiteStoreType: NSPersistentStore.self,
            NSInMemoryStoreType: NSPersistentStore.self,
            NSBinaryStoreType: BinaryStore.self,
        ]
        for (type, storeClass) in StoreClassRegistry.shared.all { types[type] = storeClass }
        return types
    }

    /// The atomic store class of `storeType`: the Binary store's or a registered one;
    /// `nil` for the SQLite and in-memory types and for unknown names. Throws for a type
    /// registered with a class that is not an ``NSAtomicStore``.
    static func atomicStoreClass(forType storeType: String) throws -> NSAtomicStore.Type? {
        if let registered = StoreClassRegistry.shared.storeClass(for: storeType) {
            guard let atomic = registered as? NSAtomicStore.Type else {
                throw CoreDataError.make(
                    NSPersistentStoreInvalidTypeError,
                    "The class \(registered) registered for store type '\(storeType)' is neither an NSIncrementalStore nor an NSAtomicStore subclass"
                )
            }
            return atomic
        }
        return storeType == NSBinaryStoreType ? BinaryStore.self : nil
    }

    /// Opens a store of an atomic type (call under the coordinator's lock): a new store of
    /// `storeClass` that loads its file, or, with `source`, a copy of that store's rows
    /// written to a new file (a store migrated to this type).
    func openAtomicStore(
        _ storeClass: NSAtomicStore.Type, type storeType: String, configuration: String?, at url: URL?,
        options: [AnyHashable: Any]?,
        entities: [NSEntityDescription], copying source: (any PersistentStoreBackend)?
    ) throws -> NSPersistentStore {
        let location = url ?? URL(fileURLWithPath: "/dev/null")
        let fileExists = FileManager.default.fileExists(atPath: location.path)
        if source != nil, !StoreLocation.isDevNull(location), fileExists {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "Can't copy a store to \(location.path): a file is already there",
                [NSFilePathErrorKey: location.path])
        }
        if source == nil, NSPersistentStore.isSet(options?[NSReadOnlyPersistentStoreOption]),
            !StoreLocation.isDevNull(location), !fileExists
        {
            throw CoreDataError.make(
                CocoaError.Code.fileReadNoSuchFile.rawValue,
                "There is no \(storeType) store at \(location.path) to open read-only",
                [NSFilePathErrorKey: location.path])
        }
        if source == nil, storeClass == BinaryStore.self, fileExists, !StoreLocation.isDevNull(location) {
            try BinaryStoreMigration.migrateBeforeOpening(
                storeAt: location, to: managedObjectModel, configuration: configuration, options: options)
        }
        let store = storeClass.init(
            persistentStoreCoordinator: self, configurationName: configuration, at: location, options: options)
        if store.type != storeType { store.type = storeType }
        try store.open(model: managedObjectModel, entities: entities, copying: source, metadata: source?.metadata)
        return store
    }

    /// The store whose rows a copy of `store` starts from: its own engine's store, or for
    /// an atomic store the in-memory database holding its rows, given its metadata first
    /// (as an SQLite store's, so a copy to an SQLite file records that type).
    static func copyableBackend(of store: NSPersistentStore) throws -> (any PersistentStoreBackend)? {
        guard let atomic = store as? NSAtomicStore else { return store.backend }
        guard let database = atomic.database else { return nil }
        var metadata = atomic.metadata ?? [:]
        metadata[NSStoreTypeKey] = NSSQLiteStoreType
        database.setMetadata(metadata)
        try database.saveMetadata()
        return database
    }

    /// Reads the metadata of a store file of an atomic type through its class.
    static func atomicStoreMetadata(ofType storeType: String, at url: URL) throws -> [String: Any]? {
        guard let storeClass = try atomicStoreClass(forType: storeType) else { return nil }
        return try storeClass.metadataForPersistentStore(with: url)
    }

    /// Destroys a store of an atomic type: removes it from this coordinator when added,
    /// then its file (a missing file is no error; `/dev/null` throws, and a file that is
    /// not a Binary store is left alone when the type is Binary).
    func destroyAtomicStore(at url: URL, ofType storeType: String) throws {
        guard let storeClass = try Self.atomicStoreClass(forType: storeType) else { return }
        if StoreLocation.isDevNull(url) {
            throw CoreDataError.make(
                NSPersistentStoreOperationError,
                "A store at /dev/null lives in memory: there is no store file to destroy (remove the store from its coordinator instead)",
                [NSFilePathErrorKey: url.path])
        }
        if let store = persistentStore(for: url) { try remove(store) }
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        // A Binary file is checked; an app's class reads its own files only if it overrides
        // metadataForPersistentStore(with:), which Core Data does not require.
        if storeClass == BinaryStore.self { _ = try storeClass.metadataForPersistentStore(with: url) }
        try FileManager.default.removeItem(at: url)
    }

    /// Replaces the file of a store of an atomic type with a copy of another (atomically,
    /// through a temporary file); for the Binary type, `source` must be a Binary store.
    static func replaceAtomicStoreFile(ofType storeType: String, at destination: URL, from source: URL) throws {
        guard let storeClass = try atomicStoreClass(forType: storeType) else { return }
        if storeClass == BinaryStore.self { _ = try storeClass.metadataForPersistentStore(with: source) }
        guard !StoreLocation.isDevNull(destination) else { return }
        try BinaryStoreFile.write(try Data(contentsOf: source), to: destination)
    }
}

/// The store classes registered by type name, shared by every coordinator.
final class StoreClassRegistry: @unchecked Sendable {
    static let shared = StoreClassRegistry()
    private var classes: [String: AnyClass] = [:]
    private let lock = NSLock()

    func register(_ storeClass: AnyClass?, for type: String) {
        lock.withLock { classes[type] = storeClass }
    }

    func storeClass(for type: String) -> AnyClass? { lock.withLock { classes[type] } }

    var all: [String: AnyClass] { lock.withLock { classes } }
}
