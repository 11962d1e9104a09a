import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// A lightweight migration of an SQLite store: ``SQLMigration`` on a GRDB connection,
/// inside the caller's transaction, with values of external-storage attributes read from
/// the files beside the store.
typealias SQLiteMigration = SQLMigration<SQLiteDatabaseAdapter>

extension SQLMigration where Database == SQLiteDatabaseAdapter {
    /// The migration of the store open on `db` (its file at `url`, `nil` in memory).
    init(
        db: GRDB.Database, source: SQLSchema, destination: SQLSchema, mapping: NSMappingModel, url: URL? = nil,
        allowsDataLoss: Bool = false
    ) {
        let files = ExternalBinaryStorage(url: url)
        self.init(
            db: SQLiteDatabaseAdapter(db), source: source, destination: destination, mapping: mapping,
            storeName: url?.path ?? "in memory", externalValue: { try files.read($0) }, allowsDataLoss: allowsDataLoss)
    }

    /// The rows of the store open on `db` by entity of `schema` (see ``SQLMigration/rowCounts(_:schema:)``).
    static func rowCounts(_ db: GRDB.Database, schema: SQLSchema) throws -> StoreRowCounts {
        try rowCounts(SQLiteDatabaseAdapter(db), schema: schema)
    }
}
