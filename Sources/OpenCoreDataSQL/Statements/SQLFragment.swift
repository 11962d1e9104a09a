import OpenCoreDataCore

/// A piece of SQL text together with the values bound to its `?` placeholders.
///
/// Fragments compose by string interpolation: interpolating a fragment appends its
/// text and its arguments at once, so arguments always stay in the order SQLite
/// reads the placeholders, however deeply subqueries nest.
package struct SQLFragment: ExpressibleByStringInterpolation {
    /// The SQL text, with `?` for each argument.
    package private(set) var sql: String
    /// The bound values, in placeholder order.
    package private(set) var arguments: [SQLScalar]

    package init(sql: String, arguments: [SQLScalar] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    package init(stringLiteral value: String) {
        self.init(sql: value)
    }

    package init(stringInterpolation: Interpolation) {
        self.init(sql: stringInterpolation.sql, arguments: stringInterpolation.arguments)
    }

    /// A placeholder bound to `value`.
    package static func bind(_ value: SQLScalar) -> SQLFragment {
        SQLFragment(sql: "?", arguments: [value])
    }

    /// The fragments one after the other, `separator` between them.
    package static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment(sql: "")
        for (index, part) in parts.enumerated() {
            if index > 0 { result.sql += separator }
            result.sql += part.sql
            result.arguments += part.arguments
        }
        return result
    }

    /// Builds fragments from literals, raw SQL words and other fragments.
    package struct Interpolation: StringInterpolationProtocol {
        package var sql = ""
        package var arguments: [SQLScalar] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity)
        }

        package mutating func appendLiteral(_ literal: String) { sql += literal }

        /// Appends another fragment, arguments included.
        package mutating func appendInterpolation(_ fragment: SQLFragment) {
            sql += fragment.sql
            arguments += fragment.arguments
        }

        /// Appends SQL text that binds nothing (aliases, column and table names, numbers).
        package mutating func appendInterpolation(raw text: String) { sql += text }
    }
}
