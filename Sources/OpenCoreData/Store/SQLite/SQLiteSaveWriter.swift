import GRDB
import GRDBSQLite

/// Writes one `StoreSaveRequest` inside an open transaction: deletes, inserts,
/// updates (only changed columns, with the `Z_OPT` optimistic-lock check), then
/// relationship memberships (join rows, ordering columns).
final class SQLiteSaveWriter {
    private let db: Database
    private let schema: SQLiteSchema
    private let external: ExternalBinaryStorage
    private(set) var writtenFiles: [URL] = []
    private(set) var obsoleteFiles: [URL] = []

    init(db: Database, schema: SQLiteSchema, external: ExternalBinaryStorage) {
        self.db = db
        self.schema = schema
        self.external = external
    }

    func write(_ request: StoreSaveRequest) throws {
        for (row, version) in request.deletes { try delete(row, expectedVersion: version) }
        for row in request.inserts { try insert(row) }
        for row in request.updates { try update(row) }
        for change in request.memberships where schema.joinTable(for: change.relationship)?.isWritingSide != false { try apply(change) }
        for change in request.memberships where schema.joinTable(for: change.relationship)?.isWritingSide == false { try apply(change) }
    }

    private func delete(_ row: StoreSaveRequest.RowReference, expectedVersion: Int64) throws {
        let table = try schema.table(for: row.entity)
        try collectExternalFiles(table: table, entity: row.entity, key: row.primaryKey, properties: nil)
        try execute("DELETE FROM \(table.name) WHERE Z_PK = ? AND Z_OPT = ?", [row.primaryKey.databaseValue, expectedVersion.databaseValue])
        if db.changesCount == 0 { throw conflict(row.entity, row.primaryKey, expectedVersion) }
        for case let relationship as NSRelationshipDescription in row.entity.facts.slots {
            if let join = schema.joinTable(for: relationship) {
                try execute("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?", [row.primaryKey.databaseValue])
            }
        }
    }

    /// Statement text by entity, kind and written properties: rows of one entity mostly
    /// write the same columns, so the text is built once per save, not once per row.
    private var statementTexts: [StatementShape: String] = [:]

    private struct StatementShape: Hashable {
        let entity: ObjectIdentifier
        let isInsert: Bool
        let slots: [Int]
    }

    /// The statement for a row: an insert writes every stored column of its entity (the
    /// same for all its rows), an update the changed ones.
    private func statementText(_ row: StoreSaveRequest.RowWrite, insert: Bool) throws -> String {
        let shape = StatementShape(entity: ObjectIdentifier(row.entity), isInsert: insert, slots: insert ? [] : row.values.map(\.property.slot))
        if let known = statementTexts[shape] { return known }
        let table = try schema.table(for: row.entity)
        var columns: [String] = []
        for (property, _) in row.values {
            guard let column = schema.column(for: property) else { continue }
            columns.append(column)
            if let relationship = property as? NSRelationshipDescription, let entityColumn = schema.entityColumn(for: relationship) {
                columns.append(entityColumn)
            }
        }
        let text: String
        if insert {
            let all = ["Z_PK", "Z_ENT", "Z_OPT"] + columns
            text = "INSERT INTO \(table.name) (\(all.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: all.count).joined(separator: ", ")))"
        } else {
            let assignments = (["Z_OPT = Z_OPT + 1"] + columns.map { "\($0) = ?" }).joined(separator: ", ")
            text = "UPDATE \(table.name) SET \(assignments) WHERE Z_PK = ? AND Z_OPT = ?"
        }
        statementTexts[shape] = text
        return text
    }

    private func insert(_ row: StoreSaveRequest.RowWrite) throws {
        var values: [DatabaseValue] = [row.primaryKey.databaseValue, row.entity.facts.entityNumber.databaseValue, (1 as Int64).databaseValue]
        values.reserveCapacity(3 + row.values.count)
        try appendValues(row, to: &values)
        try execute(try statementText(row, insert: true), values)
    }

    private func update(_ row: StoreSaveRequest.RowWrite) throws {
        let table = try schema.table(for: row.entity)
        try collectExternalFiles(table: table, entity: row.entity, key: row.primaryKey, properties: row.values.map(\.property))
        var values: [DatabaseValue] = []
        values.reserveCapacity(2 + row.values.count)
        try appendValues(row, to: &values)
        values += [row.primaryKey.databaseValue, row.expectedVersion.databaseValue]
        try execute(try statementText(row, insert: false), values)
        if db.changesCount == 0 { throw conflict(row.entity, row.primaryKey, row.expectedVersion) }
    }

    /// The optimistic-locking failure: the row changed or vanished since it was read.
    private func conflict(_ entity: NSEntityDescription, _ key: Int64, _ version: Int64) -> NSError {
        CoreDataError.make(
            NSManagedObjectMergeError,
            "Could not merge changes: the \(entity.name ?? "?") row \(key) was changed or deleted by another context or process since it was read (version \(version))",
            ["conflictList": [key]]
        )
    }

    /// The row's values in the order `statementText` lists their columns.
    private func appendValues(_ row: StoreSaveRequest.RowWrite, to values: inout [DatabaseValue]) throws {
        for (property, value) in row.values {
            if let attribute = property as? NSAttributeDescription {
                guard schema.column(for: property) != nil else { continue }
                values.append(try encode(value, attribute))
            } else if let relationship = property as? NSRelationshipDescription {
                guard schema.column(for: property) != nil else { continue }
                let reference = value as? StoreSaveRequest.RowReference
                values.append(reference?.primaryKey.databaseValue ?? .null)
                if schema.entityColumn(for: relationship) != nil {
                    values.append(reference?.entity.facts.entityNumber.databaseValue ?? .null)
                }
            }
        }
    }

    private func encode(_ value: Any?, _ attribute: NSAttributeDescription) throws -> DatabaseValue {
        let (column, file) = try external.columnValue(value, for: attribute)
        if let file { writtenFiles.append(file) }
        return column
    }

    /// Notes the external files of columns about to be overwritten or deleted, to remove after commit.
    private func collectExternalFiles(table: SQLiteSchema.Table, entity: NSEntityDescription, key: Int64, properties: [NSPropertyDescription]?) throws {
        guard entity.facts.hasExternalStorage else { return }
        let candidates = (properties ?? entity.facts.slots).compactMap { $0 as? NSAttributeDescription }.filter(\.allowsExternalBinaryDataStorage)
        let columns = candidates.compactMap { schema.column(for: $0) }
        guard !columns.isEmpty else { return }
        guard let row = try Row.fetchOne(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table.name) WHERE Z_PK = ?", arguments: [key]) else { return }
        for index in columns.indices {
            if let data = Data.fromDatabaseValue(row[index]), let file = external.fileURL(forColumnValue: data) {
                obsoleteFiles.append(file)
            }
        }
    }

    private func apply(_ change: StoreSaveRequest.MembershipChange) throws {
        let relationship = change.relationship
        if let join = schema.joinTable(for: relationship) {
            // Rows are written by one side (the other side's change mirrors it); each
            // side stores its own order. Orders are written after all rows exist.
            if join.isWritingSide {
                for removed in change.removed {
                    try execute("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ? AND \(join.destinationColumn) = ?", [change.source.primaryKey.databaseValue, removed.primaryKey.databaseValue])
                }
                for added in change.added {
                    try execute("INSERT OR IGNORE INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn)) VALUES (?, ?)", [change.source.primaryKey.databaseValue, added.primaryKey.databaseValue])
                }
            }
            if let orderColumn = join.orderColumn, let members = change.orderedMembers {
                for (index, member) in members.enumerated() {
                    try execute("UPDATE \(join.name) SET \(orderColumn) = ? WHERE \(join.sourceColumn) = ? AND \(join.destinationColumn) = ?",
                                [Int64((index + 1) * 1024).databaseValue, change.source.primaryKey.databaseValue, member.primaryKey.databaseValue])
                }
            }
        } else if let hidden = schema.hiddenColumn(for: relationship), let destination = relationship.destinationEntity {
            let table = try schema.table(for: destination)
            for removed in change.removed { try execute("UPDATE \(table.name) SET \(hidden) = NULL WHERE Z_PK = ?", [removed.primaryKey.databaseValue]) }
            for added in change.added { try execute("UPDATE \(table.name) SET \(hidden) = ? WHERE Z_PK = ?", [change.source.primaryKey.databaseValue, added.primaryKey.databaseValue]) }
        } else if let inverse = relationship.inverseRelationship, let orderColumn = schema.orderColumn(for: inverse),
                  let members = change.orderedMembers, let destination = relationship.destinationEntity {
            let table = try schema.table(for: destination)
            for (index, member) in members.enumerated() {
                try execute("UPDATE \(table.name) SET \(orderColumn) = ? WHERE Z_PK = ?", [Int64((index + 1) * 1024).databaseValue, member.primaryKey.databaseValue])
            }
        }
    }

    /// Runs one statement, prepared once per connection (GRDB caches it by its text).
    ///
    /// Values are bound with SQLite's C API: a save runs one statement per row, and
    /// building GRDB `StatementArguments` for each cost more than the SQLite work.
    private func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value.storage {
            case .null: code = sqlite3_bind_null(handle, index)
            case let .int64(number): code = sqlite3_bind_int64(handle, index, number)
            case let .double(number): code = sqlite3_bind_double(handle, index, number)
            case let .string(text): code = sqlite3_bind_text(handle, index, text, Int32(text.utf8.count), Self.transient)
            case let .blob(data):
                code = data.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), Self.transient) }
            }
            guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql) }
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
        sqlite3_reset(handle)
    }

    /// SQLite copies bound text and blobs (the Swift buffers don't outlive the call).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// Core Data's external binary storage: small values inline behind a `0x01` marker,
/// large ones in `.<store>_SUPPORT/_EXTERNAL_DATA/<UUID>` behind `0x02` and the UUID.
struct ExternalBinaryStorage {
    let url: URL?

    var directory: URL? {
        url.map { SQLiteStore.supportDirectory(for: $0).appendingPathComponent("_EXTERNAL_DATA") }
    }

    /// A value as its column stores it: large data of an external-storage attribute
    /// goes to a new file (returned, so a failed save can remove it).
    func columnValue(_ value: Any?, for attribute: NSAttributeDescription) throws -> (column: DatabaseValue, file: URL?) {
        guard attribute.allowsExternalBinaryDataStorage, let value else {
            return (try SQLiteValueCoding.databaseValue(value, type: attribute.attributeType, transformerName: attribute.valueTransformerName), nil)
        }
        let data: Data
        if attribute.attributeType == .transformableAttributeType {
            data = try ValueTransformerRegistry.encode(value, transformerName: attribute.valueTransformerName)
        } else if let bytes = value as? Data {
            data = bytes
        } else {
            return (try SQLiteValueCoding.databaseValue(value, type: attribute.attributeType), nil)
        }
        let (column, file) = try write(data)
        return (column.databaseValue, file)
    }

    func write(_ data: Data) throws -> (column: Data, file: URL?) {
        guard data.count >= SQLiteStore.externalStorageThreshold, let directory else {
            return (Data([0x01]) + data, nil)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let name = UUID().uuidString
        let file = directory.appendingPathComponent(name)
        try data.write(to: file, options: .atomic)
        return (Data([0x02]) + Data(name.utf8) + Data([0x00]), file)
    }

    func read(_ column: Data) throws -> Data? {
        guard let marker = column.first else { return column }
        switch marker {
        case 0x01:
            return column.dropFirst()
        case 0x02:
            guard let file = fileURL(forColumnValue: column) else { return nil }
            do {
                return try Data(contentsOf: file)
            } catch {
                throw CoreDataError.make(NSFileReadNoSuchFileError, "External data file \(file.path) is missing", [NSFilePathErrorKey: file.path])
            }
        default:
            return column
        }
    }

    func fileURL(forColumnValue column: Data) -> URL? {
        guard column.first == 0x02, let directory else { return nil }
        let nameBytes = column.dropFirst().prefix { $0 != 0 }
        guard let name = String(data: Data(nameBytes), encoding: .utf8), !name.isEmpty else { return nil }
        return directory.appendingPathComponent(name)
    }
}
