import Foundation

/// How a value a deletion keeps is stored in a `ZTOMBSTONE<n>` column.
///
/// The n-th tombstone column holds the n-th kept attribute of whichever entity the
/// change is about, so one column meets values of every type. SQLite's columns take any
/// value as it is, as Core Data stores them. PostgreSQL's columns have one type: there
/// the column is text, and each value is stored with a one-letter tag of its kind
/// (`i` integer, `r` real, `t` text, `b` bytes in base 64), read back as exactly the value
/// the row held.
package enum SQLHistoryTombstone {
    /// The value to store for `value`, a column value of the deleted row.
    package static func stored(_ value: SQLScalar, _ dialect: SQLDialect) -> SQLScalar {
        guard dialect == .postgreSQL else { return value }
        switch value {
        case .null: return .null
        // Swift's description of a Double reads back as the same Double (nan and infinities too).
        case .integer(let number): return .text("i\(number)")
        case .real(let number): return .text("r\(number)")
        case .text(let text): return .text("t" + text)
        case .blob(let bytes): return .text("b" + bytes.base64EncodedString())
        }
    }

    /// The value the deleted row held, from what `stored(_:_:)` stored; NULL for text
    /// that is no such encoding (a damaged or foreign row), never a made-up value.
    package static func value(_ stored: SQLScalar, _ dialect: SQLDialect) -> SQLScalar {
        // The tag is one ASCII byte: read by scalar, since a body starting with a combining
        // mark would join the tag in one Character.
        guard dialect == .postgreSQL, case .text(let text) = stored, let tag = text.unicodeScalars.first else {
            return stored
        }
        let body = String(text.unicodeScalars.dropFirst())
        switch tag {
        case "i": return Int64(body).map(SQLScalar.integer) ?? .null
        case "r": return Double(body).map(SQLScalar.real) ?? .null
        case "t": return .text(body)
        case "b": return Data(base64Encoded: body).map(SQLScalar.blob) ?? .null
        default: return .null
        }
    }
}
