// libFuzzer entry point for model files: any bytes, read as a model's `contents` XML and
// as a compiled `.mom` (a keyed archive), must give a model or a ModelLoadingError —
// never a crash, another kind of error, or a hang (libFuzzer's -timeout); a model that
// loads is written back as `contents` XML or refused by name, never a crash.
// Built and run by Fuzz/run-model-fuzz.sh.
import Foundation
import OpenCoreDataModelFiles

/// The loader reads files (its errors name them), so each input is written to one of these.
private let files: [URL] = {
    let shared = URL(fileURLWithPath: "/dev/shm")
    let base = FileManager.default.fileExists(atPath: shared.path) ? shared : FileManager.default.temporaryDirectory
    let folder = base.appendingPathComponent("opencoredata-model-fuzz-\(getpid())")
    let model = folder.appendingPathComponent("Fuzz.xcdatamodel")
    try! FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
    return [model.appendingPathComponent("contents"), folder.appendingPathComponent("Fuzz.mom")]
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func modelLoaderFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    for file in files {
        try! data.write(to: file)
        let model: NSManagedObjectModel
        do {
            model = try NSManagedObjectModel.load(contentsOf: file)
        } catch is ModelLoadingError {
            continue
        } catch {
            fatalError("loading threw \(type(of: error)), not a ModelLoadingError: \(error)")
        }
        // A model that loads must also be safe to check, hash and compare.
        _ = model.problemsPreventingUse
        _ = model.entityVersionHashesByName
        _ = model.isEqual(model)
        // And to write as `contents` (what `cdtool model --upgrade` does): the writer checks
        // that its XML reads back with the same hashes, or refuses by name.
        do {
            _ = try ModelContentsWriter.contents(of: model)
        } catch is CompiledModelEncodingError {
        } catch {
            fatalError("writing contents threw \(type(of: error)): \(error)")
        }
    }
    return 0
}
