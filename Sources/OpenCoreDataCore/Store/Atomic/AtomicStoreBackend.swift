/// What an ``NSAtomicStore`` is to its coordinator: reads go to an in-memory database
/// (the SQLite engine's, at no file) holding the nodes' values, so fetching, predicates,
/// sorting, counting and faulting are the engine's; a save writes that database, then
/// runs the subclass's node callbacks and its `save()`.
///
/// A save is all or nothing: the database is copied before it is written, and when a
/// callback or the subclass's `save()` throws, the copy takes its place and the nodes are
/// put back, so the store shows nothing of the failed save.
final class AtomicStoreBackend: SubclassStoreBackend {
    /// The database answering reads; replaced by its copy when a save fails.
    private(set) var inner: any PersistentStoreBackend
    /// The atomic store owns this backend, and uses it only under its coordinator's lock.
    unowned let store: NSAtomicStore
    var subclassStore: NSPersistentStore { store }
    let model: NSManagedObjectModel
    let entities: [NSEntityDescription]
    let configuration: String?

    init(
        store: NSAtomicStore, inner: any PersistentStoreBackend, model: NSManagedObjectModel,
        entities: [NSEntityDescription], configuration: String?
    ) {
        self.store = store
        self.inner = inner
        self.model = model
        self.entities = entities
        self.configuration = configuration
        inner.serve(as: store)
    }

    /// An empty in-memory database for `entities` of `model`, or a copy of `source`.
    static func openDatabase(
        model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?,
        copying source: (any PersistentStoreBackend)?
    ) throws -> any PersistentStoreBackend {
        let opened = try StoreEngines.sqlite().openInMemoryStore(
            model: model, entities: entities, configuration: configuration, options: nil,
            type: NSInMemoryStoreType, copying: source)
        guard let backend = opened.backend else {
            throw CoreDataError.make(
                NSPersistentStoreOpenError, "The in-memory database of an atomic store did not open")
        }
        return backend
    }

    /// Writes `request` (rows made from nodes) to the database, outside any context's save.
    func insert(_ request: StoreSaveRequest) throws {
        _ = try inner.save(request)
    }

    // MARK: Metadata: the store's own, written by its subclass

    var metadata: [String: Any] { store.metadata ?? [:] }

    func setMetadata(_ metadata: [String: Any]) { store.setAtomicMetadata(metadata) }

    func saveMetadata() throws {
        guard store.metadataVersion != store.writtenMetadataVersion else { return }
        let version = store.metadataVersion
        try store.writeFile()
        store.writtenMetadataVersion = max(store.writtenMetadataVersion, version)
    }

    // MARK: Reads: the database's

    func fetch(_ fetch: StoreFetch) throws -> [StoreRow] { try inner.fetch(fetch) }
    func fetchObjectIDs(_ fetch: StoreFetch) throws -> StoreObjectList { try inner.fetchObjectIDs(fetch) }
    func count(_ fetch: StoreFetch) throws -> Int { try inner.count(fetch) }
    func fetchDictionaries(_ fetch: StoreDictionaryFetch) throws -> [NSDictionary] {
        try inner.fetchDictionaries(fetch)
    }
    func row(for objectID: NSManagedObjectID) throws -> StoreRow? { try inner.row(for: objectID) }
    func rows(for objectIDs: [NSManagedObjectID]) throws -> [StoreRow] { try inner.rows(for: objectIDs) }
    func relatedRows(
        of sources: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [(source: Int64, row: StoreRow)] {
        try inner.relatedRows(of: sources, relationship: relationship)
    }
    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] {
        try inner.relatedObjectIDs(of: objectID, relationship: relationship)
    }

    // MARK: Writes

    func reservePrimaryKeys(for entities: [NSEntityDescription]) throws -> [Int64] {
        try entities.map { try store.references.nextKey(for: $0) }
    }

    func save(_ request: StoreSaveRequest) throws -> StoreSaveOutcome {
        let backup = try Self.openDatabase(
            model: model, entities: entities, configuration: configuration, copying: inner)
        // The database checks and applies the request; the cache nodes and the file follow.
        let outcome: StoreSaveOutcome
        do {
            outcome = try inner.save(request)
        } catch {
            backup.close()
            throw error
        }
        guard case .saved = outcome else {
            backup.close()
            return outcome
        }
        var saving: AtomicStoreSaving?
        do {
            saving = try store.applyToCacheNodes(request)
            let version = store.metadataVersion
            try store.writeFile()
            store.writtenMetadataVersion = max(store.writtenMetadataVersion, version)
        } catch {
            if let saving { store.restoreCacheNodes(after: saving) }
            inner.close()
            inner = backup
            backup.serve(as: store)
            // The subclass's own error, as Core Data reports it.
            throw error
        }
        backup.close()
        return outcome
    }

    func close() { inner.close() }
}
