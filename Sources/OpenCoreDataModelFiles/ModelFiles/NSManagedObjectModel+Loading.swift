// Loading Xcode's model files (`.xcdatamodeld` bundles, `.xcdatamodel` folders and their
// `contents` XML) and compiled ones (`.momd` bundles, `.mom` files), so an app's real
// model works without rebuilding it in code.
extension NSManagedObjectModel {
    /// Loads the model at `url`, or returns `nil` when it cannot be loaded, as Core Data does.
    ///
    /// `url` is a `.xcdatamodeld` or `.momd` bundle (its current version is loaded), a
    /// `.xcdatamodel` folder (Xcode 3's, holding an `elements` archive, too), a model's
    /// `contents` file, or a compiled `.mom` file. Use ``load(contentsOf:)`` to
    /// learn what is wrong with a model that does not load.
    ///
    /// - Parameter url: The model file or bundle.
    public convenience init?(contentsOf url: URL) {
        self.init()
        do {
            try ModelBundleLayout.modelFile(for: url).load(into: self)
        } catch {
            return nil
        }
        bundleURL = Self.versionBundle(of: url)
    }

    /// Loads the model at `url` (as ``init(contentsOf:)`` does), throwing a
    /// ``ModelLoadingError`` that names the file, line and element at fault.
    ///
    /// - Parameter url: The model file or bundle.
    /// - Returns: The model.
    /// - Throws: A ``ModelLoadingError`` saying what did not load and where.
    public static func load(contentsOf url: URL) throws -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        try ModelBundleLayout.modelFile(for: url).load(into: model)
        model.bundleURL = versionBundle(of: url)
        return model
    }

    /// The versioned bundle (`.xcdatamodeld`, `.momd`) `url` is or lies in, where
    /// migration looks for the model an older store was made with.
    package static func versionBundle(of url: URL) -> URL? {
        let bundles = ["xcdatamodeld", "momd"]
        if bundles.contains(url.pathExtension) { return url }
        var parent = url.deletingLastPathComponent()
        if ["contents", ModelBundleLayout.xcode3ElementsFile].contains(url.lastPathComponent) {
            parent = parent.deletingLastPathComponent()
        }
        return bundles.contains(parent.pathExtension) ? parent : nil
    }

    /// Loads every version of the `.xcdatamodeld` (or compiled `.momd`) bundle at `url`.
    ///
    /// The current version is the one `.xccurrentversion` names; without that file it
    /// is the only version, or the last by name with numbers compared as numbers
    /// ("Model 10" after "Model 2"), which is the newest when versions are named as
    /// Xcode suggests. Any version that does not load throws.
    ///
    /// - Parameter url: A `.xcdatamodeld` or `.momd` bundle.
    /// - Returns: Every version, and which one is current.
    /// - Throws: A ``ModelLoadingError`` when the bundle, its current version or any version
    ///   does not load.
    public static func versions(in url: URL) throws -> ManagedObjectModelBundle {
        let versions = try ModelBundleLayout.versions(in: url)
        let current = try ModelBundleLayout.currentVersionName(in: url, versions: versions)
        var models: [String: NSManagedObjectModel] = [:]
        for version in versions {
            models[version.name] = try load(contentsOf: version.url)
        }
        guard let currentModel = models[current] else {
            throw ModelLoadingError(
                source: ModelFileSource(url: url), line: nil, element: nil, reason: "has no version named '\(current)'")
        }
        return ManagedObjectModelBundle(
            url: url, currentVersionName: current, versionNames: versions.map(\.name),
            modelsByVersionName: models, currentModel: currentModel)
    }
}
