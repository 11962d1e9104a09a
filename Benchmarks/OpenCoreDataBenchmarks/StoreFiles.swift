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

    /// Makes an empty store of `model` at `url`, then fills `entity` with `rows` rows in one
    /// SQL transaction: `insert` is the INSERT … SELECT over `n(i)`, i = 1…rows, given the
    /// entity's number; the key counter is set to match.
    static func fillInSQL(
        _ url: URL, model: NSManagedObjectModel, entity name: String, rows: Int, insert: (Int64) -> String
    ) throws {
        remove(url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.remove(
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url))
        let connection = try RawConnection(path: url.path)
        defer { connection.close() }
        let entity = try connection.entityNumber(name)
        try connection.execute(
            """
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            \(insert(entity));
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(rows) WHERE Z_ENT = \(entity);
            COMMIT;
            """)
    }
}
