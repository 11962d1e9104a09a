import Foundation
import OpenCoreDataCore

/// The model Core Data caches in a store's `Z_MODELCACHE`: the compiled model's archive,
/// compressed with raw DEFLATE (older stores keep the archive itself). Every SQL engine
/// stores and reads it alike.
package enum SQLModelCache {
    /// What `Z_MODELCACHE` holds for `model`; `nil` when the model cannot be archived
    /// (the store then caches none, which Core Data tolerates).
    package static func content(of model: NSManagedObjectModel) -> Data? {
        do {
            return try RawDeflate.deflate(model.compiledModelData())
        } catch {
            StoreDebugLog.annotate("the store caches no model in Z_MODELCACHE: \(error)")
            return nil
        }
    }

    /// The model in a `Z_MODELCACHE` value; `nil` for an empty one. `source` names the
    /// store in errors.
    package static func model(from content: Data, source: ModelFileSource) throws -> NSManagedObjectModel? {
        guard !content.isEmpty else { return nil }
        let archive: Data
        if content.starts(with: Data("bplist".utf8)) {
            archive = content
        } else {
            do {
                archive = try RawDeflate.inflate(content)
            } catch {
                throw ModelLoadingError(
                    source: source, line: nil, element: nil, reason: "holds no readable model (\(error))")
            }
        }
        let model = NSManagedObjectModel()
        try CompiledModelDecoder(source: source).decode(archive, into: model)
        return model
    }
}
