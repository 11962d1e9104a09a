import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// Reading rows: fetches, counts, object IDs, dictionaries, single rows for faults, and
/// the rows related to many objects at once for prefetching. Lists of keys are bound as
/// one array value, so a batch of any size is one statement.
extension PostgreSQLStore {
    /// Runs a row query and decodes its rows (from column `offset` on); `each` sees the
    /// result, row number and decoded row of each, to read extra leading columns.
    @discardableResult
    private func decodeRows(
        _ statement: SQLFragment, layout: SQLRowLayout, offset: Int = 0,
        each: ((PostgreSQLResult, Int, StoreRow) -> Void)? = nil
    ) throws -> [StoreRow] {
        guard let persistentStore = store else { return [] }
        // Binary: the columns of a row query are the tables' own (BIGINT, DOUBLE PRECISION,
        // TEXT, BYTEA), read without numbers formatted as text and parsed back. A column of
        // another type than its field reads (a table altered by hand) is read as text instead,
        // whose conversions the decoder makes.
        var result = try query(statement, binaryResults: true)
        if !layout.readsInBinary(result, offset: offset) { result = try query(statement) }
        let timestamp = StoreRow.now()
        var rows: [StoreRow] = []
        rows.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount {
            guard
                let decoded = try layout.decode(
                    result, row: row, offset: offset, schema: schema, persistentStore: persistentStore,
                    timestamp: timestamp)
            else { continue }
            rows.append(decoded)
            each?(result, row, decoded)
        }
        return rows
    }

    /// Runs a read statement. Translated ones were checked where they were built
    /// (``statement(of:_:)``, the dictionary fetch); reads by key translate nothing.
    private func query(_ statement: SQLFragment, binaryResults: Bool = false) throws -> PostgreSQLResult {
        if let readingSnapshot {
            do {
                return try readingSnapshot.run(statement, binaryResults: binaryResults)
            } catch let error as PostgreSQLError {
                throw wrap(error, code: NSPersistentStoreOperationError)
            }
        }
        return try reading { try connection.run(statement, binaryResults: binaryResults) }
    }

    /// The statement `build` makes of `fetch`, or ``StoreFetchInMemory`` when it needs what
    /// PostgreSQL cannot evaluate as memory does, with the part of the predicate it can run.
    private func statement(
        of fetch: StoreFetch, _ build: (SQLQueryBuilder, StoreFetch) throws -> SQLFragment
    ) throws -> SQLFragment {
        let builder = SQLQueryBuilder(schema: schema, entity: fetch.entity)
        let statement = try build(builder, fetch)
        guard let feature = PostgreSQLTranslationCheck.feature(neededBy: statement) else { return statement }
        throw StoreFetchInMemory(feature: feature, prefilter: runnablePart(of: fetch))
    }

    /// The conjuncts of the fetch's predicate that run in SQL exactly, as one predicate:
    /// every object the whole predicate matches, matches them.
    private func runnablePart(of fetch: StoreFetch) -> NSPredicate? {
        guard let predicate = fetch.predicate else { return nil }
        let parts: [NSPredicate]
        if let compound = predicate as? NSCompoundPredicate, compound.compoundPredicateType == .and {
            parts = compound.subpredicates.compactMap { $0 as? NSPredicate }
        } else {
            parts = [predicate]
        }
        let runnable = parts.filter { part in
            var probe = fetch
            probe.predicate = part
            probe.sortDescriptors = []
            guard let count = try? SQLQueryBuilder(schema: schema, entity: fetch.entity).count(probe) else {
                return false
            }
            return PostgreSQLTranslationCheck.feature(neededBy: count) == nil
        }
        if runnable.count > 1 { return NSCompoundPredicate(andPredicateWithSubpredicates: runnable) }
        return runnable.first
    }

    func fetch(_ fetch: StoreFetch) throws -> [StoreRow] {
        let layout = layout(for: fetch.matchingEntities)
        let query = try statement(of: fetch) { try $0.rows($1, columns: layout.selectList) }
        return try decodeRows(query, layout: layout)
    }

    func fetchObjectIDs(_ fetch: StoreFetch) throws -> StoreObjectList {
        let result = try query(try statement(of: fetch) { try $0.objectIDs($1) })
        var list = StoreObjectList(entities: fetch.matchingEntities)
        let indexByNumber = Dictionary(
            uniqueKeysWithValues: list.entities.enumerated().map { (Int64($1.facts.entityNumber), $0) })
        // One entity: the query selected its keys alone (see `SQLQueryBuilder.objectIDs`).
        let single = list.entities.count == 1
        for row in 0..<result.rowCount {
            guard let key = result.integer(row, 0) else { continue }
            if single {
                list.append(key: key, entityIndex: 0)
            } else if let number = result.integer(row, 1), let index = indexByNumber[number] {
                list.append(key: key, entityIndex: index)
            }
        }
        return list
    }

    func count(_ fetch: StoreFetch) throws -> Int {
        let result = try query(try statement(of: fetch) { try $0.count($1) })
        guard let count = result.integer(0, 0) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The PostgreSQL store answered no count")
        }
        return Int(count)
    }

    func fetchDictionaries(_ request: StoreDictionaryFetch) throws -> [NSDictionary] {
        guard let store else { return [] }
        let dictionaryQuery = try SQLDictionaryQuery(request, schema: schema)
        if let feature = PostgreSQLTranslationCheck.feature(neededBy: dictionaryQuery.statement) {
            throw PostgreSQLStore.notYet("\(feature) in dictionary fetches")
        }
        let result = try query(dictionaryQuery.statement)
        return try (0..<result.rowCount).map { row in
            try dictionaryQuery.dictionary(
                reading: { result.scalar(row, $0) }, schema: schema, store: store,
                decodeAttribute: { SQLValueCoding.value($0, of: $1, coordinator: store.persistentStoreCoordinator) })
        }
    }

    func row(for objectID: NSManagedObjectID) throws -> StoreRow? {
        guard let key = objectID.primaryKey else { return nil }
        return try rows(of: objectID.entity.facts.root, keys: [key]).first { $0.objectID == objectID }
    }

    func rows(for objectIDs: [NSManagedObjectID]) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        for ids in Dictionary(grouping: objectIDs, by: { ObjectIdentifier($0.entity.facts.root) }).values {
            rows += try self.rows(of: ids[0].entity.facts.root, keys: ids.compactMap(\.primaryKey))
        }
        return rows
    }

    /// The rows of `root`'s table (its entity and its subentities) with these keys.
    func rows(of root: NSEntityDescription, keys: [Int64]) throws -> [StoreRow] {
        guard !keys.isEmpty else { return [] }
        let layout = layout(for: root.facts.selfAndDescendants)
        let query = SQLObjectReadStatements.rows(
            layout.selectList, table: try schema.table(for: root).name, keys: keys, dialect: .postgreSQL)
        return try decodeRows(query, layout: layout)
    }

    func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] {
        guard let key = objectID.primaryKey, let destination = relationship.destinationEntity, let store,
            let storage = schema.storage(of: relationship)
        else { return [] }
        let destinationTable = try schema.table(for: destination).name
        let result = try query(
            SQLObjectReadStatements.memberIDs(of: key, storage: storage, destinationTable: destinationTable))
        return (0..<result.rowCount).compactMap { row in
            schema.objectID(key: result.integer(row, 0), entityNumber: result.integer(row, 1), store: store)
        }
    }

    func relatedRows(
        of sources: [NSManagedObjectID], relationship: NSRelationshipDescription
    ) throws -> [(source: Int64, row: StoreRow)] {
        guard relationship.isToMany, let destination = relationship.destinationEntity,
            let storage = schema.storage(of: relationship)
        else { return [] }
        let destinationTable = try schema.table(for: destination).name
        let layout = layout(for: destination.facts.selfAndDescendants)
        let query = SQLObjectReadStatements.members(
            of: sources.compactMap(\.primaryKey), storage: storage, destinationTable: destinationTable,
            columns: layout.selectList, dialect: .postgreSQL)
        var related: [(source: Int64, row: StoreRow)] = []
        try decodeRows(query, layout: layout, offset: 1) { result, row, decoded in
            // The statement selects members of the given keys only: column 0 is never NULL.
            if let source = result.integer(row, 0) { related.append((source, decoded)) }
        }
        return related
    }
}

/// What the translation may ask of SQLite that PostgreSQL cannot do yet: the Swift
/// functions and collations SQLite calls (`OCD_…`). A statement naming one is refused with
/// the predicate or sort feature it stands for, rather than failing in the server or
/// answering other objects than memory would.
enum PostgreSQLTranslationCheck {
    /// What each of SQLite's Swift functions and collations computes, for the error.
    private static let features: [(name: String, feature: String)] = [
        ("OCD_FOLD", "case- or diacritic-insensitive comparisons ([c], [d])"),
        ("OCD_STRING_MATCH", "string matching (BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES)"),
        ("OCD_FUNCTION", "functions evaluated in Swift"),
        ("OCD_UTF16_LENGTH", "string lengths"),
        ("OCD_SUM", "@sum over a to-many relationship"),
        ("OCD_CASE_INSENSITIVE", "sorting with caseInsensitiveCompare:"),
        ("OCD_LOCALIZED_CASE_INSENSITIVE", "sorting with localizedCaseInsensitiveCompare:"),
        ("OCD_LOCALIZED", "sorting with localizedCompare:"),
        ("OCD_STANDARD", "sorting with localizedStandardCompare:"),
    ]

    /// The feature `statement` needs that PostgreSQL lacks, or `nil` when it runs as it is.
    static func feature(neededBy statement: SQLFragment) -> String? {
        guard statement.sql.contains("OCD_") else { return nil }
        return features.first { containsName($0.name, in: statement.sql) }?.feature
    }

    /// Whether `name` appears in `sql` as a whole word.
    private static func containsName(_ name: String, in sql: String) -> Bool {
        var searched = sql[...]
        while let range = searched.range(of: name) {
            let after = range.upperBound
            if after == searched.endIndex || !(searched[after].isLetter || searched[after] == "_") { return true }
            searched = searched[after...]
        }
        return false
    }
}
