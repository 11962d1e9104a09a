import OpenCoreDataCore

/// Builds the statements of a fetch: the `FROM … WHERE … ORDER BY …` with the entity
/// filter, the predicate and the sort descriptors, all translated by `SQLTranslator`,
/// under the SELECT of rows, object IDs or a count; or a whole SELECT whose list and
/// grouping are translated in the same scope (dictionary fetches). SQL text and
/// arguments only: execution is the store's job.
package final class SQLQueryBuilder {
    private let translator: SQLTranslator
    private let entity: NSEntityDescription

    package init(schema: SQLSchema, entity: NSEntityDescription) {
        self.translator = SQLTranslator(schema: schema)
        self.entity = entity
    }

    /// `SELECT <columns> FROM … LIMIT … OFFSET …`: the rows of a fetch, `columns` being a
    /// row layout's SELECT list.
    package func rows(_ fetch: StoreFetch, columns: String) throws -> SQLFragment {
        "SELECT \(raw: columns) \(try fromAndWhere(fetch))\(raw: Self.window(fetch, translator.schema.dialect))"
    }

    /// `SELECT t0.Z_PK, t0.Z_ENT FROM … LIMIT … OFFSET …`: the object IDs a fetch matches.
    ///
    /// A fetch of one entity selects `Z_PK` alone (the WHERE clause already keeps other
    /// entities' rows out): then an index on the sort key covers the query, where
    /// reading `Z_ENT` would look up every row in the table.
    package func objectIDs(_ fetch: StoreFetch) throws -> SQLFragment {
        let columns = fetch.matchingEntities.count == 1 ? "t0.Z_PK" : "t0.Z_PK, t0.Z_ENT"
        return "SELECT \(raw: columns) \(try fromAndWhere(fetch))\(raw: Self.window(fetch, translator.schema.dialect))"
    }

    /// `SELECT COUNT(*) FROM …`: how many objects a fetch matches (its order left out).
    package func count(_ fetch: StoreFetch) throws -> SQLFragment {
        var unordered = fetch
        unordered.sortDescriptors = []
        return "SELECT COUNT(*) \(try fromAndWhere(unordered))"
    }

    /// `FROM … JOIN … WHERE … ORDER BY …` for a fetch (no window).
    package func fromAndWhere(_ fetch: StoreFetch) throws -> SQLFragment {
        try build(fetch) { _, _ in nil }
    }

    /// A whole `SELECT … FROM … WHERE … GROUP BY … HAVING … ORDER BY …` for a fetch,
    /// with the select list and grouping made by `selection` in the fetch's root
    /// scope, so the joins their key paths need land in the same FROM clause.
    package func select(
        _ fetch: StoreFetch, selection: (SQLTranslator, SQLScope) throws -> SQLSelection
    ) throws -> SQLFragment {
        try build(fetch, selection: selection)
    }

    private func build(
        _ fetch: StoreFetch, selection: (SQLTranslator, SQLScope) throws -> SQLSelection?
    ) throws -> SQLFragment {
        let scope = try translator.rootScope(for: entity)
        let table = try translator.schema.table(for: entity)
        let numbers = fetch.matchingEntities.map(\.facts.entityNumber)
        if numbers.count != table.root.facts.selfAndDescendants.count {
            scope.addCondition("t0.Z_ENT IN (\(raw: SQLList.numbers(numbers)))")
        }
        if let keys = fetch.restrictedToKeys {
            scope.addCondition(keys.isEmpty ? "FALSE" : "t0.Z_PK IN (\(raw: SQLList.numbers(keys)))")
        }
        if let predicate = fetch.predicate {
            let condition = try naming("predicate \(predicate.predicateFormat)") {
                try translator.condition(predicate, in: scope)
            }
            if condition.constantValue != true { scope.addCondition(condition.fragment) }
        }
        let selected = try selection(translator, scope)
        var order: [SQLFragment] = []
        for descriptor in fetch.sortDescriptors {
            order += try naming("sort descriptor \(descriptor)") { try translator.orderTerms(descriptor, in: scope) }
        }
        var statement = scope.body()
        if let selected {
            statement = "SELECT \(raw: selected.distinct ? "DISTINCT " : "")\(selected.columns) \(statement)"
            if let groupBy = selected.groupBy { statement = "\(statement) GROUP BY \(groupBy)" }
            if let having = selected.having { statement = "\(statement) HAVING \(having)" }
        }
        // Rows the descriptors leave tied come in primary-key order, so that a sorted fetch
        // is the same every time and its windows (offset and limit) tile it; a descriptor
        // that orders nothing (`self`) leaves every row tied. An index on an ascending sort
        // key already holds its rows in that order; a descending one sorts each run of ties.
        if !fetch.sortDescriptors.isEmpty, selected.map({ !$0.distinct && $0.groupBy == nil }) ?? true {
            order.append("t0.Z_PK")
        }
        if !order.isEmpty { statement = "\(statement) ORDER BY \(SQLFragment.joined(order, separator: ", "))" }
        return statement
    }

    /// ` LIMIT … OFFSET …` for a fetch's window (0 means none), or nothing when it has none.
    package static func window(_ fetch: StoreFetch, _ dialect: SQLDialect) -> String {
        guard fetch.limit > 0 || fetch.offset > 0 else { return "" }
        return " LIMIT \(fetch.limit > 0 ? String(fetch.limit) : dialect.noLimit) OFFSET \(fetch.offset)"
    }

    /// Runs a translation, adding what was being translated to its error.
    package func naming<T>(_ subject: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            var info = error.userInfo
            info[NSLocalizedDescriptionKey] = nil
            throw CoreDataError.make(error.code, "\(error.localizedDescription) (in \(subject))", info)
        }
    }
}

/// What a query selects, made in the fetch's root scope: the SELECT list and the
/// optional DISTINCT, GROUP BY and HAVING clauses.
package struct SQLSelection {
    package var columns: SQLFragment
    package var distinct = false
    package var groupBy: SQLFragment?
    package var having: SQLFragment?
}
