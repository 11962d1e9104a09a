import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// Dictionary fetches: one SELECT of the requested values and aggregates, decoded by
/// `SQLDictionaryQuery` with this store's attribute decoding (values in external files).
extension SQLiteStore {
    func fetchDictionaries(_ request: StoreDictionaryFetch) throws -> [NSDictionary] {
        guard let store else { return [] }
        let query = try SQLDictionaryQuery(request, schema: schema)
        let rows = try read { db, _ in try Row.fetchAll(db, query.statement) }
        return try rows.map { row in
            try query.dictionary(
                reading: { SQLScalar(row[$0] as DatabaseValue) }, schema: schema, store: store,
                decodeAttribute: decodeAttribute)
        }
    }
}
