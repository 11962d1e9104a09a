import Foundation

/// One entity as a store lists it in `Z_PRIMARYKEY`.
package struct StoredEntity: Equatable, Sendable {
    /// Its `Z_ENT` number.
    package let number: Int
    /// Its name.
    package let name: String
    /// Its parent's number; 0 for a root entity.
    package let parent: Int
}

extension StoredEntity {
    /// The entities of the store `db` reads, by number; `nil` when the database has no
    /// `Z_PRIMARYKEY` table (it is not a store).
    ///
    /// Rows that do not hold a number and a name (a damaged table) are skipped. Numbers from
    /// 16000 up name Core Data's own tables (persistent history), not entities, and are left out.
    package static func all(in db: some SQLDatabase) throws -> [StoredEntity]? {
        guard try db.tableExists("Z_PRIMARYKEY") else { return nil }
        var entities: [StoredEntity] = []
        try db.forEachRow(SQLPrimaryKeyStatements.entities(below: SQLHistory.firstReservedEntityNumber)) { row in
            guard let number = row["Z_ENT"].exactInteger.flatMap({ Int(exactly: $0) }),
                let name = Self.text(row["Z_NAME"]), !name.isEmpty
            else { return }
            let parent = row["Z_SUPER"].exactInteger.flatMap { Int(exactly: $0) } ?? 0
            entities.append(StoredEntity(number: number, name: name, parent: parent))
        }
        return entities
    }

    /// A name as text, or as UTF-8 bytes (how some writers store text in SQLite).
    private static func text(_ value: SQLScalar) -> String? {
        switch value {
        case .text(let text): text
        case .blob(let data): String(data: data, encoding: .utf8)
        default: nil
        }
    }
}
