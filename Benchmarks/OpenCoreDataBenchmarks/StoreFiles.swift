// Store files on disk: each contender's store starts as a copy of one template.
import OpenCoreData

/// Copies and removes SQLite store files (the database and its WAL companions).
enum StoreFiles {
    /// Deletes the store at `url` and its WAL files, if any.
    static func remove(_ url: URL) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    /// Replaces `destination` with a copy of the closed store at `source`.
    static func copy(_ source: URL, to destination: URL) throws {
        remove(destination)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: destination.path + suffix)
        }
    }
}
