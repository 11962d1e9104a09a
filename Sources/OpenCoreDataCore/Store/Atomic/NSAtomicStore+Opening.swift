extension NSAtomicStore {
    /// Whether the store lives in memory only (at `/dev/null`, Core Data's idiom for a
    /// throwaway store): it reads no file and writes none.
    var isInMemory: Bool { url.map(StoreLocation.isDevNull) ?? true }

    /// Opens the store for its coordinator: the in-memory database, then the subclass's
    /// ``load()`` when the file exists, the version check, and the loaded nodes written
    /// to the database. With `source`, the store starts as a copy of that store's rows
    /// instead (a store migrated to this type) and its file is written at once.
    ///
    /// - Parameters:
    ///   - model: The coordinator's model.
    ///   - entities: The entities of the store's configuration.
    ///   - source: A store whose rows to copy, or `nil` to load the file.
    ///   - metadata: For a copy, the metadata to start from (the source's, say).
    func open(
        model: NSManagedObjectModel, entities: [NSEntityDescription],
        copying source: (any PersistentStoreBackend)? = nil,
        metadata copiedMetadata: [String: Any]? = nil
    ) throws {
        let configuration = configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : configurationName
        storeEntities = entities
        let inner = try AtomicStoreBackend.openDatabase(
            model: model, entities: entities, configuration: configuration, copying: source)
        let backend = AtomicStoreBackend(
            store: self, inner: inner, model: model, entities: entities, configuration: configuration)
        do {
            if source != nil {
                let nodes = try AtomicStoreRows.nodes(from: inner, entities: entities, store: self)
                lock.withLock { for node in nodes { nodesByID[node.objectID] = node } }
                var values = copiedMetadata ?? [:]
                // The copy keeps the source's UUID, so the objects' URIs stay valid.
                if values[NSStoreUUIDKey] == nil { values[NSStoreUUIDKey] = identifier }
                values[NSStoreTypeKey] = type
                for (key, value) in StoreVersionMetadata.entries(model: model, entities: entities) {
                    values[key] = value
                }
                lock.withLock { isLoading = true }
                setAtomicMetadata(values)
                lock.withLock { isLoading = false }
                self.backend = backend
                try writeFile()
                writtenMetadataVersion = metadataVersion
                return
            }
            lock.withLock { isLoading = true }
            defer { lock.withLock { isLoading = false } }
            if !isInMemory, let url, FileManager.default.fileExists(atPath: url.path) {
                try load()
            }
            try adoptLoadedMetadata(model: model, entities: entities, configuration: configuration)
            let loaded = lock.withLock { () -> [NSAtomicStoreCacheNode] in
                defer { loadedNodes = [] }
                return loadedNodes
            }
            let request = try lock.withLock {
                try AtomicStoreRows.insertRequest(for: loaded, registered: nodesByID, store: self)
            }
            try backend.insert(request)
            self.backend = backend
            writtenMetadataVersion = metadataVersion
        } catch {
            inner.close()
            throw error
        }
    }

    /// Completes the metadata a load set (type, UUID, the model's version hashes when
    /// the file recorded none) and refuses a file written with another model, unless
    /// `NSIgnorePersistentStoreVersioningOption`.
    private func adoptLoadedMetadata(
        model: NSManagedObjectModel, entities: [NSEntityDescription], configuration: String?
    ) throws {
        var values = metadata ?? [:]
        if values[NSStoreModelVersionHashesKey] != nil,
            !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: values),
            !NSPersistentStore.isSet(options?[NSIgnorePersistentStoreVersioningOption])
        {
            throw CoreDataError.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The model used to open the store is incompatible with the one used to create the store (\(type) store at \(url?.path ?? "?"))",
                [NSFilePathErrorKey: url?.path ?? "", "metadata": values]
            )
        }
        if values[NSStoreModelVersionHashesKey] == nil {
            for (key, value) in StoreVersionMetadata.entries(model: model, entities: entities) { values[key] = value }
        }
        if values[NSStoreUUIDKey] == nil { values[NSStoreUUIDKey] = identifier }
        if values[NSStoreTypeKey] == nil { values[NSStoreTypeKey] = type }
        setAtomicMetadata(values)
    }

    /// Writes the nodes the subclass registered outside ``load()`` to the database.
    func writeAddedNodes(_ nodes: [NSAtomicStoreCacheNode]) throws {
        guard let backend = backend as? AtomicStoreBackend else { return }
        try backend.insert(AtomicStoreRows.insertRequest(for: nodes, registered: nodesByID, store: self))
    }

    /// Runs the subclass's ``save()``, unless the store lives in memory.
    func writeFile() throws {
        guard !isInMemory else { return }
        try save()
    }

    /// The in-memory database holding the store's rows, for copying the store elsewhere.
    var database: (any PersistentStoreBackend)? { (backend as? AtomicStoreBackend)?.inner }
}

/// The metadata entries naming the model a store was written with, as Core Data records
/// them; every store type writes the same ones.
package enum StoreVersionMetadata {
    package static func entries(model: NSManagedObjectModel, entities: [NSEntityDescription]) -> [String: Any] {
        var hashes: [String: Data] = [:]
        for entity in entities { if let name = entity.name { hashes[name] = entity.versionHash } }
        let identifiers = model.versionIdentifiers.compactMap { $0.base as? String }
        return [
            NSStoreModelVersionHashesKey: hashes,
            "NSStoreModelVersionHashesVersion": 3,
            NSStoreModelVersionIdentifiersKey: identifiers.isEmpty ? [""] : identifiers.sorted(),
            "NSStoreModelVersionChecksumKey": VersionHasher.checksum(of: hashes),
            "NSStoreModelVersionHashesDigest": VersionHasher.digest(of: hashes),
        ]
    }
}
