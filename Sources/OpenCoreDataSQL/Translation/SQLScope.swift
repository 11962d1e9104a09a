import OpenCoreDataCore
/// One SELECT being built: its FROM clause (a table and its joins), its WHERE
/// conditions, and what `SELF` and `$variables` mean inside it.
///
/// The fetch itself is the root scope; every to-many key path and `SUBQUERY` opens a
/// child scope that becomes a correlated subquery. Key paths through to-one
/// relationships add LEFT JOINs to the scope they are read in, one per path.
package final class SQLScope {
    package let parent: SQLScope?
    private let aliases: SQLAliases
    private var from: [SQLFragment]
    private var conditions: [SQLFragment] = []
    private var joinAliasByKey: [String: String] = [:]
    /// The evaluated object (`SELF`): the fetched row, or a `SUBQUERY` element.
    package var selfValue: SQLOperand
    private var variables: [String: SQLOperand] = [:]

    /// The root scope of a fetch from `table` aliased `alias`.
    package init(table: String, alias: String, entity: NSEntityDescription, aliases: SQLAliases) {
        self.parent = nil
        self.aliases = aliases
        self.from = ["\(raw: table) \(raw: alias)"]
        self.selfValue = .value(
            SQLValue("\(raw: alias).Z_PK", kind: .object(entity), isNullable: false, rowAlias: alias))
    }

    /// A child scope (a correlated subquery) reading from `from`.
    package init(parent: SQLScope, from: SQLFragment) {
        self.parent = parent
        self.aliases = parent.aliases
        self.from = [from]
        self.selfValue = parent.selfValue
    }

    /// A fresh table alias, unique in the whole statement.
    package func makeAlias() -> String { aliases.next() }

    /// Adds a JOIN clause.
    package func addJoin(_ join: SQLFragment) { from.append(join) }

    /// Adds a WHERE condition (ANDed with the others).
    package func addCondition(_ condition: SQLFragment) { conditions.append(condition) }

    /// The alias of the row of `table` whose primary key is `key`, LEFT JOINed once
    /// per distinct key expression so that `a.b.x` and `a.b.y` share one join.
    package func joinedRow(table: String, key: SQLFragment) -> String {
        let reuseKey = table + "|" + key.sql
        if key.arguments.isEmpty, let existing = joinAliasByKey[reuseKey] { return existing }
        let alias = makeAlias()
        addJoin("LEFT OUTER JOIN \(raw: table) \(raw: alias) ON \(raw: alias).Z_PK = \(key)")
        if key.arguments.isEmpty { joinAliasByKey[reuseKey] = alias }
        return alias
    }

    /// Binds a `SUBQUERY` iterator variable in this scope.
    package func bind(_ name: String, to value: SQLOperand) { variables[name] = value }

    /// The value of `$name`, looked up from this scope outwards.
    package func variable(_ name: String) -> SQLOperand? {
        variables[name] ?? parent?.variable(name)
    }

    /// `FROM … WHERE …` of this scope, with `extra` as a further condition.
    package func body(extra: SQLFragment? = nil) -> SQLFragment {
        let all = conditions + (extra.map { [$0] } ?? [])
        let fromClause = SQLFragment.joined(from, separator: " ")
        guard !all.isEmpty else { return "FROM \(fromClause)" }
        return "FROM \(fromClause) WHERE \(SQLFragment.joined(all.map { "(\($0))" }, separator: " AND "))"
    }
}

/// Hands out table aliases `t0`, `t1`, … for one statement.
package final class SQLAliases {
    private var count = 0

    package func next() -> String {
        defer { count += 1 }
        return "t\(count)"
    }
}
