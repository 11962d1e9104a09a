import OpenCoreDataCore
/// A translated predicate: SQL that is true, false or NULL.
///
/// A fetch drops rows whose condition is NULL, which is what in-memory evaluation
/// does with a comparison involving `nil`, and AND/OR keep "NULL means false". Only
/// NOT would turn such a NULL into a match, so it coalesces nullable conditions.
package struct SQLCondition {
    package var fragment: SQLFragment
    /// Whether the SQL can be NULL.
    package var isNullable: Bool

    package init(_ fragment: SQLFragment, isNullable: Bool) {
        self.fragment = fragment
        self.isNullable = isNullable
    }

    // TRUE and FALSE, which SQLite (3.23 on) and PostgreSQL both read; PostgreSQL has no
    // integers as conditions.
    package static let alwaysTrue = SQLCondition("TRUE", isNullable: false)
    package static let alwaysFalse = SQLCondition("FALSE", isNullable: false)

    package static func constant(_ value: Bool) -> SQLCondition { value ? alwaysTrue : alwaysFalse }

    /// The condition's value when it is a constant.
    package var constantValue: Bool? {
        switch fragment.sql {
        case "TRUE": true
        case "FALSE": false
        default: nil
        }
    }

    /// NOT, with NULL counting as false.
    package var negated: SQLCondition {
        if let value = constantValue { return .constant(!value) }
        return SQLCondition(isNullable ? "NOT COALESCE(\(fragment), FALSE)" : "NOT (\(fragment))", isNullable: false)
    }

    package static func and(_ parts: [SQLCondition]) -> SQLCondition {
        if parts.contains(where: { $0.constantValue == false }) { return .alwaysFalse }
        let remaining = parts.filter { $0.constantValue != true }
        if remaining.isEmpty { return .alwaysTrue }
        if remaining.count == 1 { return remaining[0] }
        return SQLCondition(
            .joined(remaining.map { "(\($0.fragment))" }, separator: " AND "),
            isNullable: remaining.contains { $0.isNullable })
    }

    package static func or(_ parts: [SQLCondition]) -> SQLCondition {
        if parts.contains(where: { $0.constantValue == true }) { return .alwaysTrue }
        let remaining = parts.filter { $0.constantValue != false }
        if remaining.isEmpty { return .alwaysFalse }
        if remaining.count == 1 { return remaining[0] }
        return SQLCondition(
            .joined(remaining.map { "(\($0.fragment))" }, separator: " OR "),
            isNullable: remaining.contains { $0.isNullable })
    }
}
