/// Finds the model a store was made with, for migrating it to the model opening it.
///
/// As Core Data does, by version hashes: the store's metadata records each entity's
/// hash, and the source model is the version whose entities hash the same. The versions
/// looked at are those of the bundle the destination model was loaded from, then every
/// model among the app's bundles, then the model Core Data cached in the store itself.
package enum SourceModelSearch {
    /// A source model and where it was found, for the debug log.
    package struct Found {
        package let model: NSManagedObjectModel
        package let origin: String
    }

    /// The model whose entities (of `configuration`) have exactly the hashes `metadata`
    /// records, if any; `cachedModel` is asked last.
    package static func sourceModel(
        for metadata: [String: Any], destination: NSManagedObjectModel, configuration: String?,
        cachedModel: () -> NSManagedObjectModel?
    ) -> Found? {
        let fits = { (model: NSManagedObjectModel) in
            model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata)
        }
        if let bundle = destination.bundleURL, let versions = try? NSManagedObjectModel.versions(in: bundle) {
            for name in versions.versionNames.reversed() {
                guard let model = versions.modelsByVersionName[name], fits(model) else { continue }
                return Found(model: model, origin: "(version \(name) of \(bundle.lastPathComponent))")
            }
        }
        if let model = NSManagedObjectModel.mergedModel(
            from: ModelResourceSearch.searchedBundles(), forStoreMetadata: metadata), fits(model)
        {
            return Found(model: model, origin: "(among the app's models)")
        }
        if let model = cachedModel(), fits(model) {
            return Found(model: model, origin: "(the model cached in the store's Z_MODELCACHE)")
        }
        return nil
    }

    /// Whether the options ask for automatic migration with an inferred mapping.
    package static func infersMigration(_ options: [AnyHashable: Any]?) -> Bool {
        NSPersistentStore.isSet(options?[NSMigratePersistentStoresAutomaticallyOption])
            && NSPersistentStore.isSet(options?[NSInferMappingModelAutomaticallyOption])
    }
}
