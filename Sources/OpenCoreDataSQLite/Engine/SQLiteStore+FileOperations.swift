import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// What the coordinator's class-level file operations do to an SQLite store that is not
/// open: destroying it as Core Data does, and writing its metadata.
extension SQLiteStore {
    /// Empties the store at `url` as Core Data's `destroyPersistentStore` does: the file
    /// stays, truncated to an empty SQLite database (its `-wal` and `-shm` go with the
    /// connection that empties it), and the data kept in files beside it is deleted.
    ///
    /// Refuses anything that is not a Core Data store, so a wrong URL never costs a file:
    /// `/dev/null`, a folder, a file that is not SQLite, or an SQLite database with tables
    /// but without Core Data's metadata. A missing file, an empty file and a database
    /// without tables (what a destroy leaves) are no error, unless the folder is missing.
    static func truncateStore(at url: URL) throws {
        guard !StoreLocation.isDevNull(url) else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError,
                "A store at /dev/null lives in memory: there is no store file to destroy",
                [NSFilePathErrorKey: url.path])
        }
        try SQLiteStoreFile.checkKind(url, mayBeMissing: true)
        guard FileManager.default.fileExists(atPath: url.path) else {
            // Nothing to destroy; a folder that is not there either means a wrong URL,
            // which Core Data reports (it cannot open a database there).
            var isDirectory: ObjCBool = false
            let folder = url.deletingLastPathComponent().path
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw CoreDataError.make(
                    NSFileReadNoSuchFileError, "No store at \(url.path): its folder \(folder) does not exist",
                    [NSFilePathErrorKey: url.path])
            }
            return
        }
        let support = supportDirectory(for: url)
        // What a destroy leaves (an SQLite database without tables, or an empty file) is
        // destroyed already: destroying it again succeeds, as test suites do in every setUp.
        if (try? readFile(at: url) { db in try Int.fetchOne(db, SQLCatalogStatements.countSchemaEntries) }) == 0 {
            if FileManager.default.fileExists(atPath: support.path) { try FileManager.default.removeItem(at: support) }
            return
        }
        // Throws, naming the file, when it is not SQLite or holds no Core Data store.
        _ = try readFile(at: url) { db in try SQLiteStoreFile.metadata(in: db, url: url) }
        try SQLiteStoreFile.prepareForWriting(url)
        do {
            let database = try DatabaseQueue(path: url.path)
            defer { try? database.close() }
            // SQLite's own reset (SQLITE_DBCONFIG_RESET_DATABASE, then VACUUM): it takes the
            // write lock, so a store another connection is writing fails instead of breaking.
            try database.erase()
        } catch {
            throw wrap(error, url: url, opening: false)
        }
        if FileManager.default.fileExists(atPath: support.path) { try FileManager.default.removeItem(at: support) }
    }

    /// Replaces the metadata of the store at `url` (not open here) with `metadata`, keeping
    /// the store's UUID and type when `metadata` does not give them, as Core Data does.
    static func writeMetadata(_ metadata: [String: Any], toStoreAt url: URL) throws {
        guard !StoreLocation.isDevNull(url) else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError,
                "A store at /dev/null lives in memory: there is no store file to write metadata to",
                [NSFilePathErrorKey: url.path])
        }
        try SQLiteStoreFile.checkKind(url, mayBeMissing: false)
        let current = try readMetadata(at: url)
        var values = metadata
        // The UUID lives in its own column too; the property list's copy must match it.
        values[NSStoreUUIDKey] = current[NSStoreUUIDKey]
        if values[NSStoreTypeKey] == nil { values[NSStoreTypeKey] = current[NSStoreTypeKey] ?? NSSQLiteStoreType }
        let data: Data
        do {
            data = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
        } catch {
            throw CoreDataError.make(
                NSPersistentStoreOperationError,
                "The metadata can't be written: every value must be a property-list type (String, number, Date, Data, array, dictionary)",
                [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error as NSError])
        }
        try SQLiteStoreFile.prepareForWriting(url)
        do {
            let database = try DatabaseQueue(path: url.path)
            defer { try? database.close() }
            try database.write { db in try db.execute(SQLMetadataStatements.update(plist: data)) }
        } catch {
            throw wrap(error, url: url, opening: false)
        }
    }
}
