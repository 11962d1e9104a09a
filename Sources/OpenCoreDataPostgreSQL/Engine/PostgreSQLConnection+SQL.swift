import Foundation
import OpenCoreDataSQL

// Running OpenCoreDataSQL's statements with libpq: their `?` placeholders numbered as
// PostgreSQL's `$1`, `$2`…, their values converted to the client's.

extension PostgreSQLValue {
    /// The client's value for a statement builder's value (blobs as `bytea`).
    init(_ scalar: SQLScalar) {
        switch scalar {
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .real(value)
        case .text(let value): self = .text(value)
        case .blob(let value): self = .bytes(value)
        }
    }
}

extension PostgreSQLConnection {
    /// Runs a statement built by OpenCoreDataSQL (its rows in the binary format when `binaryResults`).
    @discardableResult
    func run(_ statement: SQLFragment, binaryResults: Bool = false) throws -> PostgreSQLResult {
        try execute(
            PostgreSQLPlaceholders.numbered(statement.sql), statement.arguments.map(PostgreSQLValue.init),
            binaryResults: binaryResults)
    }

    /// Runs a template with `values` bound to its placeholders, in order.
    @discardableResult
    func run(_ template: SQLTemplate, _ values: [SQLScalar]) throws -> PostgreSQLResult {
        try run(template.binding(values))
    }
}

extension PostgreSQLResult {
    /// The value at `row`, `column` as the statement builders' values are (Booleans as 0 and 1).
    func scalar(_ row: Int, _ column: Int) -> SQLScalar {
        switch value(row, column) {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .real(value)
        case .text(let value): .text(value)
        case .bytes(let value): .blob(value)
        case .boolean(let value): .integer(value ? 1 : 0)
        }
    }
}
