import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

extension SQLiteStore {
    func reservePrimaryKeys(for entities: [NSEntityDescription]) throws -> [Int64] {
        try database.write { db in
            var allocator = SQLiteKeyAllocator(db: db, schema: schema)
            let keys = try entities.map { try allocator.nextKey(for: $0) }
            try allocator.flush()
            return keys
        }
    }

    func save(_ request: StoreSaveRequest) throws -> StoreSaveOutcome {
        let external = ExternalBinaryStorage(url: url)
        // Files are tracked as they are written, so a failed save removes them all.
        var writer: SQLiteSaveWriter?
        var metadataWritten: Int?
        var conflicts: StoreSaveConflicts?
        do {
            try database.write { db in
                // The checks read on this connection, inside the transaction that writes.
                if !request.checks.isEmpty {
                    conflicts = try request.checks.conflicts(
                        of: request, reading: SQLiteSaveCheckReader(store: self, db: db))
                    if conflicts != nil { return }
                }
                let current = SQLiteSaveWriter(db: db, schema: schema, external: external)
                writer = current
                let tombstones =
                    try history?.tombstones(
                        SQLiteDatabaseAdapter(db), of: request.deletes.map { ($0.row.entity, $0.row.primaryKey) })
                    ?? [:]
                try current.write(request)
                try history?.record(
                    SQLiteDatabaseAdapter(db), origin: request.origin, changes: request.historyChanges,
                    tombstones: tombstones)
                metadataWritten = try writeMetadataIfNeeded(db)
            }
            if let conflicts { return .conflicts(conflicts) }
            // A value set while the save ran stays pending for the next save.
            if let metadataWritten { metadataState.committed(metadataWritten) }
        } catch {
            for file in writer?.writtenFiles ?? [] { try? FileManager.default.removeItem(at: file) }
            if let error = error as? DatabaseError { throw Self.wrap(error, url: url, opening: false) }
            throw error
        }
        for file in writer?.obsoleteFiles ?? [] { try? FileManager.default.removeItem(at: file) }
        return .saved
    }
}
