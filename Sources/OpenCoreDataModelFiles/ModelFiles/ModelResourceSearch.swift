/// Finds model files among a bundle's resources, as Core Data looks for compiled models
/// in an app's bundle.
///
/// Off Apple platforms nothing compiles `.xcdatamodeld` into `.momd`, so a package that
/// copies its model as a resource ships the source form; both are found. A compiled
/// bundle wins over a source bundle of the same name (they are the same model).
package enum ModelResourceSearch {
    /// Model files at the top level of `bundle`'s resources, one per model name, by name.
    package static func modelURLs(in bundle: Bundle) -> [URL] {
        var byName: [String: URL] = [:]
        // In order of preference: the first found for a name is kept.
        for pathExtension in ["momd", "mom", "xcdatamodeld", "xcdatamodel"] {
            for found in bundle.urls(forResourcesWithExtension: pathExtension, subdirectory: nil) ?? [] {
                let url = found as URL
                let name = url.deletingPathExtension().lastPathComponent
                if byName[name] == nil { byName[name] = url }
            }
        }
        return byName.keys.sorted().compactMap { byName[$0] }
    }

    /// The model file named `name` in the app's bundles: the main bundle, the bundles
    /// loaded in the process, and SwiftPM's resource bundles beside the executable
    /// (`<Package>_<Target>.resources`), which Linux does not load on its own.
    package static func modelURL(named name: String) -> URL? {
        for bundle in searchedBundles() {
            if let url = modelURLs(in: bundle).first(where: { $0.deletingPathExtension().lastPathComponent == name }) {
                return url
            }
        }
        return nil
    }

    /// Every model version in `bundles`, by version name: each version of a versioned
    /// model (`Model 2` in `Model.xcdatamodeld`), and each unversioned model by its name.
    /// Files that do not load are skipped.
    package static func allVersions(in bundles: [Bundle]) -> [(name: String, model: NSManagedObjectModel)] {
        var found: [(name: String, model: NSManagedObjectModel)] = []
        for bundle in bundles {
            for url in modelURLs(in: bundle) {
                if ["momd", "xcdatamodeld"].contains(url.pathExtension) {
                    guard let versions = try? NSManagedObjectModel.versions(in: url) else { continue }
                    found += versions.versionNames.compactMap { name in
                        versions.modelsByVersionName[name].map { (name, $0) }
                    }
                } else if let model = NSManagedObjectModel(contentsOf: url) {
                    found.append((url.deletingPathExtension().lastPathComponent, model))
                }
            }
        }
        return found
    }

    /// The model version named `name` in `bundles` (see ``allVersions(in:)``).
    package static func version(named name: String, in bundles: [Bundle]) -> NSManagedObjectModel? {
        allVersions(in: bundles).first { $0.name == name }?.model
    }

    package static func searchedBundles() -> [Bundle] {
        var bundles = [Bundle.main] + Bundle.allBundles
        let executableFolder = Bundle.main.executableURL?.deletingLastPathComponent() ?? Bundle.main.bundleURL
        let siblings =
            (try? FileManager.default.contentsOfDirectory(at: executableFolder, includingPropertiesForKeys: nil)) ?? []
        for folder in siblings.sorted(by: { $0.path < $1.path })
        where folder.pathExtension == "resources" || folder.pathExtension == "bundle" {
            if let bundle = Bundle(url: folder) { bundles.append(bundle) }
        }
        var seen = Set<String>()
        return bundles.filter { seen.insert($0.bundleURL.standardizedFileURL.path).inserted }
    }
}

extension NSManagedObjectModel {
    /// The model made of every model found in `bundles` (the main bundle when `nil`), or
    /// `nil` when one of them does not load or two define the same entity.
    ///
    /// Compiled models (`.momd`, `.mom`) and Xcode's source models (`.xcdatamodeld`,
    /// `.xcdatamodel`) are all found; of a versioned model, the current version is used.
    ///
    /// - Parameter bundles: The bundles to search, or `nil` for the main bundle.
    /// - Returns: The merged model, or `nil`.
    public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        var models: [NSManagedObjectModel] = []
        for bundle in bundles ?? [Bundle.main] {
            for url in ModelResourceSearch.modelURLs(in: bundle) {
                guard let model = NSManagedObjectModel(contentsOf: url) else { return nil }
                models.append(model)
            }
        }
        return NSManagedObjectModel(byMerging: models)
    }

    /// The model of `bundles` that can open a store with `metadata`: of each versioned
    /// model, the version whose entity hashes the metadata records; `nil` when no
    /// combination is compatible (see ``/OpenCoreDataModel/NSManagedObjectModel/isConfiguration(withName:compatibleWithStoreMetadata:)``).
    ///
    /// - Parameters:
    ///   - bundles: The bundles to search, or `nil` for the main bundle.
    ///   - metadata: A store's metadata.
    /// - Returns: The model that opens the store, or `nil`.
    public class func mergedModel(
        from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]
    ) -> NSManagedObjectModel? {
        let stored = (metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.compactMapValues { $0 as? Data } ?? [:]
        var chosen: [NSManagedObjectModel] = []
        for bundle in bundles ?? [Bundle.main] {
            for url in ModelResourceSearch.modelURLs(in: bundle) {
                let candidates: [NSManagedObjectModel]
                if ["momd", "xcdatamodeld"].contains(url.pathExtension) {
                    guard let versions = try? versions(in: url) else { return nil }
                    candidates = versions.versionNames.compactMap { versions.modelsByVersionName[$0] }.reversed()
                } else {
                    guard let model = NSManagedObjectModel(contentsOf: url) else { return nil }
                    candidates = [model]
                }
                let matching = candidates.first { model in
                    model.entityVersionHashesByName.allSatisfy { stored[$0.key] == $0.value }
                }
                guard let matching else { return nil }
                chosen.append(matching)
            }
        }
        guard let model = NSManagedObjectModel(byMerging: chosen),
            model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
        else { return nil }
        return model
    }
}
