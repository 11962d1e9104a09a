import GRDB

/// Object-ID fetches read the keys and entity numbers of the matching rows, nothing else.
extension SQLiteStore {
    func fetchObjectIDs(_ fetch: StoreFetch) throws -> [NSManagedObjectID] {
        guard let store else { return [] }
        let builder = SQLQueryBuilder(schema: schema, entity: fetch.entity)
        let sql = "SELECT t0.Z_PK, t0.Z_ENT \(try builder.fromAndWhere(fetch))" + Self.window(limit: fetch.limit, offset: fetch.offset)
        return try read { db in
            try Row.fetchAll(db, sql: sql, arguments: StatementArguments(builder.arguments)).compactMap { row in
                // Rows with no key or an entity number the model lacks are skipped, as in object fetches.
                guard let key: Int64 = row[0], let number: Int = row[1], let entity = self.schema.entitiesByNumber[number] else { return nil }
                return NSManagedObjectID(entity: entity, store: store, primaryKey: key)
            }
        }
    }
}
