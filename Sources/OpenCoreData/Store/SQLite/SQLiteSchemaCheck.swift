import GRDB

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
    static func verify(_ db: Database, schema: SQLiteSchema, url: URL?) throws {
        var problems: [String] = []
        problems += try entityNumberProblems(db, schema: schema)
        for table in schema.tables {
            let expected = ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)
            problems += try columnProblems(db, table: table.name, expected: expected)
        }
        for joinTable in schema.joinTables {
            problems += try columnProblems(db, table: joinTable.name, expected: joinTable.columns.map(\.name))
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
    private static func entityNumberProblems(_ db: Database, schema: SQLiteSchema) throws -> [String] {
        guard try db.tableExists("Z_PRIMARYKEY") else { return ["table Z_PRIMARYKEY is missing"] }
        var namesByNumber: [Int: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
            if let number: Int = row["Z_ENT"], let name: String = row["Z_NAME"] { namesByNumber[number] = name }
        }
        var problems: [String] = []
        for entity in schema.entities {
            let number = entity.facts.entityNumber
            let name = entity.name ?? ""
            switch namesByNumber[number] {
            case name?: continue
            case let other?: problems.append("entity number \(number) is '\(other)' in the store, '\(name)' in the model")
            case nil: problems.append("entity '\(name)' (number \(number)) is not in Z_PRIMARYKEY")
            }
        }
        return problems
    }

    private static func columnProblems(_ db: Database, table: String, expected: [String]) throws -> [String] {
        guard try db.tableExists(table) else { return ["table \(table) is missing"] }
        let present = Set(try db.columns(in: table).map { $0.name.uppercased() })
        return expected.filter { !present.contains($0.uppercased()) }.map { "column \(table).\($0) is missing" }
    }
}
