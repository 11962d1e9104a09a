import Foundation

/// The folder of the files this test process makes (stores, copies of fixtures, model files,
/// example homes), removed when the process exits, so test runs do not pile up in the
/// temporary directory.
///
/// Named by a UUID, not the process id: a temporary directory shared between containers sees
/// the same ids in several runs at once. Readable by all, as the temporary directory is: some
/// tests run examples as `nobody`.
public let testFilesFolder: URL = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "OpenCoreDataTests-run-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(
        at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    atexit { try? FileManager.default.removeItem(at: testFilesFolder) }
    return folder
}()
