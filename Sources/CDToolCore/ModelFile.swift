import OpenCoreData

/// Loads the model files `cdtool` is given (`cdtool model <path>`, `--model <path>`).
///
/// The only place the tool turns a path into a model, so the loader it calls is wired in
/// one spot.
public enum ModelFile {
    /// The model in a `.xcdatamodeld` bundle (its current version) or a `.xcdatamodel`.
    ///
    /// Throws a ``CDToolError`` naming the path when it is missing or cannot be read.
    public static func load(at url: URL) throws -> NSManagedObjectModel {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CDToolError("no model at \(url.path)")
        }
        do {
            return try NSManagedObjectModel.load(contentsOf: url)
        } catch {
            // The loader's errors name the file, line and element already.
            throw CDToolError(wrapping: error)
        }
    }
}
