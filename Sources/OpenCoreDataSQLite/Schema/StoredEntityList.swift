import OpenCoreDataCore
import OpenCoreDataSQL
// Tools read the entity list on their own GRDB connection.
package import GRDB

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
    /// The entities of the store open on `db`, by number; `nil` when the database has no
    /// `Z_PRIMARYKEY` table (it is not a store).
    ///
    /// Values are read as database values, because GRDB's typed subscripts trap on a value
    /// of another type, and damaged rows are skipped. Numbers from 16000 up name Core
    /// Data's own tables (persistent history), not entities, and are left out.
    package static func all(in db: Database) throws -> [StoredEntity]? {
        guard try db.tableExists("Z_PRIMARYKEY") else { return nil }
        return try Row.fetchAll(db, SQLPrimaryKeyStatements.entities(below: SQLHistory.firstReservedEntityNumber))
            .compactMap { row in
                guard let number = Int.fromDatabaseValue(row["Z_ENT"] as DatabaseValue),
                    let name = String.fromDatabaseValue(row["Z_NAME"] as DatabaseValue), !name.isEmpty
                else { return nil }
                return StoredEntity(
                    number: number, name: name, parent: Int.fromDatabaseValue(row["Z_SUPER"] as DatabaseValue) ?? 0)
            }
    }
}
