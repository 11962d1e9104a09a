import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Checks that an existing store file has the layout the model maps to, before the
/// first read or write.
///
/// Version hashes say whether the model changed; this says whether the file can be
/// read and written as the model expects: every entity under its number in
/// `Z_PRIMARYKEY`, every table, column and join table present. A store written by
/// Core Data on a device passes when it was made with the same model. Tables and
/// columns the model does not know are allowed: they are left as they are.
enum SQLiteSchemaCheck {
    /// Throws `NSPersistentStoreIncompatibleSchemaError` naming the first mismatches.
    static func verify(_ db: Database, schema: SQLSchema, url: URL?) throws {
        var problems: [String] = []
        problems += try entityNumberProblems(db, schema: schema)
        let keyColumns = ["Z_PK", "Z_ENT", "Z_OPT"].map { SQLSchema.Column(name: $0, type: "INTEGER") }
        for table in schema.tables {
            problems += try columnProblems(db, table: table.name, expected: keyColumns + table.columns)
        }
        for joinTable in schema.joinTables {
            problems += try columnProblems(db, table: joinTable.name, expected: joinTable.columns)
        }
        guard !problems.isEmpty else { return }
        let shown = problems.prefix(5).joined(separator: "; ")
        let more = problems.count > 5 ? " (and \(problems.count - 5) more)" : ""
        throw CoreDataError.make(
            NSPersistentStoreIncompatibleSchemaError,
            "The store at \(url?.path ?? "?") does not have the layout the model needs: \(shown)\(more)",
            [NSFilePathErrorKey: url?.path ?? "", "problems": problems]
        )
    }

    /// Entities must carry the numbers the model gives them: object IDs, `Z_ENT` values
    /// and join-table names all depend on them.
    private static func entityNumberProblems(_ db: Database, schema: SQLSchema) throws -> [String] {
        guard let stored = try StoredEntity.all(in: SQLiteDatabaseAdapter(db)) else {
            return ["table Z_PRIMARYKEY is missing"]
        }
        var namesByNumber: [Int: String] = [:]
        for entity in stored { namesByNumber[entity.number] = entity.name }
        var problems: [String] = []
        for entity in schema.entities {
            let number = entity.facts.entityNumber
            let name = entity.name ?? ""
            switch namesByNumber[number] {
            case name?: continue
            case let other?:
                problems.append("entity number \(number) is '\(other)' in the store, '\(name)' in the model")
            case nil: problems.append("entity '\(name)' (number \(number)) is not in Z_PRIMARYKEY")
            }
        }
        return problems
    }

    /// Missing columns, and columns whose declared type has another SQLite affinity than
    /// the one the model maps to (an attribute whose type changed would read the wrong
    /// kind of value). Affinities, not exact names, because another writer may spell a
    /// type differently (`INTEGER` or `INT`) without changing what the column holds.
    private static func columnProblems(
        _ db: Database, table: String, expected: [SQLSchema.Column]
    ) throws -> [String] {
        guard try db.tableExists(table) else { return ["table \(table) is missing"] }
        let present = Dictionary(
            try db.columns(in: table).map { ($0.name.uppercased(), $0.type.uppercased()) },
            uniquingKeysWith: { first, _ in first })
        return expected.compactMap { column in
            guard let type = present[column.name.uppercased()] else {
                return "column \(table).\(column.name) is missing"
            }
            guard affinity(of: type) == affinity(of: column.type) else {
                return "column \(table).\(column.name) is \(type) in the store, \(column.type) in the model"
            }
            return nil
        }
    }

    /// SQLite's type affinity of a declared column type (its documented rules, in order).
    static func affinity(of declared: String) -> String {
        let type = declared.uppercased()
        if type.contains("INT") { return "INTEGER" }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return "TEXT" }
        if type.contains("BLOB") || type.isEmpty { return "BLOB" }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return "REAL" }
        return "NUMERIC"
    }
}
