import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Copying an open store into a new one, for the coordinator's `migratePersistentStore`.
extension SQLiteStore {
    /// Writes a copy of this store's database to a new file at `url`, with SQLite's online
    /// backup (a consistent copy even while other connections write), and copies the
    /// values kept outside the database beside it.
    func copyDatabase(toFileAt url: URL) throws {
        let manager = FileManager.default
        guard !manager.fileExists(atPath: url.path) else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError, "Can't migrate the store to \(url.path): a file is already there",
                [NSFilePathErrorKey: url.path])
        }
        try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            let copy = try DatabaseQueue(path: url.path)
            defer { try? copy.close() }
            try database.backup(to: copy)
        } catch {
            try? Self.destroyFiles(at: url)
            throw Self.wrap(error, url: url, opening: false)
        }
        guard let source = self.url.map({ ExternalBinaryStorage(url: $0).directory }) ?? nil,
            manager.fileExists(atPath: source.path),
            let destination = ExternalBinaryStorage(url: url).directory
        else { return }
        do {
            try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try manager.copyItem(at: source, to: destination)
        } catch {
            try? Self.destroyFiles(at: url)
            throw error
        }
    }

    /// Copies this store's database into `copy` (an empty in-memory database), where
    /// values kept in files beside this store are stored inline, since a store in memory
    /// has no folder to keep them in.
    func copyDatabase(intoMemory copy: DatabaseQueue) throws {
        try database.backup(to: copy)
        let files = ExternalBinaryStorage(url: url)
        try copy.write { db in
            for entity in schema.entities {
                let table = try schema.table(for: entity)
                for attribute in entity.attributesByName.values
                where attribute.entity === entity && attribute.allowsExternalBinaryDataStorage {
                    guard let column = schema.column(for: attribute) else { continue }
                    for row in try Row.fetchAll(db, SQLExternalDataStatements.valuesInFiles(column, table: table.name))
                    {
                        guard let key = row.storedInteger(at: 0), let stored = Data.fromDatabaseValue(row[1]),
                            let data = try files.read(stored)
                        else { continue }
                        try db.execute(
                            SQLExternalDataStatements.setValue(
                                (Data([0x01]) + data).sqlScalar, column: column, table: table.name,
                                key: key))
                    }
                }
            }
        }
    }
}
