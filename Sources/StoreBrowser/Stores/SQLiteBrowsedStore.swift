import CDToolCore
import Foundation
import GRDB
import OpenCoreData
import OpenCoreDataSQL
import OpenCoreDataSQLite

/// A SQLite store file, read on a read-only connection of its own (GRDB's queue, which
/// serializes the pages' reads).
final class SQLiteBrowsedStore: BrowsedStore {
    let url: URL
    var type: String { NSSQLiteStoreType }
    var options: [String: NSObject] { [:] }
    var name: String { url.lastPathComponent }
    private let database: DatabaseQueue

    /// Opens the file read-only: a missing or foreign file is an error, never a new store. A
    /// WAL store in a folder nobody may write opens immutable.
    init(url: URL) throws {
        self.url = url
        database = try SQLiteStoreFile.openReadOnly(url)
    }

    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try database.read { try body(SQLiteDatabaseAdapter($0)) }
    }

    func inspect(model: NSManagedObjectModel?) throws -> StoreInspection {
        try StoreInspection.inspect(storeAt: url, model: model)
    }

    func facts() -> [(String, String)] {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        return [
            ("File", url.path),
            ("Size", ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file)),
            ("Journal mode", pragma("journal_mode") ?? "unknown"),
        ]
    }

    var integrityCheck: (name: String, run: () -> String)? {
        ("SQLite's integrity check", { self.pragma("integrity_check") ?? "could not run" })
    }

    /// A store whose journal mode is not WAL keeps it: a read-write opening would switch it.
    func writingOptions() throws -> [String: NSObject] {
        let journalMode = try database.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } ?? "wal"
        guard journalMode.lowercased() != "wal" else { return [:] }
        return [NSSQLitePragmasOption: ["journal_mode": journalMode] as NSDictionary]
    }

    func close() { try? database.close() }

    /// The values `PRAGMA name` answers, joined; `nil` when it could not run.
    private func pragma(_ name: String) -> String? {
        try? database.read { db in try String.fetchAll(db, sql: "PRAGMA \(name)").joined(separator: "; ") }
    }
}
