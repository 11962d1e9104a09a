import OpenCoreDataSQL
internal import GRDB
internal import GRDBSQLite

/// Binding values to prepared statements and running them with SQLite's C API.
///
/// Saves run one statement per written row (and one per history change); building GRDB
/// `StatementArguments` for each costs more than SQLite's own work, so the writers bind here.
enum DirectBinding {
    /// SQLite copies bound text and blobs (the Swift buffers don't outlive the call).
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds `text` to placeholder `index` of `handle`; returns SQLite's result code.
    static func bindText(_ text: String, _ handle: OpaquePointer?, _ index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            sqlite3_bind_text(
                handle, index,
                UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(
                    to: CChar.self), Int32(bytes.count), transient)
        }
    }

    /// Binds `value` to placeholder `index` of `handle`; returns SQLite's result code.
    static func bind(_ value: SQLScalar, _ handle: OpaquePointer?, _ index: Int32) -> Int32 {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case let .integer(number): sqlite3_bind_int64(handle, index, number)
        case let .real(number): sqlite3_bind_double(handle, index, number)
        case let .text(text): bindText(text, handle, index)
        case let .blob(data):
            data.withUnsafeBytes {
                sqlite3_bind_blob(
                    handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), transient)
            }
        }
    }

    /// Throws the connection's error for a binding that did not return `SQLITE_OK`.
    static func check(_ code: Int32, _ statement: Statement, _ db: Database) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: statement.sql)
        }
    }

    /// Runs a bound statement to completion and resets it (also when it fails).
    static func step(_ statement: Statement, _ db: Database) throws {
        let handle = statement.sqliteStatement
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        sqlite3_reset(handle)
    }
}
