/// Every version of a model in an Xcode `.xcdatamodeld` bundle or a compiled `.momd`,
/// and which is current.
///
/// Core Data compiles a bundle into a `.momd` and loads its current version;
/// migration and tools need the others too, so OpenCoreData loads them all here.
/// Versions are named as Xcode shows them: the `.xcdatamodel` folder (or `.mom` file)
/// name without its extension (`"Model 2"`).
public struct ManagedObjectModelBundle: @unchecked Sendable {
    /// The `.xcdatamodeld` or `.momd` folder.
    public let url: URL
    /// The version `.xccurrentversion` (or a `.momd`'s `VersionInfo.plist`) names (see ``/OpenCoreDataModelFiles/OpenCoreDataModel/NSManagedObjectModel/versions(in:)`` when it is missing).
    public let currentVersionName: String
    /// Every version's name, in Xcode's order (numbers compared as numbers: "Model 10" after "Model 2").
    public let versionNames: [String]
    /// Every version's model, by name.
    public let modelsByVersionName: [String: NSManagedObjectModel]
    /// The current version's model.
    public let currentModel: NSManagedObjectModel
}

/// One model version's file, in the form it is stored.
package enum ModelFile {
    /// Xcode's XML (`.xcdatamodel/contents`).
    case contents(URL)
    /// A keyed archive of the model: a compiled model (`.mom`), or an Xcode 3 folder's
    /// `elements`.
    case compiled(URL)

    package func load(into model: NSManagedObjectModel) throws {
        switch self {
        case let .contents(url):
            try ModelFileLoader(contentsFile: url).load(into: model)
        case let .compiled(url):
            let source = ModelFileSource(url: url)
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw ModelLoadingError(
                    source: source, line: nil, element: nil, reason: "cannot be read (\(error.localizedDescription))")
            }
            try CompiledModelDecoder(source: source).decode(data, into: model)
        }
    }
}

/// Finds the versions of a model bundle (`.xcdatamodeld` or `.momd`) and the current one.
package enum ModelBundleLayout {
    package static let currentVersionFile = ".xccurrentversion"
    package static let currentVersionKey = "_XCCurrentVersionName"
    /// A compiled bundle's counterpart of `.xccurrentversion`.
    package static let compiledVersionFile = "VersionInfo.plist"
    package static let compiledCurrentVersionKey = "NSManagedObjectModel_CurrentVersionName"
    /// The archive an Xcode 3 `.xcdatamodel` folder holds in place of `contents`.
    package static let xcode3ElementsFile = "elements"

    /// The bundle's versions (`.xcdatamodel` folders, or `.mom` files in a `.momd`) by
    /// name, in Xcode's order.
    package static func versions(in bundle: URL) throws -> [(name: String, url: URL)] {
        let source = ModelFileSource(url: bundle)
        let children: [URL]
        do {
            children = try FileManager.default.contentsOfDirectory(at: bundle, includingPropertiesForKeys: nil)
        } catch {
            throw ModelLoadingError(
                source: source, line: nil, element: nil, reason: "cannot be read (\(error.localizedDescription))")
        }
        let versionExtension = bundle.pathExtension == "momd" ? "mom" : "xcdatamodel"
        let versions = children.filter { $0.pathExtension == versionExtension }
            .map { (name: $0.deletingPathExtension().lastPathComponent, url: $0) }
            .sorted { $0.name.compare($1.name, options: .numeric) == .orderedAscending }
        guard !versions.isEmpty else {
            throw ModelLoadingError(
                source: source, line: nil, element: nil, reason: "holds no .\(versionExtension) version")
        }
        return versions
    }

    /// The current version's name: `.xccurrentversion`'s `_XCCurrentVersionName` (a
    /// `.momd`'s `VersionInfo.plist`'s `NSManagedObjectModel_CurrentVersionName`), or,
    /// without that file, the only version or the last one in Xcode's order.
    package static func currentVersionName(in bundle: URL, versions: [(name: String, url: URL)]) throws -> String {
        let compiled = bundle.pathExtension == "momd"
        let currentVersionKey = compiled ? compiledCurrentVersionKey : currentVersionKey
        let file = bundle.appendingPathComponent(compiled ? compiledVersionFile : currentVersionFile)
        let source = ModelFileSource(url: file)
        guard FileManager.default.fileExists(atPath: file.path) else {
            return versions.last?.name ?? ""
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: file), options: [], format: nil)
        } catch {
            throw ModelLoadingError(
                source: source, line: nil, element: nil,
                reason: "is not a readable property list (\(error.localizedDescription))")
        }
        guard let value = (plist as? [String: Any])?[currentVersionKey] as? String, !value.isEmpty else {
            throw ModelLoadingError(
                source: source, line: nil, element: nil, reason: "has no \(currentVersionKey) string")
        }
        let suffix = compiled ? ".mom" : ".xcdatamodel"
        let name = value.hasSuffix(suffix) ? String(value.dropLast(suffix.count)) : value
        guard versions.contains(where: { $0.name == name }) else {
            throw ModelLoadingError(
                source: source, line: nil, element: nil,
                reason:
                    "names current version '\(value)', which the bundle does not have (versions: \(versions.map(\.name).joined(separator: ", ")))"
            )
        }
        return name
    }

    /// The file to read for `url`: a bundle's current version, a version folder's
    /// `contents` (or, for an Xcode 3 folder, `elements`), a `.mom`, or the file itself.
    package static func modelFile(for url: URL) throws -> ModelFile {
        let source = ModelFileSource(url: url)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelLoadingError(source: source, line: nil, element: nil, reason: "does not exist")
        }
        guard isDirectory.boolValue else {
            let isArchive = url.pathExtension == "mom" || url.lastPathComponent == xcode3ElementsFile
            return isArchive ? .compiled(url) : .contents(url)
        }
        switch url.pathExtension {
        case "xcdatamodeld", "momd":
            let versions = try versions(in: url)
            let current = try currentVersionName(in: url, versions: versions)
            guard let version = versions.first(where: { $0.name == current }) else {
                throw ModelLoadingError(
                    source: source, line: nil, element: nil, reason: "has no version named '\(current)'")
            }
            return try modelFile(for: version.url)
        default:
            let contents = url.appendingPathComponent("contents")
            if FileManager.default.fileExists(atPath: contents.path) { return .contents(contents) }
            // Xcode 3 kept the model as a keyed archive of its editor's subclasses of
            // Core Data's classes, which the compiled-model reader takes through them.
            let elements = url.appendingPathComponent(xcode3ElementsFile)
            if FileManager.default.fileExists(atPath: elements.path) { return .compiled(elements) }
            throw ModelLoadingError(
                source: source, line: nil, element: nil,
                reason:
                    "is a folder without a model: neither a 'contents' file (Xcode 4 and later) nor an 'elements' archive (Xcode 3)"
            )
        }
    }
}
