import OpenCoreData
import OpenCoreDataCore

/// `cdtool compile`: compiles Xcode's model sources into the files Xcode puts in an app,
/// so code that loads `Model.momd` (or `Model.mom`) from its bundle finds them.
///
/// A `.xcdatamodeld` becomes `Name.momd` (a `Version.mom` for each `.xcdatamodel` version
/// and `VersionInfo.plist`), a lone `.xcdatamodel` becomes `Name.mom`, in Core Data's
/// compiled format. The `OpenCoreDataModelCompiler` build plugin runs this at build time.
public enum ModelCompilation {
    /// Compiles the model at `model` into `directory` (created when missing) and returns
    /// the `.momd` folder or `.mom` file written.
    ///
    /// Throws a ``CDToolError`` naming the path when the model is missing, is not a source
    /// model, does not load, or cannot be archived, or when `directory` is a file.
    public static func compile(modelAt model: URL, into directory: URL) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: model.path, isDirectory: &isDirectory) else {
            throw CDToolError("no model at \(model.path)")
        }
        switch model.pathExtension {
        case "xcdatamodeld", "xcdatamodel":
            guard isDirectory.boolValue else {
                throw CDToolError("\(model.path) is a file, but a .\(model.pathExtension) model is a folder")
            }
        case "momd", "mom":
            throw CDToolError(
                "\(model.path) is compiled already: compile takes a .xcdatamodeld bundle or a .xcdatamodel folder")
        default:
            throw CDToolError(
                "\(model.path) is not a model source: compile takes a .xcdatamodeld bundle or a .xcdatamodel folder")
        }
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw CDToolError("the output \(directory.path) is a file, not a directory")
        }
        do {
            return try CompiledModelWriter.compile(model, into: directory)
        } catch let error as CompiledModelEncodingError {
            throw CDToolError("cannot compile \(model.path): \(error.description)")
        } catch {
            // The loader's errors name the file, line and element already.
            throw CDToolError(wrapping: error)
        }
    }
}
