// libFuzzer entry point for model files: any bytes, read as a model's `contents` XML and
// as a compiled `.mom` (a keyed archive), must give a model or a ModelLoadingError —
// never a crash, another kind of error, or a hang (libFuzzer's -timeout).
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
    }
    return 0
}
