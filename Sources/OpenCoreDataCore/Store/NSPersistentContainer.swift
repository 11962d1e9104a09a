/// The whole stack in one object: model, coordinator, stores, and a main-queue context.
///
/// ```swift
/// let container = NSPersistentContainer(name: "Acquaintance", managedObjectModel: model)
/// container.loadPersistentStores { _, error in … }
/// let context = container.viewContext
/// ```
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    /// The container's name; the default store file is `<name>.sqlite`.
    public let name: String
    /// The model the container was made with (found by ``name`` among the bundles'
    /// resources, or given), which every store of the container uses.
    public let managedObjectModel: NSManagedObjectModel
    /// The coordinator the container made for its model, holding the stores
    /// ``loadPersistentStores(completionHandler:)`` adds; its contexts run on it.
    public let persistentStoreCoordinator: NSPersistentStoreCoordinator
    /// The stores to open in `loadPersistentStores`; one SQLite store by default.
    open var persistentStoreDescriptions: [NSPersistentStoreDescription]
    /// Why the model named at `init(name:)` did not load; `loadPersistentStores` reports it.
    private var missingModelMessage: String?

    /// The main-queue context for the user interface.
    open private(set) lazy var viewContext: NSManagedObjectContext = {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }()

    /// Creates a container whose model is the model file named `name` in the app's
    /// bundles (`<name>.momd`, `.mom`, `.xcdatamodeld` or `.xcdatamodel`; SwiftPM resource
    /// bundles included).
    ///
    /// When no such model loads, `loadPersistentStores` reports why (Core Data logs and
    /// fails the same way).
    ///
    /// - Parameter name: The model file's name without extension; also the default store's
    ///   name.
    public convenience init(name: String) {
        let (model, message) = Self.model(named: name)
        self.init(name: name, managedObjectModel: model)
        missingModelMessage = message
    }

    /// Creates a container with a model built in code or loaded by the caller.
    ///
    /// The designated initializer, as in Core Data, so subclasses that override it (or
    /// none) inherit ``init(name:)``. The default store is `<name>.sqlite` in the
    /// subclass's ``defaultDirectoryURL()``.
    ///
    /// - Parameters:
    ///   - name: The container's name, which names the default store file.
    ///   - model: The model of the container's stores.
    public init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.name = name
        self.managedObjectModel = model
        self.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite")
        self.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        super.init()
    }

    /// The model file named `name` in the app's bundles, or an empty model and why.
    private static func model(named name: String) -> (NSManagedObjectModel, String?) {
        guard let url = ModelResourceSearch.modelURL(named: name) else {
            return (
                NSManagedObjectModel(),
                "No model named '\(name)' was found in the app's bundles; create the container with init(name:managedObjectModel:)"
            )
        }
        do {
            return (try NSManagedObjectModel.load(contentsOf: url), nil)
        } catch {
            return (NSManagedObjectModel(), "The model named '\(name)' did not load: \(error)")
        }
    }

    /// Where stores live by default: the XDG data directory on Linux
    /// (`$XDG_DATA_HOME`, else `~/.local/share`), Application Support on Apple platforms.
    ///
    /// - Returns: The folder; override in a subclass to keep stores elsewhere.
    open class func defaultDirectoryURL() -> URL {
        #if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD)
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        #else
        return FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #endif
    }

    /// Opens every described store, calling `block` once per store with the outcome.
    ///
    /// Stores are added synchronously, so every call to `block` has happened when this returns.
    ///
    /// - Parameter block: Called with each description and `nil`, or with the error that kept
    ///   that store from opening (a missing model, an incompatible store, a failed migration).
    open func loadPersistentStores(completionHandler block: @escaping (NSPersistentStoreDescription, Error?) -> Void) {
        for description in persistentStoreDescriptions {
            if let missingModelMessage {
                block(description, CoreDataError.make(NSCoreDataError, missingModelMessage))
                continue
            }
            persistentStoreCoordinator.addPersistentStore(with: description, completionHandler: block)
        }
    }

    /// A new private-queue context on the container's coordinator.
    ///
    /// - Returns: A context of its own queue; use it inside its `perform` blocks.
    open func newBackgroundContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new private-queue context.
    ///
    /// - Parameter block: The work, given the new context; it runs on that context's queue.
    open func performBackgroundTask(_ block: @escaping (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` on a new private-queue context and returns its result.
    ///
    /// - Parameter block: The work, given the new context; it runs on that context's queue.
    /// - Returns: What `block` returns.
    /// - Throws: What `block` throws.
    open func performBackgroundTask<T, E: Error>(
        _ block: @escaping (NSManagedObjectContext) throws(E) -> T
    ) async throws(E) -> T {
        let context = newBackgroundContext()
        return try await context.perform { () throws(E) -> T in try block(context) }
    }
}
