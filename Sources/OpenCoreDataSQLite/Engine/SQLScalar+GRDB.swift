import Foundation
import OpenCoreDataSQL
internal import GRDB
internal import GRDBSQLite

// The shared statement builders bind `SQLScalar`s; GRDB binds and reads `DatabaseValue`s.

extension SQLScalar {
    /// The value GRDB read.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case let .int64(number): self = .integer(number)
        case let .double(number): self = .real(number)
        case let .string(text): self = .text(text)
        case let .blob(data): self = .blob(data)
        }
    }

    /// Column `index` of the current row of `statement`, read with SQLite's C API (the row decoder's path).
    init(sqliteStatement statement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL: self = .null
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: self = .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT: self = .text(String(cString: sqlite3_column_text(statement, index)))
        default:
            let count = Int(sqlite3_column_bytes(statement, index))
            self = .blob(count == 0 ? Data() : Data(bytes: sqlite3_column_blob(statement, index), count: count))
        }
    }

    /// The value for GRDB to bind.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case let .integer(number): number.databaseValue
        case let .real(number): number.databaseValue
        case let .text(text): text.databaseValue
        case let .blob(data): data.databaseValue
        }
    }
}

extension StatementArguments {
    /// Arguments binding `scalars` in order.
    init(_ scalars: [SQLScalar]) {
        self.init(scalars.map(\.databaseValue))
    }
}
