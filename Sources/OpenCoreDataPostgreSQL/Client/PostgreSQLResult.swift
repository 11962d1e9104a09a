internal import CLibPQ
import Foundation

/// The rows (or the affected-row count) a statement returned, in PostgreSQL's text format or,
/// when the statement asked for it, its binary format.
///
/// Owns libpq's result and frees it when released; read it before the next statement on a
/// shared connection only if that matters to you (results do not depend on the connection).
package final class PostgreSQLResult {
    private let handle: OpaquePointer
    /// Whether the values are in PostgreSQL's binary format (the statement asked for it).
    package let isBinaryFormat: Bool

    init(handle: OpaquePointer) {
        self.handle = handle
        isBinaryFormat = PQnfields(handle) > 0 && PQfformat(handle, 0) == 1
    }
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

    /// The type OID of column `column` (``PostgreSQLType``).
    package func columnType(_ column: Int) -> UInt32 { UInt32(PQftype(handle, Int32(column))) }

    /// Whether the value at `row`, `column` is SQL NULL.
    package func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) != 0 }

    /// The value at `row`, `column`, typed by its column's type: integers, reals, Booleans
    /// and bytes as such, anything else as its text.
    package func value(_ row: Int, _ column: Int) -> PostgreSQLValue {
        guard !isNull(row, column) else { return .null }
        let type = PQftype(handle, Int32(column))
        if isBinaryFormat {
            switch type {
            case PostgreSQLType.bigint, PostgreSQLType.integer, PostgreSQLType.smallint:
                return integer(row, column).map(PostgreSQLValue.integer) ?? .null
            case PostgreSQLType.doublePrecision, PostgreSQLType.real:
                return real(row, column).map(PostgreSQLValue.real) ?? .null
            case PostgreSQLType.numeric: return numeric(row, column)
            case PostgreSQLType.boolean: return .boolean(field(row, column).first == 1)
            case PostgreSQLType.bytea: return .bytes(Data(field(row, column)))
            // Text, and types whose binary format is their text (varchar, name).
            default: return .text(String(decoding: field(row, column), as: UTF8.self))
            }
        }
        let text = self.text(row, column) ?? ""
        switch type {
        case PostgreSQLType.bigint, PostgreSQLType.smallint, PostgreSQLType.integer:
            return Int64(text).map(PostgreSQLValue.integer) ?? .text(text)
        case PostgreSQLType.real, PostgreSQLType.doublePrecision:
            return Double(text).map(PostgreSQLValue.real) ?? .text(text)
        case PostgreSQLType.numeric:
            // numeric: SUM and AVG of integers give it; whole values that fit stay integers, as
            // in memory, where a sum of integers is an integer while it fits.
            if let integer = Int64(text) { return .integer(integer) }
            return Double(text).map(PostgreSQLValue.real) ?? .text(text)
        case PostgreSQLType.boolean: return .boolean(text == "t")
        case PostgreSQLType.bytea: return bytes(row, column).map(PostgreSQLValue.bytes) ?? .null
        default: return .text(text)
        }
    }

    /// The value as text, or `nil` for NULL (in the binary format, a number's decimal text).
    package func text(_ row: Int, _ column: Int) -> String? {
        guard !isNull(row, column) else { return nil }
        guard isBinaryFormat else { return String(cString: PQgetvalue(handle, Int32(row), Int32(column))) }
        switch value(row, column) {
        case .integer(let value): return String(value)
        case .real(let value): return PostgreSQLValue.text(of: value)
        case .text(let value): return value
        case .boolean(let value): return value ? "t" : "f"
        case .null, .bytes: return String(decoding: field(row, column), as: UTF8.self)
        }
    }

    /// The value as an integer, or `nil` for NULL or a value that is not one.
    package func integer(_ row: Int, _ column: Int) -> Int64? {
        guard isBinaryFormat else { return text(row, column).flatMap { Int64($0) } }
        guard !isNull(row, column) else { return nil }
        let bytes = field(row, column)
        switch (PQftype(handle, Int32(column)), bytes.count) {
        case (PostgreSQLType.bigint, 8): return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
        case (PostgreSQLType.integer, 4): return Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self)))
        case (PostgreSQLType.smallint, 2): return Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self)))
        case (PostgreSQLType.numeric, _):
            if case .integer(let value) = numeric(row, column) { return value }
            return nil
        case (PostgreSQLType.doublePrecision, 8):
            // The text format writes whole doubles below 10^15 as plain digits, which read as integers.
            let value = Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
            return abs(value) < 1e15 ? Int64(exactly: value) : nil
        case (PostgreSQLType.bigint, _), (PostgreSQLType.integer, _), (PostgreSQLType.smallint, _),
            (PostgreSQLType.doublePrecision, _), (PostgreSQLType.real, _), (PostgreSQLType.boolean, _),
            (PostgreSQLType.bytea, _):
            return nil
        // Text (and other types read as their text), as the text format reads it.
        default: return text(row, column).flatMap { Int64($0) }
        }
    }

    /// The value as a double, or `nil` for NULL or a value that is not a number.
    package func real(_ row: Int, _ column: Int) -> Double? {
        guard isBinaryFormat else { return text(row, column).flatMap { Double($0) } }
        guard !isNull(row, column) else { return nil }
        let bytes = field(row, column)
        switch (PQftype(handle, Int32(column)), bytes.count) {
        case (PostgreSQLType.doublePrecision, 8):
            return Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
        case (PostgreSQLType.real, 4):
            // As the text format reads it: the float's shortest decimal, then as a double.
            let float = Float(bitPattern: UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))
            return float.isFinite ? Double(float.description) : Double(float)
        case (PostgreSQLType.numeric, _):
            switch numeric(row, column) {
            case .integer(let value): return Double(value)
            case .real(let value): return value
            default: return nil
            }
        default: return integer(row, column).map(Double.init)
        }
    }

    /// A `bytea` value's bytes, or `nil` for NULL.
    package func bytes(_ row: Int, _ column: Int) -> Data? {
        guard !isNull(row, column) else { return nil }
        if isBinaryFormat { return Data(field(row, column)) }
        var length = 0
        guard let unescaped = PQunescapeBytea(PQgetvalue(handle, Int32(row), Int32(column)), &length) else {
            return nil
        }
        defer { PQfreemem(unescaped) }
        return Data(bytes: unescaped, count: length)
    }

    // MARK: The binary format

    /// The bytes of a value, valid while the result lives.
    private func field(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(
            start: PQgetvalue(handle, Int32(row), Int32(column)),
            count: Int(PQgetlength(handle, Int32(row), Int32(column))))
    }

    /// A binary `numeric`: a count of base-10,000 digits, the weight of the first, a sign and
    /// the display scale, then the digits. Whole values that fit are integers (as in the text
    /// format); others are read as their decimal text, as the text format's are.
    private func numeric(_ row: Int, _ column: Int) -> PostgreSQLValue {
        let bytes = field(row, column)
        func word(_ index: Int) -> Int {
            Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)))
        }
        guard bytes.count >= 8 else { return .null }
        let count = word(0), weight = Int(Int16(truncatingIfNeeded: word(1))), sign = word(2), scale = word(3)
        guard bytes.count >= 8 + count * 2 else { return .null }
        switch sign {
        case 0xC000: return .real(.nan)
        case 0xD000: return .real(.infinity)
        case 0xF000: return .real(-.infinity)
        default: break
        }
        let digits = (0..<count).map { word(4 + $0) }
        // Digit i is worth 10,000^(weight − i); the text writes each as four decimal digits.
        func group(_ digit: Int) -> String {
            let text = String(digit)
            return String(repeating: "0", count: max(4 - text.count, 0)) + text
        }
        let whole =
            weight < 0
            ? "0"
            : (0...weight).map { $0 < digits.count ? digits[$0] : 0 }.enumerated()
                .map { $0.offset == 0 ? String($0.element) : group($0.element) }.joined()
        var fraction =
            String(repeating: "0000", count: max(-weight - 1, 0))
            + digits.dropFirst(max(weight + 1, 0)).map(group).joined()
        while fraction.last == "0" { fraction.removeLast() }
        let text = (sign == 0x4000 ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
        // A scale writes decimals (`3.00`), which the text format reads as a double too.
        if scale == 0, let integer = Int64(text) { return .integer(integer) }
        return Double(text).map(PostgreSQLValue.real) ?? .text(text)
    }
}
