internal import CLibPQ
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to a PostgreSQL server through libpq, used synchronously, as the store
/// seam is: each call sends a statement and waits for its result.
///
/// Calls are serialized by a lock, so the connection can be shared between threads, one
/// statement at a time; ``transaction(_:)`` holds the lock for the whole transaction, so no
/// other thread's statement lands inside it.
package final class PostgreSQLConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    private let lock = NSRecursiveLock()
    /// Statements every session of this connection runs first (the schema, the statement
    /// timeout), run again after ``reconnect()``, which starts a new session.
    private var sessionStatements: [String] = []
    /// Whether ``close()`` ended the connection: libpq's handle is gone, every call throws.
    private var isClosed = false
    /// Whether ``transaction(_:)`` began a transaction whose `BEGIN` is not sent yet: it goes
    /// with the transaction's first statement, in one round trip.
    private var beginPending = false
    /// The `pg_notify` statements ``notify(channel:payload:)`` made inside the open transaction: sent
    /// with its `COMMIT`, in one round trip (PostgreSQL delivers notifications at commit anyway).
    private var notificationsAtCommit: [(sql: String, parameters: [PostgreSQLValue])] = []
    /// Whether ``transaction(_:)`` is running its body (notifications then wait for its commit).
    private var runsTransaction = false

    /// Connects to the server a URL names (`postgres://user@host:port/database?…`, any form
    /// libpq accepts: `host=/path` in the query names a Unix socket folder).
    ///
    /// - Throws: ``PostgreSQLError`` of kind `connectionFailed` with libpq's reason.
    package convenience init(url: URL) throws {
        try self.init(connectionString: url.absoluteString)
    }

    /// Connects with a libpq connection string (a URL, or `key=value` pairs).
    package init(connectionString: String) throws {
        guard let handle = PQconnectdb(connectionString) else {
            throw PostgreSQLError(
                kind: .connectionFailed, sqlState: nil, message: "libpq could not allocate a connection",
                statement: nil)
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let reason = Self.message(of: handle)
            PQfinish(handle)
            throw PostgreSQLError(kind: .connectionFailed, sqlState: nil, message: reason, statement: nil)
        }
        self.handle = handle
        PQsetClientEncoding(handle, "UTF8")
    }

    deinit { if !isClosed { PQfinish(handle) } }

    /// Ends the session now rather than when the connection is released; later calls throw.
    package func close() {
        lock.withLock {
            guard !isClosed else { return }
            PQfinish(handle)
            isClosed = true
        }
    }

    /// Throws once ``close()`` ended the connection (called under the lock, before libpq's handle is used).
    private func checkOpen(_ statement: String?) throws {
        guard isClosed else { return }
        throw PostgreSQLError(
            kind: .connectionLost, sqlState: nil, message: "The connection was closed", statement: statement)
    }

    /// Whether the connection is up, as far as libpq last saw.
    package var isConnected: Bool {
        lock.withLock { !isClosed && PQstatus(handle) == CONNECTION_OK }
    }

    /// The server's process for this connection (what a notification's ``PostgreSQLNotification/processID``
    /// names when this connection sent it).
    package var serverProcessID: Int32 {
        lock.withLock { isClosed ? 0 : PQbackendPID(handle) }
    }

    /// Makes the connection again after it was lost, with the same parameters.
    ///
    /// - Throws: ``PostgreSQLError`` of kind `connectionFailed` when the server is still unreachable.
    package func reconnect() throws {
        try lock.withLock {
            try checkOpen(nil)
            PQreset(handle)
            guard PQstatus(handle) == CONNECTION_OK else {
                throw PostgreSQLError(
                    kind: .connectionFailed, sqlState: nil, message: Self.message(of: handle), statement: nil)
            }
            PQsetClientEncoding(handle, "UTF8")
            for statement in sessionStatements { try execute(statement) }
        }
    }

    /// Runs `statements` now and at the start of every later session (after ``reconnect()``).
    package func startSessions(with statements: [String]) throws {
        try lock.withLock {
            sessionStatements = statements
            for statement in statements { try execute(statement) }
        }
    }

    // MARK: Statements

    /// Runs one statement with values bound to its `$1`, `$2`… placeholders.
    ///
    /// - Parameter binaryResults: Whether the server sends the rows in its binary format,
    ///   which it writes and the client reads without formatting and parsing numbers as text
    ///   (row fetches, where that is most of the work); text otherwise.
    /// - Returns: The result: rows for a query, the affected row count for a change.
    /// - Throws: ``PostgreSQLError``: `statementFailed` with the server's SQLSTATE and
    ///   message, or `connectionLost`.
    @discardableResult
    package func execute(
        _ sql: String, _ parameters: [PostgreSQLValue] = [], binaryResults: Bool = false
    ) throws -> PostgreSQLResult {
        for case .text(let text) in parameters where text.utf8.contains(0) {
            // libpq reads text parameters up to their first NUL, and PostgreSQL's text cannot
            // hold one: refuse rather than store a shortened string.
            throw PostgreSQLError(
                kind: .statementFailed, sqlState: "22021",
                message: "PostgreSQL text cannot hold the character U+0000", statement: sql)
        }
        return try lock.withLock {
            try checkOpen(sql)
            if beginPending {
                beginPending = false
                return try pipelined([("BEGIN", []), (sql, parameters)], binaryResults: binaryResults)
            }
            return try exchange(sql, parameters, binaryResults: binaryResults)
        }
    }

    /// How many times this connection sent statements and waited for their results.
    package var roundTrips: Int { lock.withLock { exchanges } }
    private var exchanges = 0

    /// Sends one statement and waits for its result.
    private func exchange(
        _ sql: String, _ parameters: [PostgreSQLValue], binaryResults: Bool
    ) throws
        -> PostgreSQLResult
    {
        exchanges += 1
        let result = Self.withWireParameters(parameters) { types, values, lengths, formats in
            PQexecParams(handle, sql, Int32(parameters.count), types, values, lengths, formats, binaryResults ? 1 : 0)
        }
        return try checked(result, statement: sql)
    }

    /// Sends `statements` together (libpq's pipeline mode) and reads their results after: one
    /// round trip instead of one per statement. Statements after one that fails are skipped
    /// by the server; the first failure is thrown. Without pipeline mode (libpq before 14) the
    /// statements go one at a time.
    /// - Returns: The last statement's result.
    private func pipelined(
        _ statements: [(sql: String, parameters: [PostgreSQLValue])], binaryResults: Bool = false
    ) throws -> PostgreSQLResult {
        guard ocd_pq_enter_pipeline_mode(handle) == 1 else {
            var last: PostgreSQLResult?
            for (index, statement) in statements.enumerated() {
                let binary = binaryResults && index == statements.count - 1
                last = try exchange(statement.sql, statement.parameters, binaryResults: binary)
            }
            return last!
        }
        exchanges += 1
        var failure: PostgreSQLError?
        var queued = 0
        for (index, statement) in statements.enumerated() {
            let binary = binaryResults && index == statements.count - 1
            let sent = Self.withWireParameters(statement.parameters) { types, values, lengths, formats in
                PQsendQueryParams(
                    handle, statement.sql, Int32(statement.parameters.count), types, values, lengths, formats,
                    binary ? 1 : 0)
            }
            guard sent == 1 else {
                failure = lostOrFailed(statement.sql)
                break
            }
            queued += 1
        }
        // What was queued is synced and read to the end even after a failed send, so the
        // connection leaves pipeline mode idle.
        if ocd_pq_pipeline_sync(handle) != 1 {
            failure = failure ?? lostOrFailed(statements[0].sql)
            queued = 0
        }
        var last: PostgreSQLResult?
        for statement in statements.prefix(queued) {
            // Each statement's results end with a null result; a missing one means a lost connection.
            guard let result = PQgetResult(handle) else {
                failure = failure ?? lostOrFailed(statement.sql)
                break
            }
            while let extra = PQgetResult(handle) { PQclear(extra) }
            if ocd_pq_pipeline_result_kind(result) == 2 {
                // Skipped: an earlier statement failed.
                PQclear(result)
                continue
            }
            do {
                last = try checked(result, statement: statement.sql)
            } catch let error as PostgreSQLError {
                failure = failure ?? error
            }
        }
        // Up to the sync point, which ends the pipeline's results.
        while let result = PQgetResult(handle) {
            let isSync = ocd_pq_pipeline_result_kind(result) == 1
            PQclear(result)
            if isSync { break }
        }
        if ocd_pq_exit_pipeline_mode(handle) != 1 {
            // libpq still waits for results that will not come: this session cannot go on, so
            // a new one starts, and the caller sees a lost connection (which it may retry).
            try? reconnect()
            throw PostgreSQLError(
                kind: .connectionLost, sqlState: failure?.sqlState,
                message: failure?.message ?? "The connection was left waiting for results, and was made again",
                statement: failure?.statement ?? statements[0].sql)
        }
        if let failure { throw failure }
        guard let last else { throw lostOrFailed(statements[statements.count - 1].sql) }
        return last
    }

    /// The error of a statement libpq could not send or read: the connection is lost, or
    /// libpq says why.
    private func lostOrFailed(_ statement: String) -> PostgreSQLError {
        PostgreSQLError(
            kind: PQstatus(handle) == CONNECTION_OK ? .statementFailed : .connectionLost, sqlState: nil,
            message: Self.message(of: handle), statement: statement)
    }

    /// Runs statements separated by semicolons, without parameters (a schema's DDL).
    package func executeScript(_ sql: String) throws {
        try lock.withLock {
            try checkOpen(sql)
            if beginPending {
                beginPending = false
                try execute("BEGIN")
            }
            exchanges += 1
            _ = try checked(PQexec(handle, sql), statement: sql)
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// A lost connection rolls back on the server by itself; the error is rethrown either way.
    /// A statement that failed inside `body` aborts the transaction even when `body` caught
    /// its error: the transaction is then rolled back and throws, never reported committed.
    /// Called inside another transaction, `body` joins it.
    ///
    /// `BEGIN` goes with the body's first statement and `COMMIT` with the notifications the
    /// body sent, so a transaction of one statement takes two round trips, not four. A
    /// connection lost in the first of them lost nothing committed; in the last, the outcome
    /// is unknown, and the error's statement is `COMMIT`.
    @discardableResult
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            try checkOpen(nil)
            guard PQtransactionStatus(handle) == PQTRANS_IDLE, !beginPending else { return try body() }
            beginPending = true
            runsTransaction = true
            notificationsAtCommit = []
            defer {
                beginPending = false
                runsTransaction = false
                notificationsAtCommit = []
            }
            let value: T
            do {
                value = try body()
            } catch {
                rollBackIfConnected()
                throw error
            }
            if beginPending {
                // Nothing ran: there is no transaction to end, only notifications to send.
                beginPending = false
                for notification in notificationsAtCommit { try execute(notification.sql, notification.parameters) }
                return value
            }
            guard PQtransactionStatus(handle) == PQTRANS_INTRANS else {
                rollBackIfConnected()
                throw PostgreSQLError(
                    kind: PQstatus(handle) == CONNECTION_OK ? .statementFailed : .connectionLost, sqlState: "25P02",
                    message: "The transaction was rolled back: a statement in it failed", statement: nil)
            }
            do {
                _ = try pipelined(notificationsAtCommit + [("COMMIT", [])])
            } catch let error as PostgreSQLError where error.kind == .connectionLost {
                // The commit may have been sent: its outcome is the question, whichever statement failed.
                throw PostgreSQLError(
                    kind: .connectionLost, sqlState: error.sqlState, message: error.message, statement: "COMMIT")
            } catch {
                rollBackIfConnected()
                throw error
            }
            return value
        }
    }

    /// Ends the failed transaction on the server; a lost connection has already ended it.
    private func rollBackIfConnected() {
        guard !beginPending else { return }
        if PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) != PQTRANS_IDLE {
            _ = try? execute("ROLLBACK")
        }
    }

    // MARK: Notifications

    /// Starts receiving notifications sent on `channel` (`LISTEN`).
    package func listen(to channel: String) throws {
        try execute("LISTEN \(PostgreSQLIdentifier.quoted(channel))")
    }

    /// Sends `payload` to every connection listening on `channel`, when the current
    /// transaction commits (at once outside a transaction). PostgreSQL refuses payloads of
    /// 8,000 bytes or more.
    package func notify(channel: String, payload: String) throws {
        try lock.withLock {
            let statement = (
                sql: "SELECT pg_notify($1, $2)", parameters: [PostgreSQLValue.text(channel), .text(payload)]
            )
            if runsTransaction {
                notificationsAtCommit.append(statement)
            } else {
                try execute(statement.sql, statement.parameters)
            }
        }
    }

    /// The notifications that arrived, waiting up to `timeout` for the first when none has.
    ///
    /// Holds the connection while it waits: give listening a connection of its own.
    /// - Throws: ``PostgreSQLError`` of kind `connectionLost` when the connection broke.
    package func notifications(waitingUpTo timeout: Duration) throws -> [PostgreSQLNotification] {
        try lock.withLock {
            try checkOpen(nil)
            var received = try drainNotifications()
            guard received.isEmpty else { return received }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            let milliseconds = max(
                0,
                Int32(
                    clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
                ))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { received = try drainNotifications() }
            return received
        }
    }

    private func drainNotifications() throws -> [PostgreSQLNotification] {
        guard PQconsumeInput(handle) == 1 else {
            throw PostgreSQLError(
                kind: .connectionLost, sqlState: nil, message: Self.message(of: handle), statement: nil)
        }
        var received: [PostgreSQLNotification] = []
        while let notice = PQnotifies(handle) {
            received.append(
                PostgreSQLNotification(
                    channel: String(cString: notice.pointee.relname), payload: String(cString: notice.pointee.extra),
                    processID: notice.pointee.be_pid))
            PQfreemem(notice)
        }
        return received
    }

    // MARK: Results and errors

    /// The result, or the error it reports (a missing result means libpq lost the connection
    /// or ran out of memory).
    private func checked(_ result: OpaquePointer?, statement: String) throws -> PostgreSQLResult {
        guard let result else {
            throw PostgreSQLError(
                kind: PQstatus(handle) == CONNECTION_OK ? .statementFailed : .connectionLost, sqlState: nil,
                message: Self.message(of: handle), statement: statement)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgreSQLResult(handle: result)
        default:
            let sqlState = PQresultErrorField(result, Self.sqlStateField).map { String(cString: $0) }
            var message = PQresultErrorField(result, Self.primaryMessageField).map { String(cString: $0) }
            if message == nil { message = String(cString: PQresultErrorMessage(result)) }
            if let detail = PQresultErrorField(result, Self.detailField) { message! += ": " + String(cString: detail) }
            // A FATAL error ends the session, even while libpq has not yet seen the socket close
            // (a statement's error read in the middle of a pipeline).
            let severity = PQresultErrorField(result, Self.severityField).map { String(cString: $0) }
            PQclear(result)
            let lost = PQstatus(handle) != CONNECTION_OK || severity == "FATAL" || severity == "PANIC"
            throw PostgreSQLError(
                kind: lost ? .connectionLost : .statementFailed, sqlState: sqlState,
                message: (message ?? "").trimmingCharacters(in: .whitespacesAndNewlines), statement: statement)
        }
    }

    /// libpq's error-field codes (`PG_DIAG_SQLSTATE`, `PG_DIAG_MESSAGE_PRIMARY`,
    /// `PG_DIAG_MESSAGE_DETAIL`, `PG_DIAG_SEVERITY_NONLOCALIZED`): character constants C macros give and Swift does not import.
    private static let sqlStateField = Int32(UInt8(ascii: "C"))
    private static let primaryMessageField = Int32(UInt8(ascii: "M"))
    private static let detailField = Int32(UInt8(ascii: "D"))
    /// `PG_DIAG_SEVERITY_NONLOCALIZED`: the severity in English whatever the server's language.
    private static let severityField = Int32(UInt8(ascii: "V"))

    private static func message(of handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Calls `body` with libpq's parallel parameter arrays: type OIDs, values (NUL-terminated
    /// text, or raw bytes), lengths and formats, valid for the duration of the call.
    private static func withWireParameters<T>(
        _ parameters: [PostgreSQLValue],
        _ body: (
            UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?
        ) -> T
    ) -> T {
        guard !parameters.isEmpty else { return body(nil, nil, nil, nil) }
        var buffers: [UnsafeMutablePointer<CChar>] = []
        defer { buffers.forEach { $0.deallocate() } }
        var values: [UnsafePointer<CChar>?] = []
        var lengths: [Int32] = []
        for parameter in parameters {
            guard let bytes = parameter.wireBytes else {
                values.append(nil)
                lengths.append(0)
                continue
            }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBytes { raw in
                UnsafeMutableRawPointer(buffer).copyMemory(
                    from: raw.baseAddress ?? UnsafeRawPointer(buffer), byteCount: bytes.count)
            }
            buffer[bytes.count] = 0
            buffers.append(buffer)
            values.append(UnsafePointer(buffer))
            lengths.append(Int32(bytes.count))
        }
        let types = parameters.map(\.typeOID)
        let formats = parameters.map { Int32($0.isBinary ? 1 : 0) }
        return types.withUnsafeBufferPointer { types in
            values.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(types.baseAddress, values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }
}

/// A notification a listening connection received.
package struct PostgreSQLNotification: Sendable, Equatable {
    /// The channel it was sent on.
    package let channel: String
    /// What the sender attached (empty when nothing).
    package let payload: String
    /// The server process of the sending connection.
    package let processID: Int32
}

/// Names in PostgreSQL's SQL.
package enum PostgreSQLIdentifier {
    /// `name` as a quoted identifier, which keeps its case and any character.
    package static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension PostgreSQLValue {
    /// The parameter's type, so the server does not guess (`0` lets it infer a NULL's).
    var typeOID: Oid {
        switch self {
        case .null: 0
        case .integer: PostgreSQLType.bigint
        case .real: PostgreSQLType.doublePrecision
        case .text: PostgreSQLType.text
        case .bytes: PostgreSQLType.bytea
        case .boolean: PostgreSQLType.boolean
        }
    }
}
