/// Compiles Xcode's model sources into the files Xcode puts in an app: a `.xcdatamodeld`
/// bundle into `Name.momd` (one `Version.mom` per `.xcdatamodel` version and a
/// `VersionInfo.plist` naming the current version and every version's entity hashes),
/// a lone `.xcdatamodel` into `Name.mom`. `cdtool compile` and the
/// `OpenCoreDataModelCompiler` build plugin run it.
package enum CompiledModelWriter {
    /// `VersionInfo.plist`'s key for the entity version hashes of each version.
    package static let versionHashesKey = "NSManagedObjectModel_VersionHashes"

    /// The name of what ``compile(_:into:)`` writes for `source`: `Name.momd` for a
    /// `.xcdatamodeld`, `Name.mom` for a `.xcdatamodel`.
    package static func outputName(for source: URL) -> String {
        let name = source.deletingPathExtension().lastPathComponent
        return source.pathExtension == "xcdatamodeld" ? "\(name).momd" : "\(name).mom"
    }

    /// Compiles the model at `source` into `directory` (created when missing) and returns
    /// the `.momd` folder or `.mom` file written. A `.momd` left by an earlier run is
    /// replaced, stale versions included.
    ///
    /// - Throws: A ``ModelLoadingError`` when a version does not load, a
    ///   ``CompiledModelEncodingError`` when one is invalid or cannot be archived, or the file system's
    ///   error when the output cannot be written.
    package static func compile(_ source: URL, into directory: URL) throws -> URL {
        let output = directory.appendingPathComponent(outputName(for: source))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch source.pathExtension {
        case "xcdatamodeld":
            let bundle = try NSManagedObjectModel.versions(in: source)
            var files: [String: Data] = [:]
            var hashes: [String: [String: Data]] = [:]
            for name in bundle.versionNames {
                guard let model = bundle.modelsByVersionName[name] else { continue }
                files["\(name).mom"] = try archive(model, version: "\(name).xcdatamodel")
                hashes[name] = model.entityVersionHashesByName
            }
            let info: [String: Any] = [
                ModelBundleLayout.compiledCurrentVersionKey: bundle.currentVersionName,
                versionHashesKey: hashes,
            ]
            files[ModelBundleLayout.compiledVersionFile] = try PropertyListSerialization.data(
                fromPropertyList: info, format: .binary, options: 0)
            try replaceFolder(at: output, with: files)
        case "xcdatamodel":
            let model = try NSManagedObjectModel.load(contentsOf: source)
            try archive(model, version: source.lastPathComponent).write(to: output, options: .atomic)
        default:
            throw ModelLoadingError(
                source: ModelFileSource(url: source), line: nil, element: nil,
                reason: "is not a model source (.xcdatamodeld or .xcdatamodel)")
        }
        return output
    }

    /// The archive of one version; an invalid model is refused, as Xcode's compiler refuses it.
    private static func archive(_ model: NSManagedObjectModel, version: String) throws -> Data {
        let problems = model.problemsPreventingUse
        guard problems.isEmpty else {
            throw CompiledModelEncodingError(
                element: version, reason: "is not a valid model: \(problems.joined(separator: "; "))")
        }
        do {
            return try model.compiledModelData()
        } catch let error as CompiledModelEncodingError {
            throw CompiledModelEncodingError(
                element: "\(version)\(error.element.map { ": \($0)" } ?? "")", reason: error.reason)
        }
    }

    /// Writes `files` into the folder at `url`, removing any other file an earlier
    /// compilation left there (a version since deleted).
    private static func replaceFolder(at url: URL, with files: [String: Data]) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            try manager.removeItem(at: url)
        }
        try manager.createDirectory(at: url, withIntermediateDirectories: true)
        // The models first and the plist naming the current one last, then the stale files:
        // a write that fails halfway never leaves the plist naming a model that is not there.
        for (name, data) in files.sorted(by: {
            ($0.key == "VersionInfo.plist" ? 1 : 0, $0.key) < ($1.key == "VersionInfo.plist" ? 1 : 0, $1.key)
        }) {
            try data.write(to: url.appendingPathComponent(name), options: .atomic)
        }
        for stale in try manager.contentsOfDirectory(atPath: url.path) where files[stale] == nil {
            try manager.removeItem(at: url.appendingPathComponent(stale))
        }
    }
}
