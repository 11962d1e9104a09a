import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Batch requests on the SQLite store: each runs in one write transaction, with the
/// engine-neutral algorithm of ``SQLBatchRequests``; this engine hands out keys from
/// `Z_PRIMARYKEY` and keeps large values of external-storage attributes in files.
extension SQLiteStore: SQLBatchRunning {
    /// Runs `body` in one write transaction; files written by a failed transaction are
    /// removed, files replaced by a committed one too.
    func runBatch(
        _ body: (SQLBatchRequests<SQLiteDatabaseAdapter, SQLiteBatchEngine>) throws -> StoreBatchOutcome
    ) throws -> StoreBatchOutcome {
        guard let store else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store was removed from its coordinator")
        }
        let files = ExternalBinaryStorage(url: url)
        var engine: SQLiteBatchEngine?
        let outcome: StoreBatchOutcome
        do {
            outcome = try database.write { db in
                let current = SQLiteBatchEngine(db: db, schema: schema, storage: files)
                engine = current
                return try body(
                    SQLBatchRequests(
                        db: SQLiteDatabaseAdapter(db), schema: schema, history: history, store: store, engine: current))
            }
        } catch {
            engine?.discardWritten()
            if let error = error as? DatabaseError { throw Self.wrap(error, url: url, opening: false) }
            throw error
        }
        engine?.removeObsolete()
        return outcome
    }
}

/// The SQLite engine's side of one batch request: keys from `Z_PRIMARYKEY` (past the
/// largest key in use), large external-storage values in files, written files removed if
/// the transaction fails, replaced and deleted ones once it commits.
final class SQLiteBatchEngine: SQLBatchEngine {
    private let storage: ExternalBinaryStorage
    private var allocator: SQLiteKeyAllocator
    private var written: [URL] = []
    private var obsolete: [URL] = []

    init(db: Database, schema: SQLSchema, storage: ExternalBinaryStorage) {
        self.storage = storage
        allocator = SQLiteKeyAllocator(db: db, schema: schema)
    }

    var writersRunAtOnce: Bool { false }

    var usesExternalFiles: Bool { true }

    /// Large data of external-storage attributes goes to a file.
    func encode(_ value: Any?, _ attribute: NSAttributeDescription) throws -> SQLScalar {
        let (column, file) = try storage.columnValue(value, for: attribute)
        if let file { written.append(file) }
        return column
    }

    func collectObsolete(_ row: any SQLDatabaseRow) {
        for index in 0..<row.count {
            if case .blob(let data) = row[index], let file = storage.fileURL(forColumnValue: data) {
                obsolete.append(file)
            }
        }
    }

    func nextKey(for entity: NSEntityDescription, remaining: Int) throws -> Int64 {
        try allocator.nextKey(for: entity)
    }

    func finishKeys() throws { try allocator.flush() }

    /// SQLite runs every translated statement as memory evaluates it (its functions are Swift's).
    func check(_ statement: SQLFragment) throws {}

    /// One writer at a time holds the file.
    func willMatchUniqueValues() throws {}

    func discardWritten() {
        for file in written { try? FileManager.default.removeItem(at: file) }
    }

    func removeObsolete() {
        for file in obsolete { try? FileManager.default.removeItem(at: file) }
    }
}
