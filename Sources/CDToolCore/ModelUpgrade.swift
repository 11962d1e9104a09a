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
        let folders: [URL]
        switch url.pathExtension {
        case "xcdatamodel":
            folders = [url]
        case "xcdatamodeld":
            do {
                folders = try ModelBundleLayout.versions(in: url).map(\.url)
            } catch {
                throw CDToolError(wrapping: error)
            }
        default:
            throw CDToolError(
                "--upgrade takes a .xcdatamodel folder or .xcdatamodeld bundle, not \(url.lastPathComponent)")
        }
        // Every version is read and written to text before any file is made, so a version
        // that cannot be upgraded leaves the whole bundle as it was.
        let plans = try folders.map(plan)
        return try plans.map { plan in
            guard let text = plan.text else { return plan.report }
            try write(text, to: plan.folder.appendingPathComponent("contents"))
            return plan.report
        }
    }

    /// What upgrading one folder means: the XML to write (`nil` when there is nothing to
    /// do) and the line that reports it.
    private static func plan(_ folder: URL) throws -> (folder: URL, text: String?, report: String) {
        let name = folder.lastPathComponent
        let contents = folder.appendingPathComponent("contents")
        if FileManager.default.fileExists(atPath: contents.path) {
            // A `contents` is what every reader prefers; one that does not load (a partial
            // write) would hide the archive, so it is reported rather than passed over.
            _ = try ModelFile.load(at: contents)
            return (folder, nil, "\(name): already has 'contents' (today's format); left as it is")
        }
        let elements = folder.appendingPathComponent(ModelBundleLayout.xcode3ElementsFile)
        guard FileManager.default.fileExists(atPath: elements.path) else {
            throw CDToolError("\(name) has neither 'contents' nor an Xcode 3 'elements' archive")
        }
        let model = try ModelFile.load(at: elements)
        do {
            let text = try ModelContentsWriter.contents(of: model)
            return (
                folder, text,
                "\(name): wrote 'contents' (\(model.entities.count) entities, version hashes unchanged); 'elements' and 'layout' left in place"
            )
        } catch {
            throw CDToolError("\(name)/contents not written: \(CDToolError(wrapping: error))")
        }
    }

    /// Writes `text` at `url` whole or not at all, never over an existing file: into a
    /// temporary file beside it, then linked into place (which fails if `url` exists).
    private static func write(_ text: String, to url: URL) throws {
        let name = "\(url.deletingLastPathComponent().lastPathComponent)/\(url.lastPathComponent)"
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".contents-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        do {
            try Data(text.utf8).write(to: temporary)
            try FileManager.default.linkItem(at: temporary, to: url)
        } catch {
            throw CDToolError("cannot write \(name): \(error.localizedDescription)")
        }
    }
}
