import OpenCoreData

/// `cdtool model --upgrade`: gives Xcode 3 model folders, which hold only the `elements`
/// archive (and the diagram's `layout`), the `contents` XML of today's format beside them.
///
/// The XML is written only when it reads back with the archive's entity version hashes
/// (``ModelContentsWriter`` checks), so a store made with the old model opens with it.
public enum ModelUpgrade {
    /// Upgrades the `.xcdatamodel` folder at `url`, or every version of the
    /// `.xcdatamodeld` bundle at `url` that needs it, and returns one line per folder.
    ///
    /// - Throws: A ``CDToolError`` when `url` is not a model folder or bundle, a version
    ///   does not load, or its `contents` cannot be written faithfully.
    public static func upgrade(at url: URL) throws -> [String] {
        switch url.pathExtension {
        case "xcdatamodel":
            return [try upgradeFolder(url)]
        case "xcdatamodeld":
            let versions: [(name: String, url: URL)]
            do {
                versions = try ModelBundleLayout.versions(in: url)
            } catch {
                throw CDToolError(wrapping: error)
            }
            guard !versions.isEmpty else { throw CDToolError("\(url.lastPathComponent) holds no .xcdatamodel version") }
            return try versions.map { try upgradeFolder($0.url) }
        default:
            throw CDToolError(
                "--upgrade takes a .xcdatamodel folder or .xcdatamodeld bundle, not \(url.lastPathComponent)")
        }
    }

    private static func upgradeFolder(_ folder: URL) throws -> String {
        let name = folder.lastPathComponent
        let contents = folder.appendingPathComponent("contents")
        if FileManager.default.fileExists(atPath: contents.path) {
            return "\(name): already has 'contents' (today's format); left as it is"
        }
        let elements = folder.appendingPathComponent(ModelBundleLayout.xcode3ElementsFile)
        guard FileManager.default.fileExists(atPath: elements.path) else {
            throw CDToolError("\(name) has neither 'contents' nor an Xcode 3 'elements' archive")
        }
        let model = try ModelFile.load(at: elements)
        let text: String
        do {
            text = try ModelContentsWriter.contents(of: model)
        } catch {
            throw CDToolError("\(name)/contents not written: \(CDToolError(wrapping: error))")
        }
        do {
            try Data(text.utf8).write(to: contents, options: .withoutOverwriting)
        } catch {
            throw CDToolError("cannot write \(name)/contents: \(error.localizedDescription)")
        }
        return
            "\(name): wrote 'contents' (\(model.entities.count) entities, version hashes unchanged); 'elements' and 'layout' left in place"
    }
}
