import OpenCoreDataCore
import OpenCoreDataSQL
// GRDB types appear in the package API tools use (cdtool opens store files read-only).
package import GRDB
internal import GRDBSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a store's path names and what SQLite may do there, checked before SQLite opens
/// it, and the read-only connections that need nothing written.
///
/// SQLite blocks forever opening a FIFO, and reports a directory or a folder it may not
/// write as "disk I/O error" or "attempt to write a readonly database"; these checks name
/// the file or folder instead. A store in WAL mode needs its `-shm` file even to be read,
/// so reading one from a folder nobody may write takes SQLite's `immutable` mode.
package enum SQLiteStoreFile {
    /// Throws unless `url` names a regular file (symbolic links followed) or, when
    /// `mayBeMissing`, nothing yet.
    static func checkKind(_ url: URL, mayBeMissing: Bool) throws {
        let path = url.path
        guard !path.isEmpty else {
            throw CoreDataError.make(
                NSFileReadInvalidFileNameError, "The store path is empty: it names no store file",
                [NSFilePathErrorKey: path])
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT {
                if mayBeMissing { return }
                throw CoreDataError.make(
                    NSFileReadNoSuchFileError, "No store file at \(path)", [NSFilePathErrorKey: path])
            }
            throw CoreDataError.make(
                NSFileReadUnknownError, "The store path \(path) can't be used: \(String(cString: strerror(code)))",
                [NSFilePathErrorKey: path, NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code))])
        }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFSOCK: kind = "a socket"
        case S_IFCHR, S_IFBLK: kind = "a device"
        default: kind = "not a regular file"
        }
        throw CoreDataError.make(
            NSFileReadUnknownError, "The store path \(path) is \(kind), not a store file", [NSFilePathErrorKey: path])
    }

    /// Makes sure a store at `url` can be written, or throws naming the file or folder
    /// that cannot be: the store file, its folder (SQLite creates `-wal`, `-shm` and
    /// journal files beside it) and existing `-wal` and `-shm` files.
    ///
    /// A `-shm` or `-wal` left read-only by a connection opened while the store itself was
    /// read-only (SQLite gives them the store's permissions) would keep the store
    /// unwritable for good; when it is ours, it gets the store's permissions again.
    static func prepareForWriting(_ url: URL) throws {
        let path = url.path
        let folder = url.deletingLastPathComponent().path
        var store = stat()
        let exists = stat(path, &store) == 0
        if exists, access(path, W_OK) != 0 {
            throw notWritable(path, errno, what: "The store file \(path)", mode: store.st_mode)
        }
        var folderInfo = stat()
        guard stat(folder, &folderInfo) == 0 else {
            throw CoreDataError.make(
                NSFileWriteNoPermissionError,
                "Can't create the store \(path): its folder \(folder) can't be created (\(String(cString: strerror(errno))))",
                [NSFilePathErrorKey: folder])
        }
        guard folderInfo.st_mode & S_IFMT == S_IFDIR else {
            throw CoreDataError.make(
                NSFileWriteNoPermissionError, "Can't create the store \(path): \(folder) is a file, not a folder",
                [NSFilePathErrorKey: folder])
        }
        var missingCompanion = !exists
        for suffix in ["-wal", "-shm"] {
            let companion = path + suffix
            var info = stat()
            guard stat(companion, &info) == 0 else {
                missingCompanion = true
                continue
            }
            guard access(companion, W_OK) != 0 else { continue }
            let code = errno
            // Same inode, same contents: other connections are not disturbed by a mode change.
            if code == EACCES, exists, info.st_uid == geteuid(),
                chmod(companion, (store.st_mode | S_IWUSR) & 0o777) == 0
            {
                continue
            }
            throw notWritable(
                companion, code, what: "\(companion), which SQLite keeps beside the store,", mode: info.st_mode,
                advice: "make it writable, or delete it while no process has the store open")
        }
        if missingCompanion, access(folder, W_OK) != 0 {
            throw notWritable(
                folder, errno, what: "The folder \(folder)", mode: folderInfo.st_mode,
                advice:
                    "SQLite creates the store's -wal and -shm files there; make it writable, or open the store with NSReadOnlyPersistentStoreOption"
            )
        }
    }

    /// The error for a file or folder that cannot be written, with `errno`'s reason.
    private static func notWritable(
        _ path: String, _ code: Int32, what: String, mode: mode_t,
        advice: String = "make it writable, or open the store with NSReadOnlyPersistentStoreOption"
    ) -> NSError {
        let underlying = NSError(domain: NSPOSIXErrorDomain, code: Int(code))
        if code == EROFS {
            return CoreDataError.make(
                NSFileWriteVolumeReadOnlyError,
                "\(what) is on a read-only volume; open the store with NSReadOnlyPersistentStoreOption",
                [NSFilePathErrorKey: path, NSUnderlyingErrorKey: underlying])
        }
        return CoreDataError.make(
            NSFileWriteNoPermissionError, "\(what) is not writable (permissions \(permissions(mode))): \(advice)",
            [NSFilePathErrorKey: path, NSUnderlyingErrorKey: underlying])
    }

    /// `rwxr-xr-x` for a mode.
    private static func permissions(_ mode: mode_t) -> String {
        let letters = Array("rwxrwxrwx")
        return String((0..<9).map { mode & (0o400 >> mode_t($0)) != 0 ? letters[$0] : "-" })
    }

    /// What SQLite is given to open the existing store file at `url` read-only: its path,
    /// or an `immutable` URI when the store is in WAL mode, has no `-wal` and `-shm`, and
    /// they cannot be created (SQLite needs the `-shm` even to read).
    ///
    /// `immutable` reads without locks, which is safe only while nobody writes: it is
    /// taken only when nobody can (no `-wal` file holds changes, and the folder, where a
    /// writer would have to create one, is on a read-only volume or grants no one write
    /// permission). Otherwise the error names the folder.
    static func readOnlyLocation(of url: URL) throws -> (path: String, immutable: Bool) {
        try checkKind(url, mayBeMissing: false)
        let path = url.path
        let folder = url.deletingLastPathComponent().path
        let manager = FileManager.default
        guard isWriteAheadLogged(path), !manager.fileExists(atPath: path + "-wal"),
            !manager.fileExists(atPath: path + "-shm"),
            access(folder, W_OK) != 0
        else { return (path, false) }
        var folderInfo = stat()
        var volume = statvfs()
        let readOnlyVolume = statvfs(folder, &volume) == 0 && volume.f_flag & UInt(ST_RDONLY) != 0
        let nobodyWrites = stat(folder, &folderInfo) == 0 && folderInfo.st_mode & 0o222 == 0
        guard readOnlyVolume || nobodyWrites, sqlite3_compileoption_used("USE_URI") != 0,
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
        else {
            throw CoreDataError.make(
                NSFileWriteNoPermissionError,
                "Can't read the store \(path): it is in WAL mode, and SQLite must create \(path)-shm beside it even to read it, but the folder \(folder) is not writable; make the folder writable, or copy the store to one that is",
                [NSFilePathErrorKey: folder])
        }
        return ("file:\(encoded)?immutable=1", true)
    }

    /// Whether the file's header marks a WAL-mode database (file format versions 2).
    private static func isWriteAheadLogged(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header[18] == 2 && header[19] == 2
    }

    /// A read-only connection to the existing store file at `url` (see
    /// ``readOnlyLocation(of:)``), closed by the caller.
    ///
    /// - Throws: A Cocoa file error naming the file when it is missing, not a regular
    ///   file, or not readable without writing where nobody may.
    package static func openReadOnly(_ url: URL) throws -> DatabaseQueue {
        let location = try readOnlyLocation(of: url)
        var configuration = Configuration()
        configuration.readonly = true
        do {
            return try DatabaseQueue(path: location.path, configuration: configuration)
        } catch {
            throw SQLiteStore.wrap(error, url: url, opening: true)
        }
    }

    /// The metadata in `Z_METADATA` of the open store `db`, and, when its property list
    /// cannot be read, why (the metadata then holds only the store's UUID).
    ///
    /// - Throws: When `db` has no `Z_METADATA` table or row.
    package static func metadata(in db: Database, url: URL) throws -> (metadata: [String: Any], damage: String?) {
        guard try db.tableExists("Z_METADATA") else {
            throw CoreDataError.make(
                NSFileReadCorruptFileErrorCode, "The file at \(url.path) is not a Core Data store",
                [NSFilePathErrorKey: url.path])
        }
        return try SQLiteStore.readMetadataNotingDamage(db, url: url)
    }
}
