// A thin, hand-written layer over the SQLite C API, as a careful app would write it:
// prepared statements, bind/step/reset, columns read straight into Swift values.
// Kept apart from the GRDB file, which brings its own copy of the same C declarations.
import GRDBSQLite
import Foundation

/// One SQLite connection.
final class RawConnection {
    let handle: OpaquePointer
    private var isOpen = true

    /// Opens the database at `path` in WAL mode (the only pragma every contender sets).
    init(path: String) throws {
        var connection: OpaquePointer?
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            let connection
        else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(connection)
            throw BenchmarkError("cannot open \(path): \(message)")
        }
        handle = connection
        try execute("PRAGMA journal_mode = WAL")
    }

    deinit { close() }

    /// Closes the connection; the last one to close checkpoints the WAL into the database file.
    func close() {
        guard isOpen else { return }
        isOpen = false
        sqlite3_close_v2(handle)
    }

    /// Runs statements that return no rows we need.
    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw lastError(sql) }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw lastError(sql)
        }
        return RawStatement(handle: statement, connection: self)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    func lastError(_ sql: String) -> BenchmarkError {
        BenchmarkError(
            "SQLite error \(sqlite3_errcode(handle)) (\(String(cString: sqlite3_errmsg(handle)))) in: \(sql)")
    }

    /// The entity number Core Data gave `entityName` in this store.
    func entityNumber(_ entityName: String) throws -> Int64 {
        let statement = try prepare("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?")
        statement.bind(entityName, at: 1)
        guard try statement.step() else { throw BenchmarkError("no entity \(entityName) in Z_PRIMARYKEY") }
        return statement.int64(0)
    }
}

/// One prepared statement; parameters and columns are numbered as in SQLite (from 1 and 0).
final class RawStatement {
    let handle: OpaquePointer
    private let connection: RawConnection

    init(handle: OpaquePointer, connection: RawConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
    func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }
    func bind(_ value: Bool, at index: Int32) { sqlite3_bind_int64(handle, index, value ? 1 : 0) }
    func bindNull(at index: Int32) { sqlite3_bind_null(handle, index) }

    /// Binds text; SQLite copies it (SQLITE_TRANSIENT), as the Swift string's buffer is temporary.
    func bind(_ value: String?, at index: Int32) {
        guard let value else { return bindNull(at: index) }
        sqlite3_bind_text(handle, index, value, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    /// Dates as Core Data stores them: seconds since 2001-01-01.
    func bind(_ value: Date?, at index: Int32) {
        guard let value else { return bindNull(at: index) }
        bind(value.timeIntervalSinceReferenceDate, at: index)
    }

    /// Advances to the next row: true for a row, false when done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.lastError(String(cString: sqlite3_sql(handle)))
        }
    }

    /// Makes the statement ready to run again (bindings stay until rebound).
    func reset() { sqlite3_reset(handle) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func bool(_ column: Int32) -> Bool { sqlite3_column_int64(handle, column) != 0 }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func date(_ column: Int32) -> Date? {
        isNull(column) ? nil : Date(timeIntervalSinceReferenceDate: double(column))
    }
}

extension RawConnection {
    /// The SQLite library's version, for the report.
    static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}
