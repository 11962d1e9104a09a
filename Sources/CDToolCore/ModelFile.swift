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
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CDToolError("no model at \(url.path)")
        }
        do {
            return try loadModelFile(at: url)
        } catch {
            throw CDToolError("can't load the model at \(url.path): \(CDToolError(wrapping: error).description)")
        }
    }

    /// The loader itself. Reading `.xcdatamodeld`/`.xcdatamodel` files comes with
    /// `NSManagedObjectModel.load(contentsOf:)`, which is not in OpenCoreData yet.
    static func loadModelFile(at url: URL) throws -> NSManagedObjectModel {
        throw CDToolError("reading model files needs NSManagedObjectModel.load(contentsOf:), which this build of OpenCoreData does not have yet")
    }
}
