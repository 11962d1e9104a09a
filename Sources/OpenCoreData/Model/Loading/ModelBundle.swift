/// Every version of a model in an Xcode `.xcdatamodeld` bundle, and which is current.
///
/// Core Data compiles a bundle into a `.momd` and loads its current version;
/// migration and tools need the others too, so OpenCoreData loads them all here.
/// Versions are named as Xcode shows them: the `.xcdatamodel` folder name without
/// its extension (`"Model 2"`).
public struct ManagedObjectModelBundle: @unchecked Sendable {
    /// The `.xcdatamodeld` folder.
    public let url: URL
    /// The version `.xccurrentversion` names (see ``NSManagedObjectModel/versions(in:)`` when it is missing).
    public let currentVersionName: String
    /// Every version's name, in Xcode's order (numbers compared as numbers: "Model 10" after "Model 2").
    public let versionNames: [String]
    /// Every version's model, by name.
    public let modelsByVersionName: [String: NSManagedObjectModel]
    /// The current version's model.
    public let currentModel: NSManagedObjectModel
}

/// Finds the `contents` files of a model bundle and the current version.
enum ModelBundleLayout {
    static let currentVersionFile = ".xccurrentversion"
    static let currentVersionKey = "_XCCurrentVersionName"

    /// The bundle's `.xcdatamodel` folders by version name, in Xcode's order.
    static func versions(in bundle: URL) throws -> [(name: String, url: URL)] {
        let source = ModelFileSource(url: bundle)
        let children: [URL]
        do {
            children = try FileManager.default.contentsOfDirectory(at: bundle, includingPropertiesForKeys: nil)
        } catch {
            throw ModelLoadingError(source: source, line: nil, element: nil, reason: "cannot be read (\(error.localizedDescription))")
        }
        let versions = children.filter { $0.pathExtension == "xcdatamodel" }
            .map { (name: $0.deletingPathExtension().lastPathComponent, url: $0) }
            .sorted { $0.name.compare($1.name, options: .numeric) == .orderedAscending }
        guard !versions.isEmpty else {
            throw ModelLoadingError(source: source, line: nil, element: nil, reason: "holds no .xcdatamodel version")
        }
        return versions
    }

    /// The current version's name: `.xccurrentversion`'s `_XCCurrentVersionName`, or,
    /// without that file, the only version or the last one in Xcode's order.
    static func currentVersionName(in bundle: URL, versions: [(name: String, url: URL)]) throws -> String {
        let file = bundle.appendingPathComponent(currentVersionFile)
        let source = ModelFileSource(url: file)
        guard FileManager.default.fileExists(atPath: file.path) else {
            return versions.last?.name ?? ""
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: file), options: [], format: nil)
        } catch {
            throw ModelLoadingError(source: source, line: nil, element: nil, reason: "is not a readable property list (\(error.localizedDescription))")
        }
        guard let value = (plist as? [String: Any])?[currentVersionKey] as? String, !value.isEmpty else {
            throw ModelLoadingError(source: source, line: nil, element: nil, reason: "has no \(currentVersionKey) string")
        }
        let name = value.hasSuffix(".xcdatamodel") ? String(value.dropLast(".xcdatamodel".count)) : value
        guard versions.contains(where: { $0.name == name }) else {
            throw ModelLoadingError(source: source, line: nil, element: nil,
                                    reason: "names current version '\(value)', which the bundle does not have (versions: \(versions.map(\.name).joined(separator: ", ")))")
        }
        return name
    }

    /// The XML file to read for `url`: a bundle's current version, a version folder's
    /// `contents`, or the file itself.
    static func contentsFile(for url: URL) throws -> URL {
        let source = ModelFileSource(url: url)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelLoadingError(source: source, line: nil, element: nil, reason: "does not exist")
        }
        guard isDirectory.boolValue else { return url }
        switch url.pathExtension {
        case "xcdatamodeld":
            let versions = try versions(in: url)
            let current = try currentVersionName(in: url, versions: versions)
            return try contentsFile(for: versions.first { $0.name == current }?.url ?? url.appendingPathComponent(current + ".xcdatamodel"))
        case "momd", "mom":
            throw ModelLoadingError(source: source, line: nil, element: nil, reason: "is a compiled model; this loader reads Xcode's .xcdatamodeld and .xcdatamodel")
        default:
            let contents = url.appendingPathComponent("contents")
            guard FileManager.default.fileExists(atPath: contents.path) else {
                throw ModelLoadingError(source: source, line: nil, element: nil, reason: "is a folder without a model 'contents' file")
            }
            return contents
        }
    }
}
