/// The Binary store (`NSBinaryStoreType`): an ``NSAtomicStore`` keeping the whole object
/// graph in one file of OpenCoreData's format (``BinaryStoreFile``), replaced atomically
/// by each save.
///
/// Objects are named in the file by their keys, which are their reference objects, so
/// their URIs are the same on every launch.
final class BinaryStore: NSAtomicStore, @unchecked Sendable {
    /// The coordinator's model as a compiled model, cached in every file written (empty
    /// when the model cannot be archived); made once, as the model never changes.
    private lazy var modelArchive: Data =
        (try? persistentStoreCoordinator?.managedObjectModel.compiledModelData()) ?? Data()

    /// An object ID of this store from its URI: while it loads, the store is not yet among
    /// the coordinator's stores, which ``NSPersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` searches.
    private func ownObjectID(_ uri: URL, model: NSManagedObjectModel) -> NSManagedObjectID? {
        guard let parts = NSPersistentStoreCoordinator.objectURIParts(uri),
            parts.store == metadata[NSStoreUUIDKey] as? String,
            let entity = model.entitiesByName[parts.entity]
        else { return nil }
        return objectID(for: entity, referenceObject: parts.key)
    }

    override func load() throws {
        guard let url, let model = persistentStoreCoordinator?.managedObjectModel else { return }
        let contents = try BinaryStoreFile.read(at: url, model: model)
        metadata = contents.metadata
        let ignoresVersions = NSPersistentStore.isSet(options?[NSIgnorePersistentStoreVersioningOption])
        let configuration = configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : configurationName
        if !ignoresVersions, contents.metadata[NSStoreModelVersionHashesKey] != nil,
            !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: contents.metadata)
        {
            throw CoreDataError.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The model used to open the store is incompatible with the one used to create the store (Binary store at \(url.path))",
                [NSFilePathErrorKey: url.path, "metadata": contents.metadata]
            )
        }
        let entities = Dictionary(
            storeEntities.compactMap { entity in entity.name.map { ($0, entity) } },
            uniquingKeysWith: { first, _ in first })
        var nodes: [String: [Int64: NSAtomicStoreCacheNode]] = [:]
        var made: [(node: NSAtomicStoreCacheNode, record: BinaryStoreFile.Record)] = []
        made.reserveCapacity(contents.records.count)
        for record in contents.records {
            guard let entity = entities[record.entityName] else {
                if ignoresVersions { continue }
                throw CoreDataError.make(
                    NSPersistentStoreIncompatibleVersionHashError,
                    "The Binary store at \(url.path) holds objects of entity '\(record.entityName)', which the model's configuration lacks",
                    [NSFilePathErrorKey: url.path])
            }
            let node = NSAtomicStoreCacheNode(objectID: objectID(for: entity, referenceObject: record.key))
            let cache = NSMutableDictionary()
            for (name, value) in record.attributes {
                guard let attribute = entity.attributesByName[name] else { continue }
                if attribute.attributeType == .objectIDAttributeType {
                    guard let uri = value as? URL else { continue }
                    // Never dropped: the next save would rewrite the file without it.
                    guard
                        let id = ownObjectID(uri, model: model)
                            ?? persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri)
                    else {
                        throw CoreDataError.make(
                            NSPersistentStoreInvalidTypeError,
                            "The Binary store at \(url.path) holds the object ID \(uri.absoluteString) in attribute '\(name)', of no store added to the coordinator; add that store first",
                            [NSFilePathErrorKey: url.path])
                    }
                    cache[name] = id
                    continue
                }
                cache[name] = value
            }
            node.propertyCache = cache
            nodes[record.entityName, default: [:]][record.key] = node
            made.append((node, record))
        }
        for (node, record) in made {
            let entity = node.objectID.entity
            for (name, targets) in record.relationships {
                guard let relationship = entity.relationshipsByName[name] else { continue }
                let members = targets.compactMap { nodes[$0.entity]?[$0.key] }
                if relationship.isToMany {
                    node.propertyCache?[name] =
                        relationship.isOrdered ? NSOrderedSet(array: members) as Any : Set(members) as Any
                } else if let destination = members.first {
                    node.propertyCache?[name] = destination
                }
            }
        }
        addCacheNodes(Set(made.map(\.node)))
    }

    override func save() throws {
        guard let url else { return }
        let data = try BinaryStoreFile.encode(
            metadata: metadata ?? [:], model: modelArchive, nodes: Array(cacheNodes()), entities: storeEntities)
        try BinaryStoreFile.write(data, to: url)
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        try BinaryStoreFile.metadata(at: url)
    }
}
