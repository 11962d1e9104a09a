import Foundation

/// A value bound to a statement's `$n` placeholder, or read from a result.
///
/// Core Data's schema needs only these: integers for keys, versions, entity numbers and
/// integer attributes; reals for floating-point, decimal-as-double and date attributes
/// (seconds since 2001, as Core Data stores them); text; bytes for binary data and
/// transformable values; Booleans.
package enum PostgreSQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case bytes(Data)
    case boolean(Bool)

    /// The value in PostgreSQL's text input format, or `nil` for SQL NULL; bytes are sent
    /// in the binary format instead (see ``isBinary``), so they are returned as they are.
    var wireBytes: [UInt8]? {
        switch self {
        case .null: nil
        case .integer(let value): Array(String(value).utf8)
        case .real(let value): Array(Self.text(of: value).utf8)
        case .text(let value): Array(value.utf8)
        case .bytes(let value): [UInt8](value)
        case .boolean(let value): value ? [0x74] : [0x66]  // "t", "f"
        }
    }

    /// Whether the value goes in PostgreSQL's binary format (bytes, which text would escape).
    var isBinary: Bool {
        if case .bytes = self { return true }
        return false
    }

    /// A double as text that reads back as the same double: Swift's shortest round-trip
    /// form, and PostgreSQL's names for the values that are not numbers.
    static func text(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }
}
