/// Opening stores of registered ``NSIncrementalStore`` subclasses.
extension NSPersistentStoreCoordinator {
    /// The incremental store class registered for `storeType`, if that is what it is.
    static func incrementalStoreClass(forType storeType: String) -> NSIncrementalStore.Type? {
        StoreClassRegistry.shared.storeClass(for: storeType) as? NSIncrementalStore.Type
    }

    /// Opens a store of an incremental type (call under the coordinator's lock): a new
    /// store of `storeClass` whose ``NSIncrementalStore/loadMetadata()`` must name the
    /// store (`NSStoreTypeKey`, `NSStoreUUIDKey`); version hashes it records are checked
    /// against the model, as for any store.
    func openIncrementalStore(
        _ storeClass: NSIncrementalStore.Type, type storeType: String, configuration: String?, at url: URL?,
        options: [AnyHashable: Any]?
    ) throws -> NSPersistentStore {
        let location = url ?? URL(fileURLWithPath: "/dev/null")
        let store = storeClass.init(
            persistentStoreCoordinator: self, configurationName: configuration, at: location, options: options)
        store.type = storeType
        try store.loadMetadata()
        let metadata = store.metadata ?? [:]
        guard let uuid = metadata[NSStoreUUIDKey] as? String, !uuid.isEmpty, metadata[NSStoreTypeKey] is String else {
            throw CoreDataError.make(
                NSPersistentStoreOpenError,
                "\(storeClass).loadMetadata() must set the store's metadata with NSStoreTypeKey and NSStoreUUIDKey",
                [NSAffectedStoresErrorKey: [store]])
        }
        // The UUID is the host of the objects' URIs.
        guard URL(string: "x-coredata://\(uuid)/")?.host == uuid else {
            throw CoreDataError.make(
                NSPersistentStoreOpenError,
                "\(storeClass).loadMetadata() set NSStoreUUIDKey to '\(uuid)', which can't name the store in object URIs: use a UUID string",
                [NSAffectedStoresErrorKey: [store]])
        }
        if metadata[NSStoreModelVersionHashesKey] != nil,
            !NSPersistentStore.isSet(options?[NSIgnorePersistentStoreVersioningOption]),
            !managedObjectModel.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata)
        {
            throw CoreDataError.make(
                NSPersistentStoreIncompatibleVersionHashError,
                "The model is not the one the \(storeType) store at \(location.absoluteString) was made with (its NSStoreModelVersionHashes differ)",
                [NSAffectedStoresErrorKey: [store]])
        }
        store.backend = IncrementalStoreBackend(store: store)
        return store
    }

    /// Throws for an incremental store type: where its data lives is its subclass's
    /// business, so the coordinator can't destroy or replace it.
    static func refuseIncrementalStoreFiles(of storeType: String, _ operation: String) throws {
        guard let storeClass = incrementalStoreClass(forType: storeType) else { return }
        throw CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError,
            "Can't \(operation) a store of the incremental store type '\(storeType)': \(storeClass) keeps its data where it chooses"
        )
    }
}
