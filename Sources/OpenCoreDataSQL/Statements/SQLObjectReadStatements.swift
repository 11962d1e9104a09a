import OpenCoreDataCore

/// The statements that read stored objects by key rather than by predicate: the row a
/// fault fires from, the rows of many keys at once, the members of a to-many (for one
/// object's fault, or for many objects when prefetching), and what a save's conflict
/// checks read (versions, objects holding constrained values).
///
/// A list of keys is bound as one value (a JSON array that `json_each` expands in SQLite), so a batch of any
/// size runs the same prepared statement. Row reads take the row layout's SELECT list
/// (`SQLRowLayout.selectList`, columns of the table aliased `t0`).
package enum SQLObjectReadStatements {
    /// `t0.Z_PK, t0.Z_ENT, …`: `columns` of the table aliased `t0`, as row reads select
    /// them (made once per row layout).
    package static func selectList(_ columns: [String]) -> String {
        SQLList.of(columns.map { "t0." + $0 })
    }

    /// `SELECT <columns> FROM <table> t0 WHERE t0.Z_PK = ?`: one row by its key, kept per
    /// entity and bound per fault.
    package static func row(_ columns: String, table: String) -> SQLTemplate {
        SQLTemplate(sql: "SELECT \(columns) FROM \(table) t0 WHERE t0.Z_PK = ?")
    }

    /// The rows of `keys` in `table`.
    package static func rows(_ columns: String, table: String, keys: [Int64], dialect: SQLDialect) -> SQLFragment {
        "SELECT \(raw: columns) FROM \(raw: table) t0 WHERE \(member("t0.Z_PK", of: keys, dialect))"
    }

    /// The keys and entity numbers of the members of the to-many stored as `storage`
    /// whose source row is `key`, in the relationship's order when it keeps one.
    package static func memberIDs(of key: Int64, storage: ToManyStorage, destinationTable: String) -> SQLFragment {
        switch storage {
        case .joinTable(let join):
            let order = join.orderColumn.map { " ORDER BY j.\($0)" } ?? ""
            return
                "SELECT t.Z_PK, t.Z_ENT FROM \(raw: join.name) j JOIN \(raw: destinationTable) t ON t.Z_PK = j.\(raw: join.destinationColumn) WHERE j.\(raw: join.sourceColumn) = \(.bind(key.sqlScalar))\(raw: order)"
        case .hiddenColumn(let hidden):
            return "SELECT Z_PK, Z_ENT FROM \(raw: destinationTable) WHERE \(raw: hidden) = \(.bind(key.sqlScalar))"
        case .inverseKey(_, let column, let orderColumn):
            let order = orderColumn.map { " ORDER BY \($0), Z_PK" } ?? ""
            return
                "SELECT Z_PK, Z_ENT FROM \(raw: destinationTable) WHERE \(raw: column) = \(.bind(key.sqlScalar))\(raw: order)"
        }
    }

    /// The members of the to-many stored as `storage` for all the source rows `keys`
    /// (prefetching): each row's source key, then the layout's `columns`; grouped by
    /// source, in the relationship's order when it keeps one.
    package static func members(
        of keys: [Int64], storage: ToManyStorage, destinationTable: String, columns: String, dialect: SQLDialect
    ) -> SQLFragment {
        switch storage {
        case .joinTable(let join):
            let order = join.orderColumn.map { ", j.\($0)" } ?? ""
            return
                "SELECT j.\(raw: join.sourceColumn), \(raw: columns) FROM \(raw: join.name) j JOIN \(raw: destinationTable) t0 ON t0.Z_PK = j.\(raw: join.destinationColumn) WHERE \(member("j.\(join.sourceColumn)", of: keys, dialect)) ORDER BY j.\(raw: join.sourceColumn)\(raw: order)"
        case .hiddenColumn(let hidden):
            return
                "SELECT t0.\(raw: hidden), \(raw: columns) FROM \(raw: destinationTable) t0 WHERE \(member("t0.\(hidden)", of: keys, dialect))"
        case .inverseKey(_, let column, let orderColumn):
            let order = orderColumn.map { " ORDER BY t0.\(column), t0.\($0), t0.Z_PK" } ?? ""
            return
                "SELECT t0.\(raw: column), \(raw: columns) FROM \(raw: destinationTable) t0 WHERE \(member("t0.\(column)", of: keys, dialect))\(raw: order)"
        }
    }

    /// `Z_PK, Z_OPT` of the rows of `keys` in `table`: the versions a save's optimistic locking compares.
    ///
    /// `locking`: the rows stay locked to the transaction (in key order, so two savers
    /// lock in the same order), so no other writer can change them between the check and
    /// the write; for engines whose write transactions do not exclude each other.
    package static func versions(of keys: [Int64], table: String, dialect: SQLDialect, locking: Bool) -> SQLFragment {
        let query: SQLFragment = "SELECT Z_PK, Z_OPT FROM \(raw: table) WHERE \(member("Z_PK", of: keys, dialect))"
        return locking ? "\(query) ORDER BY Z_PK FOR UPDATE" : query
    }

    /// `Z_PK, Z_ENT` of the objects of `entity` (in `table`) whose `columns` hold
    /// `values`: the rows a uniqueness constraint compares a saved object with.
    package static func objects(
        of entity: NSEntityDescription, table: String, where columns: [String], equal values: [SQLScalar]
    ) -> SQLFragment {
        let conditions = zip(columns, values).map { column, value -> SQLFragment in "\(raw: column) = \(.bind(value))" }
        return
            "SELECT Z_PK, Z_ENT FROM \(raw: table) WHERE Z_ENT IN (\(raw: SQLList.entityNumbers(of: entity))) AND \(.joined(conditions, separator: " AND "))"
    }

    /// The objects of `entity` whose `properties` equal `values` (attributes as stored values,
    /// to-ones as IDs of saved objects), as a save's uniqueness check asks; `nil` when no row
    /// can match (a to-one without a saved destination, a property without a column).
    package static func objects(
        of entity: NSEntityDescription, where properties: [NSPropertyDescription], equal values: [Any?],
        schema: SQLSchema
    ) throws -> SQLFragment? {
        guard properties.count == values.count, !properties.isEmpty else { return nil }
        var columns: [String] = []
        var arguments: [SQLScalar] = []
        for (property, value) in zip(properties, values) {
            guard let column = schema.column(for: property) else { return nil }
            columns.append(column)
            switch property {
            case is NSRelationshipDescription:
                guard let key = (value as? NSManagedObjectID)?.primaryKey else { return nil }
                arguments.append(key.sqlScalar)
            case let attribute as NSAttributeDescription:
                arguments.append(
                    try SQLValueCoding.scalar(
                        value, type: attribute.attributeType, transformerName: attribute.valueTransformerName))
            default:
                return nil
            }
        }
        return objects(
            of: entity, table: try schema.table(for: entity.facts.root).name, where: columns, equal: arguments)
    }

    /// `column` is one of `keys`, bound as one value (a JSON array for SQLite, an array for
    /// PostgreSQL), so a batch of any size is one statement.
    private static func member(_ column: String, of keys: [Int64], _ dialect: SQLDialect) -> SQLFragment {
        dialect.keyMembership(column, dialect.keyListText(keys))
    }
}
