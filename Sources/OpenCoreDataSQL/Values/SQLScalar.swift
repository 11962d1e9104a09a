import Foundation

/// One value as an SQL engine stores it: NULL, a 64-bit integer, a double, text or bytes.
///
/// Core Data's SQL schema uses only these five kinds (dates as seconds since 2001,
/// Booleans as 0/1, UUIDs as 16 bytes; see ``SQLValueCoding``), so the statement builders
/// and the predicate translation bind them without knowing the engine that runs them:
/// each engine converts them to its client's own values when it binds.
package enum SQLScalar: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// An integer (SQLite INTEGER, PostgreSQL BIGINT).
    case integer(Int64)
    /// A floating-point number (SQLite REAL, PostgreSQL DOUBLE PRECISION).
    case real(Double)
    /// Text (TEXT in both).
    case text(String)
    /// Bytes (SQLite BLOB, PostgreSQL BYTEA).
    case blob(Data)

    /// Whether the value is SQL NULL.
    package var isNull: Bool { self == .null }

    /// The value as messages show it: text quoted, bytes by their count.
    package var sqlDescription: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): String(reflecting: value)
        case .blob(let value): "\(value.count) bytes"
        }
    }

    /// The value as an integer: an integer, or a real with an integral value in range
    /// (as a key another program wrote as 3.0); `nil` for anything else.
    package var exactInteger: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value)
        default: nil
        }
    }
}

/// Swift values with an obvious SQL scalar, so builders can write `key.sqlScalar`.
package protocol SQLScalarConvertible {
    /// The value as an SQL scalar.
    var sqlScalar: SQLScalar { get }
}

extension Int64: SQLScalarConvertible {
    package var sqlScalar: SQLScalar { .integer(self) }
}

extension Int: SQLScalarConvertible {
    package var sqlScalar: SQLScalar { .integer(Int64(self)) }
}

extension Int32: SQLScalarConvertible {
    package var sqlScalar: SQLScalar { .integer(Int64(self)) }
}

extension Int16: SQLScalarConvertible {
    package var sqlScalar: SQLScalar { .integer(Int64(self)) }
}

extension Double: SQLScalarConvertible {
    package var sqlScalar: SQLScalar { .real(self) }
}

extension String: SQLScalarConvertible {
    package var sqlScalar: SQLScalar { .text(self) }
}

extension Data: SQLScalarConvertible {
    package var sqlScalar: SQLScalar { .blob(self) }
}

extension Optional: SQLScalarConvertible where Wrapped: SQLScalarConvertible {
    package var sqlScalar: SQLScalar { map(\.sqlScalar) ?? .null }
}
