/// How to open one store: type, location, options. `NSPersistentContainer` opens one per description.
open class NSPersistentStoreDescription: NSObject, @unchecked Sendable {
    /// The store type; `NSSQLiteStoreType` by default.
    open var type: String = NSSQLiteStoreType
    /// The configuration of the model the store holds.
    open var configuration: String?
    /// Where the store lives.
    open var url: URL?
    /// Extra options passed to the coordinator.
    open private(set) var options: [String: NSObject] = [:]
    /// Whether to open read-only.
    open var isReadOnly = false
    /// How long to wait for a locked database, in seconds.
    open var timeout: TimeInterval = 240
    /// SQLite pragmas to apply when opening.
    open private(set) var sqlitePragmas: [String: NSObject] = [:]
    /// Whether `loadPersistentStores` adds this store on a background queue.
    open var shouldAddStoreAsynchronously = false
    /// Whether to migrate automatically when the model changed.
    open var shouldMigrateStoreAutomatically = true
    /// Whether to infer the mapping model for automatic migration.
    open var shouldInferMappingModelAutomatically = true

    /// Creates a description for a store at `url`.
    public init(url: URL) {
        self.url = url
        super.init()
    }

    /// Creates an empty description.
    public override init() { super.init() }

    /// Sets an option.
    ///
    /// - Parameters:
    ///   - option: The value, such as `true as NSNumber`; `nil` removes the option.
    ///   - key: An option key, such as ``NSPersistentHistoryTrackingKey``.
    open func setOption(_ option: NSObject?, forKey key: String) { options[key] = option }

    /// Sets an SQLite pragma.
    ///
    /// - Parameters:
    ///   - value: The pragma's value; `nil` removes it.
    ///   - name: The pragma's name, such as `journal_mode`.
    open func setValue(_ value: NSObject?, forPragmaNamed name: String) { sqlitePragmas[name] = value }

    /// The options the coordinator sees, with the typed properties folded in.
    var effectiveOptions: [AnyHashable: Any] {
        var result: [AnyHashable: Any] = options
        result[NSReadOnlyPersistentStoreOption] = isReadOnly
        result[NSMigratePersistentStoresAutomaticallyOption] = shouldMigrateStoreAutomatically
        result[NSInferMappingModelAutomaticallyOption] = shouldInferMappingModelAutomatically
        if !sqlitePragmas.isEmpty { result[NSSQLitePragmasOption] = sqlitePragmas }
        return result
    }

    open override var description: String {
        "<NSPersistentStoreDescription: type \(type), url \(url?.path ?? "nil")>"
    }
}
