internal import CLibPQ
import Foundation

/// The rows (or the affected-row count) a statement returned, in PostgreSQL's text format.
///
/// Owns libpq's result and frees it when released; read it before the next statement on a
/// shared connection only if that matters to you (results do not depend on the connection).
package final class PostgreSQLResult {
    private let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }
    deinit { PQclear(handle) }

    /// How many rows came back.
    package var rowCount: Int { Int(PQntuples(handle)) }
    /// How many columns each row has.
    package var columnCount: Int { Int(PQnfields(handle)) }
    /// How many rows an `INSERT`, `UPDATE` or `DELETE` touched (0 for other statements).
    package var affectedRowCount: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// The index of the column named `name`, or `nil`.
    package func columnIndex(named name: String) -> Int? {
        let index = PQfnumber(handle, PostgreSQLIdentifier.quoted(name))
        return index < 0 ? nil : Int(index)
    }

    /// The name of column `column`.
    package func columnName(_ column: Int) -> String { String(cString: PQfname(handle, Int32(column))) }

    /// Whether the value at `row`, `column` is SQL NULL.
    package func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) != 0 }

    /// The value at `row`, `column`, typed by its column's type: integers, reals, Booleans
    /// and bytes as such, anything else as its text.
    package func value(_ row: Int, _ column: Int) -> PostgreSQLValue {
        guard !isNull(row, column) else { return .null }
        let text = self.text(row, column) ?? ""
        switch PQftype(handle, Int32(column)) {
        case 20, 21, 23: return Int64(text).map(PostgreSQLValue.integer) ?? .text(text)  // int8, int2, int4
        case 700, 701: return Double(text).map(PostgreSQLValue.real) ?? .text(text)  // float4, float8
        case 1700:
            // numeric: SUM and AVG of integers give it; whole values that fit stay integers, as
            // in memory, where a sum of integers is an integer while it fits.
            if let integer = Int64(text) { return .integer(integer) }
            return Double(text).map(PostgreSQLValue.real) ?? .text(text)
        case 16: return .boolean(text == "t")
        case 17: return bytes(row, column).map(PostgreSQLValue.bytes) ?? .null
        default: return .text(text)
        }
    }

    /// The value as text, or `nil` for NULL.
    package func text(_ row: Int, _ column: Int) -> String? {
        guard !isNull(row, column) else { return nil }
        return String(cString: PQgetvalue(handle, Int32(row), Int32(column)))
    }

    /// The value as an integer, or `nil` for NULL or a value that is not one.
    package func integer(_ row: Int, _ column: Int) -> Int64? {
        text(row, column).flatMap { Int64($0) }
    }

    /// The value as a double, or `nil` for NULL or a value that is not a number.
    package func real(_ row: Int, _ column: Int) -> Double? {
        text(row, column).flatMap { Double($0) }
    }

    /// A `bytea` value's bytes, or `nil` for NULL.
    package func bytes(_ row: Int, _ column: Int) -> Data? {
        guard !isNull(row, column) else { return nil }
        var length = 0
        guard let unescaped = PQunescapeBytea(PQgetvalue(handle, Int32(row), Int32(column)), &length) else {
            return nil
        }
        defer { PQfreemem(unescaped) }
        return Data(bytes: unescaped, count: length)
    }
}
