import GRDB
@testable import OpenCoreDataCore
import StoreWorkerSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a store path names, damaged metadata, and stores that cannot be written: each
/// refused or opened read-only before SQLite is given something it would block on or
/// answer with "disk I/O error".
@Suite struct StoreOpeningTests {
    private func open(_ url: URL, options: [AnyHashable: Any]? = nil) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: entryModel())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
    }

    private func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as NSError).localizedDescription
        }
    }

    @Test func aFIFOIsRefusedBeforeSQLiteOpensIt() throws {
        let url = temporaryStoreURL("Pipe")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(mkfifo(url.path, 0o644) == 0)
        // Opening a FIFO blocks until a writer comes: the refusal must come first.
        let opening = message { try open(url) }
        #expect(opening?.contains("is a FIFO (named pipe), not a store file") == true, "\(opening ?? "opened")")
        let reading = message { try open(url, options: [NSReadOnlyPersistentStoreOption: true]) }
        #expect(reading?.contains("is a FIFO") == true)
        let metadata = message {
            _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        }
        #expect(metadata?.contains("is a FIFO") == true)
    }

    @Test func aDirectoryOrAnEmptyPathIsNamedForWhatItIs() throws {
        let folder = temporaryStoreURL("Folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for options in [nil, [NSReadOnlyPersistentStoreOption: true] as [AnyHashable: Any]] {
            let text = message { try open(folder, options: options) }
            #expect(text == "The store path \(folder.path) is a directory, not a store file")
        }
        let metadata = message {
            _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: folder)
        }
        #expect(metadata?.contains("is a directory, not a store file") == true)
        let empty = try #require(URL(string: "file:"))
        let error = #expect(throws: NSError.self) { try open(empty) }
        #expect(error?.code == NSFileReadInvalidFileNameError)
        #expect(error?.localizedDescription == "The store path is empty: it names no store file")
    }

    @Test func damagedMetadataIsAnErrorNotAStoreWithOnlyAUUID() throws {
        let url = temporaryStoreURL("Damaged")
        try open(url)
        let db = try DatabaseQueue(path: url.path)
        try db.write { try $0.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = X'62706C6973743030FFFF'") }
        try db.close()
        let read = #expect(throws: NSError.self) {
            _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        }
        #expect(read?.code == NSFileReadCorruptFileErrorCode)
        #expect(read?.localizedDescription.contains("metadata of the store at \(url.path) is damaged") == true)
        let opened = #expect(throws: NSError.self) { try open(url) }
        #expect(opened?.localizedDescription.contains("is damaged") == true)
    }

    @Test func metadataStoredAsTextStillReads() throws {
        // An XML property list in a TEXT column is metadata, not damage (it read before, too).
        let url = temporaryStoreURL("TextMetadata")
        try open(url)
        let db = try DatabaseQueue(path: url.path)
        try db.write { db in
            let blob = try #require(try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"))
            var metadata = try #require(
                try PropertyListSerialization.propertyList(from: blob, format: nil) as? [String: Any])
            metadata["TextKey"] = "kept"
            let xml = try PropertyListSerialization.data(fromPropertyList: metadata, format: .xml, options: 0)
            try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [String(decoding: xml, as: UTF8.self)])
        }
        try db.close()
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata["TextKey"] as? String == "kept")
        try open(url)
    }

    @Test func theStoreThatCreatesNothingIsNotWrittenWhenReadOnly() throws {
        // A read-only open of a missing file says so, and creates nothing.
        let url = temporaryStoreURL("Missing")
        let error = #expect(throws: NSError.self) { try open(url, options: [NSReadOnlyPersistentStoreOption: true]) }
        #expect(error?.code == NSFileReadNoSuchFileError)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    // MARK: Files and folders that cannot be written (in a process without root's rights)

    @Test(.enabled(if: Unprivileged.isAvailable)) func aStoreInAFolderNobodyMayWriteIsReadReadOnly() throws {
        let url = try storeWithEntries(3)
        let folder = url.deletingLastPathComponent()
        try Unprivileged.giveAway([folder, url])
        try setMode(0o555, folder)
        defer { try? setMode(0o755, folder) }
        let read = try Unprivileged.runWorker(["read", url.path])
        #expect(read.status == 0, "\(read.error)")
        #expect(read.output == "read 3\n")
        #expect(!FileManager.default.fileExists(atPath: url.path + "-shm"))

        // Writing is impossible, and the error names the folder.
        let write = try Unprivileged.runWorker([url.path, "W", "1", "1", "1"])
        #expect(write.status == 1)
        #expect(
            write.error.contains("The folder \(folder.path) is not writable (permissions r-xr-xr-x)"), "\(write.error)")
    }

    @Test(.enabled(if: Unprivileged.isAvailable)) func aShmLeftReadOnlyDoesNotKeepTheStoreUnwritable() throws {
        let url = try storeWithEntries(2)
        try Unprivileged.giveAway([url.deletingLastPathComponent(), url])
        // Read while the store is read-only: SQLite gives the -shm it creates the store's
        // permissions, and a read-only connection leaves it behind.
        try setMode(0o444, url)
        let read = try Unprivileged.runWorker(["read", url.path])
        #expect(read.output == "read 2\n", "\(read.error)")
        let shm = try FileManager.default.attributesOfItem(atPath: url.path + "-shm")
        #expect((shm[.posixPermissions] as? Int) == 0o444)
        try setMode(0o644, url)
        let write = try Unprivileged.runWorker([url.path, "W", "2", "1", "2"])
        #expect(write.status == 0, "\(write.error)")
    }

    @Test(.enabled(if: Unprivileged.isAvailable)) func aReadOnlyStoreFileIsNamedWhenWritingIsAsked() throws {
        let url = try storeWithEntries(1)
        try setMode(0o444, url)
        let write = try Unprivileged.runWorker([url.path, "W", "1", "1", "1"])
        #expect(write.status == 1)
        #expect(
            write.error.contains("The store file \(url.path) is not writable (permissions r--r--r--)"), "\(write.error)"
        )
    }

    /// A closed store of `count` entries in a new folder (no `-wal` or `-shm` left).
    private func storeWithEntries(_ count: Int) throws -> URL {
        let url = temporaryStoreURL("Entries")
        let context = try makeContext(entryModel(), url: url)
        try context.performAndWait {
            for row in 0..<count {
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue(Int64(row), forKey: "row")
            }
            try context.save()
        }
        let coordinator = try #require(context.persistentStoreCoordinator)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        #expect(!FileManager.default.fileExists(atPath: url.path + "-shm"))
        return url
    }

    private func setMode(_ mode: Int, _ url: URL) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }
}

/// Runs the store worker without the rights that let root write anything: under the
/// `nobody` user when the tests run as root (as in CI), else as the tests' own user.
enum Unprivileged {
    static let nobody: UInt32 = 65_534
    static let setpriv = "/usr/bin/setpriv"

    static var isAvailable: Bool {
        getuid() != 0 || FileManager.default.isExecutableFile(atPath: setpriv)
    }

    /// Hands files and folders to the user the worker runs as (the files it creates in
    /// such a folder are then that user's too).
    static func giveAway(_ urls: [URL]) throws {
        guard getuid() == 0 else { return }
        for url in urls { #expect(chown(url.path, nobody, nobody) == 0) }
    }

    static func runWorker(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        if getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments =
                ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", MultiProcessTests.worker.path] + arguments
        } else {
            process.executableURL = MultiProcessTests.worker
            process.arguments = arguments
        }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let reported = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, printed, reported)
    }
}
