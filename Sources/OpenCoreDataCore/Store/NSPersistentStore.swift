internal import Synchronization
/// The store type name of SQLite stores.
public let NSSQLiteStoreType = "SQLite"
/// The store type name of in-memory stores.
public let NSInMemoryStoreType = "InMemory"
/// The store type name of binary stores: the whole object graph in one file, written
/// atomically on each save (an ``NSAtomicStore``; the file format is OpenCoreData's own).
public let NSBinaryStoreType = "Binary"

/// Metadata key: the store's type.
public let NSStoreTypeKey = "NSStoreType"
/// Metadata key: the store's UUID (also the host of its object-ID URIs).
public let NSStoreUUIDKey = "NSStoreUUID"
/// Option key: open the store read-only.
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
/// Option key: open the store even when its model version hashes differ from the model's.
///
/// For reading a store with a model that describes it without being the one that made
/// it, such as `NSManagedObjectModel.inferred(fromStoreAt:)`'s; pair it with
/// `NSReadOnlyPersistentStoreOption`, since saving through a mismatched model can
/// write what the store's own model would not.
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"
/// Option key: SQLite pragmas to set (a dictionary of pragma name → value).
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Option key: how many requests a store may serve at once (an `NSNumber`): for an SQLite
/// file, the connections its reads may use together, its main connection included (default
/// 4; 1 makes reads take turns on the main connection, and smaller values count as 1).
public let NSPersistentStoreConnectionPoolMaxSizeKey = "NSPersistentStoreConnectionPoolMaxSizeKey"
/// Option key: migrate the store automatically when the model changed.
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Option key: infer the mapping model for automatic migration.
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"

/// One store of a coordinator: an SQLite file, an in-memory store, or an atomic store
/// (``NSAtomicStore``: a Binary file or a custom format).
open class NSPersistentStore: NSObject, @unchecked Sendable {
    /// A store type, as the Swift API names them.
    public struct StoreType: Hashable, Sendable, RawRepresentable {
        /// The store type name.
        public let rawValue: String
        /// A store type from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// An SQLite file in Core Data's schema.
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        /// A store that lives in memory only.
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        /// The binary store: the whole object graph in one file, written atomically on each save.
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
    }

    /// The store's type name (`NSSQLiteStoreType`, `NSInMemoryStoreType`, `NSBinaryStoreType`,
    /// or the name an atomic store class was registered under).
    open internal(set) var type: String
    /// Where the store lives (`/dev/null` for in-memory stores, as Core Data reports).
    open var url: URL?
    /// The store's UUID string; the host of its object-ID URIs.
    ///
    /// An atomic store takes the UUID its file records when it loads.
    open var identifier: String! {
        get { storeIdentifier }
        set { if let newValue { storeIdentifier = newValue } }
    }
    /// The configuration the store holds.
    open private(set) var configurationName: String
    /// The options the store was added with.
    open private(set) var options: [AnyHashable: Any]?
    /// Whether saves are refused.
    open var isReadOnly: Bool
    /// Why the store refuses saves when it was made read-only by what it found on opening
    /// rather than by its options.
    package var readOnlyReason: String?

    /// The error a save or batch request on a read-only store fails with.
    var readOnlyError: NSError {
        CoreDataError.make(
            NSPersistentStoreSaveError,
            "The store at \(url?.path ?? "?") is read-only" + (readOnlyReason.map { ": \($0)" } ?? ""),
            [NSAffectedStoresErrorKey: [self]])
    }
    /// The coordinator that owns the store.
    open internal(set) weak var persistentStoreCoordinator: NSPersistentStoreCoordinator?

    /// The store's metadata, including `NSStoreUUID` and `NSStoreType`.
    ///
    /// As in Core Data, a new value is kept in memory and written to the file with the
    /// next save; a value that is not a property list makes that save throw.
    open var metadata: [String: Any]! {
        get { backend?.metadata ?? [:] }
        set { backend?.setMetadata(newValue ?? [:]) }
    }

    package var backend: (any PersistentStoreBackend)?

    /// Whether store options ask for persistent history (`NSPersistentHistoryTrackingKey`):
    /// `true`, or a dictionary of tracking settings (which Core Data also accepts).
    package static func tracksHistory(_ options: [AnyHashable: Any]?) -> Bool {
        let value = options?[NSPersistentHistoryTrackingKey]
        return value is [AnyHashable: Any] || value is NSDictionary || isSet(value)
    }

    /// Whether an option's value means yes: `true`, a nonzero number, or "YES".
    package static func isSet(_ option: Any?) -> Bool {
        switch option {
        case let flag as Bool: flag
        case let number as NSNumber: number.boolValue
        case let text as String: ["YES", "TRUE", "1"].contains(text.uppercased())
        default: false
        }
    }
    /// Whether the store is an ``NSIncrementalStore``: contexts send it their requests and
    /// tell it which objects they use. Stored, not a type check, for the registry's hot path;
    /// set once, as the store is made, so read without a dynamic exclusivity check.
    @exclusivity(unchecked) package final var isIncremental = false

    /// The last part of an object's URI (`x-coredata://UUID/Entity/` and this): `p` and the row's key.
    func uriObjectComponent(forKey key: Int64, entity: NSEntityDescription) -> String { "p\(key)" }

    /// The ID of this store a URI's last part names (``uriObjectComponent(forKey:entity:)``), if any.
    func objectID(forURIObjectComponent component: String, entity: NSEntityDescription) -> NSManagedObjectID? {
        guard component.hasPrefix("p"), let key = Int64(component.dropFirst()) else { return nil }
        return NSManagedObjectID(entity: entity, store: self, primaryKey: key)
    }

    private var storeIdentifier: String
    /// A number no other store of this process has, for compact object-ID keys (``ObjectKey``).
    let number: UInt32 = NSPersistentStore.numbers.add(1, ordering: .relaxed).newValue
    private static let numbers = Atomic<UInt32>(0)

    package init(type: String, url: URL?, configurationName: String?, options: [AnyHashable: Any]?, identifier: String)
    {
        self.type = type
        self.url = url
        self.configurationName = configurationName ?? "PF_DEFAULT_CONFIGURATION_NAME"
        self.options = options
        self.isReadOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false
        self.storeIdentifier = identifier
        super.init()
    }

    /// Reads a store's metadata without adding it to a coordinator.
    ///
    /// - Parameter url: The store file.
    /// - Returns: The metadata: the store's UUID, type and entity version hashes among them.
    /// - Throws: An `NSError` when the file is missing or not a store.
    open class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        try StoreEngines.sqlite().metadata(ofStoreAt: url)
    }

    open override var description: String {
        "<\(Swift.type(of: self)): \(type) \(url?.path ?? "")>"
    }
}
