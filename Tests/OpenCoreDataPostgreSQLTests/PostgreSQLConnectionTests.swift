import Foundation
import OpenCoreDataTestSupport
import Testing

@testable import OpenCoreDataPostgreSQL

/// The libpq client the PostgreSQL engine talks through: values in and out unchanged, the
/// server's errors with their codes, transactions, notifications, lost connections.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct PostgreSQLConnectionTests {
    private func connect() throws -> PostgreSQLConnection {
        try PostgreSQLConnection(url: try PostgreSQLTestServer.makeDatabase())
    }

    @Test func everyValueKindComesBackAsItWasBound() throws {
        let connection = try connect()
        try connection.execute(
            "CREATE TABLE item (id bigint PRIMARY KEY, count bigint, ratio double precision, name text, blob bytea, flag boolean)"
        )
        let rows: [[PostgreSQLValue]] = [
            [
                .integer(1), .integer(.max), .real(0.1), .text("Émile \"quoted\" 'single' 🍐"),
                .bytes(Data([0, 255, 92, 120])), .boolean(true),
            ],
            [.integer(2), .integer(.min), .real(-.infinity), .text(""), .bytes(Data()), .boolean(false)],
            [.integer(3), .null, .real(.leastNonzeroMagnitude), .null, .null, .null],
            [
                .integer(4), .integer(0), .real(.infinity), .text("x"), .bytes(Data(repeating: 7, count: 70_000)),
                .boolean(true),
            ],
        ]
        for row in rows {
            try connection.execute("INSERT INTO item VALUES ($1, $2, $3, $4, $5, $6)", row)
        }
        let result = try connection.execute("SELECT id, count, ratio, name, blob, flag FROM item ORDER BY id")
        #expect(result.rowCount == rows.count)
        #expect(result.columnCount == 6)
        for (index, row) in rows.enumerated() {
            #expect((0..<6).map { result.value(index, $0) } == row, "row \(index)")
        }
        #expect(result.columnIndex(named: "flag") == 5)
        #expect(result.columnIndex(named: "missing") == nil)

        try connection.execute("INSERT INTO item (id, ratio) VALUES ($1, $2)", [.integer(5), .real(.nan)])
        let nan = try connection.execute("SELECT ratio FROM item WHERE id = $1", [.integer(5)])
        #expect(nan.real(0, 0)?.isNaN == true)
    }

    /// Row fetches ask for the binary format; it must read every value as the text format does.
    @Test func theBinaryFormatReadsWhatTheTextFormatReads() throws {
        let connection = try connect()
        let expressions = [
            "1::int2", "(-32768)::int2", "-2::int4", "2147483647::int4", "9223372036854775807::int8",
            "(-9223372036854775807 - 1)::int8", "(-5)::numeric", "1.5::float4", "0.1::float4", "3::float8",
            "'42'::text", "'-7'::varchar", "0.1::float8", "-1e308::float8",
            "'NaN'::float8", "'-Infinity'::float8", "5e-324::float8", "true", "false", "'Émile \"q\" 🍐'::text",
            "''::text",
            "'v'::varchar(3)", "'\\x00ff5c'::bytea", "''::bytea", "NULL::int8", "NULL::text", "NULL::numeric",
            "12345678901234567::numeric", "-0.000123::numeric", "3.00::numeric", "100000000::numeric",
            "'NaN'::numeric", "1e-20::numeric", "123456789.987654321::numeric", "0::numeric", "-10000::numeric",
            "99999999999999999999::numeric", "-9223372036854775808::numeric", "0.5::numeric", "10000.0001::numeric",
            "SUM(x) FROM (VALUES (1::bigint), (2)) AS t(x)",
        ]
        for expression in expressions {
            let sql = "SELECT \(expression)"
            let text = try connection.execute(sql)
            let binary = try connection.execute(sql, binaryResults: true)
            let expected = text.value(0, 0)
            if case .real(let value) = expected, value.isNaN {
                #expect(binary.real(0, 0)?.isNaN == true, "\(expression)")
                continue
            }
            #expect(binary.value(0, 0) == expected, "\(expression)")
            #expect(binary.integer(0, 0) == text.integer(0, 0), "\(expression)")
            #expect(binary.real(0, 0) == text.real(0, 0), "\(expression)")
            #expect(binary.isNull(0, 0) == text.isNull(0, 0), "\(expression)")
            if case .bytes = expected {
                #expect(binary.bytes(0, 0) == text.bytes(0, 0), "\(expression)")
            } else if case .text = expected {
                #expect(binary.text(0, 0) == text.text(0, 0), "\(expression)")
            }
        }
    }

    @Test func changesReportTheRowsTheyTouched() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE item (id bigint PRIMARY KEY, name text)")
        for id in 1...3 {
            try connection.execute("INSERT INTO item VALUES ($1, $2)", [.integer(Int64(id)), .text("n")])
        }
        #expect(
            try connection.execute("UPDATE item SET name = $1 WHERE id >= $2", [.text("m"), .integer(2)])
                .affectedRowCount == 2)
        #expect(try connection.execute("DELETE FROM item").affectedRowCount == 3)
    }

    @Test func serverErrorsCarryTheirCodeAndMessageAndTheConnectionGoesOn() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE item (id bigint PRIMARY KEY)")
        try connection.execute("INSERT INTO item VALUES ($1)", [.integer(1)])
        let duplicate = #expect(throws: PostgreSQLError.self) {
            try connection.execute("INSERT INTO item VALUES ($1)", [.integer(1)])
        }
        #expect(duplicate?.kind == .statementFailed)
        #expect(duplicate?.isUniqueViolation == true)
        #expect(duplicate?.message.contains("item_pkey") == true, "\(String(describing: duplicate))")
        #expect(duplicate?.description.contains("INSERT INTO item") == true)

        let syntax = #expect(throws: PostgreSQLError.self) { try connection.execute("SELEKT 1") }
        #expect(syntax?.sqlState == "42601")
        #expect(try connection.execute("SELECT count(*) FROM item").integer(0, 0) == 1)
    }

    @Test func aTransactionCommitsWhenItsBodyReturnsAndRollsBackWhenItThrows() throws {
        struct Refused: Error {}
        let connection = try connect()
        try connection.execute("CREATE TABLE item (id bigint PRIMARY KEY)")
        #expect(throws: Refused.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO item VALUES ($1)", [.integer(1)])
                throw Refused()
            }
        }
        #expect(try connection.execute("SELECT count(*) FROM item").integer(0, 0) == 0)
        try connection.transaction { try connection.execute("INSERT INTO item VALUES ($1)", [.integer(2)]) }
        #expect(try connection.execute("SELECT id FROM item").integer(0, 0) == 2)
        // A statement failing inside the transaction rolls all of it back.
        #expect(throws: PostgreSQLError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO item VALUES ($1)", [.integer(3)])
                try connection.execute("INSERT INTO item VALUES ($1)", [.integer(2)])
            }
        }
        #expect(try connection.execute("SELECT count(*) FROM item").integer(0, 0) == 1)
    }

    @Test func aTransactionWhoseStatementFailedIsNeverReportedCommitted() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE item (id bigint PRIMARY KEY)")
        try connection.execute("INSERT INTO item VALUES ($1)", [.integer(1)])
        let error = #expect(throws: PostgreSQLError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO item VALUES ($1)", [.integer(2)])
                // The caller handles the duplicate and goes on, but the server has aborted
                // the transaction: committing it must not look like success.
                _ = try? connection.execute("INSERT INTO item VALUES ($1)", [.integer(1)])
            }
        }
        #expect(error?.sqlState == "25P02")
        #expect(try connection.execute("SELECT count(*) FROM item").integer(0, 0) == 1, "item 2 was not kept")

        try connection.transaction {
            try connection.execute("INSERT INTO item VALUES ($1)", [.integer(3)])
            try connection.transaction { try connection.execute("INSERT INTO item VALUES ($1)", [.integer(4)]) }
            #expect(try connection.execute("SELECT count(*) FROM item").integer(0, 0) == 3, "the inner one joined")
        }
        #expect(try connection.execute("SELECT count(*) FROM item").integer(0, 0) == 3)
    }

    /// A transaction's `BEGIN` goes with its first statement and its `COMMIT` with its
    /// notifications (two round trips for a one-statement transaction): a failure in either
    /// pair is the failing statement's, a connection lost with the first is a statement that
    /// committed nothing, one lost at the commit names `COMMIT` (its outcome unknown), and the
    /// connection goes on as before.
    @Test func aTransactionsFirstStatementAndCommitGoTogetherWithTheirNeighbours() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let connection = try PostgreSQLConnection(url: url)
        try connection.execute("CREATE TABLE item (id bigint PRIMARY KEY)")
        let divided = #expect(throws: PostgreSQLError.self) {
            try connection.transaction { try connection.execute("SELECT 1 / $1", [.integer(0)]) }
        }
        #expect(divided?.sqlState == "22012")
        #expect(divided?.statement == "SELECT 1 / $1")
        #expect(try connection.execute("SELECT 41 + 1").integer(0, 0) == 42, "the connection goes on")
        // libpq refuses to send more than 65,535 values, after the transaction's BEGIN was queued.
        let refused = #expect(throws: PostgreSQLError.self) {
            try connection.transaction {
                try connection.execute("SELECT 1", Array(repeating: .integer(1), count: 70_000))
            }
        }
        #expect(refused?.statement == "SELECT 1")
        #expect(try connection.execute("SELECT 41 + 1").integer(0, 0) == 42, "the connection left pipeline mode")
        let before = connection.roundTrips
        try connection.transaction {
            try connection.execute("INSERT INTO item VALUES ($1)", [.integer(1)])
            try connection.notify(channel: "items", payload: "1")
        }
        #expect(connection.roundTrips - before == 2)
        #expect(try connection.execute("SELECT count(*) FROM item").integer(0, 0) == 1)

        let ended = #expect(throws: PostgreSQLError.self) {
            try connection.transaction { try connection.execute("SELECT pg_terminate_backend(pg_backend_pid())") }
        }
        #expect(ended?.kind == .connectionLost, "\(String(describing: ended))")
        #expect(ended?.statement == "SELECT pg_terminate_backend(pg_backend_pid())")
        try connection.reconnect()

        // A check deferred to the commit ends the session there.
        try connection.executeScript(
            """
            CREATE FUNCTION end_session() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              PERFORM pg_terminate_backend(pg_backend_pid());
              PERFORM pg_sleep(1);
              RETURN NULL;
            END $$;
            CREATE CONSTRAINT TRIGGER end_session AFTER INSERT ON item DEFERRABLE INITIALLY DEFERRED
              FOR EACH ROW EXECUTE FUNCTION end_session();
            """)
        let listener = try PostgreSQLConnection(url: url)
        try listener.listen(to: "items")
        let atCommit = #expect(throws: PostgreSQLError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO item VALUES ($1)", [.integer(2)])
                try connection.notify(channel: "items", payload: "2")
            }
        }
        #expect(atCommit?.kind == .connectionLost, "\(String(describing: atCommit))")
        #expect(atCommit?.statement == "COMMIT")
        #expect(try listener.notifications(waitingUpTo: .milliseconds(300)).isEmpty)
        try connection.reconnect()
        #expect(try connection.execute("SELECT count(*) FROM item").integer(0, 0) == 1)
    }

    @Test func textHoldingANulCharacterIsRefusedNotShortened() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE item (name text)")
        let error = #expect(throws: PostgreSQLError.self) {
            try connection.execute("INSERT INTO item VALUES ($1)", [.text("a\u{0}b")])
        }
        #expect(error?.sqlState == "22021")
        #expect(try connection.execute("SELECT count(*) FROM item").integer(0, 0) == 0)
    }

    @Test func aServerThatIsNotThereIsAClearConnectionError() throws {
        let error = #expect(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(connectionString: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
        }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.message.isEmpty == false)
    }

    @Test func notificationsReachTheListenerAfterTheSendersCommit() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let listener = try PostgreSQLConnection(url: url)
        let sender = try PostgreSQLConnection(url: url)
        try listener.listen(to: "store changes")
        #expect(try listener.notifications(waitingUpTo: .milliseconds(50)).isEmpty)

        try sender.notify(channel: "store changes", payload: "token 41")
        let first = try listener.notifications(waitingUpTo: .seconds(10))
        #expect(
            first == [
                PostgreSQLNotification(channel: "store changes", payload: "token 41", processID: sender.serverProcessID)
            ])

        struct Abandoned: Error {}
        _ = try? sender.transaction {
            try sender.notify(channel: "store changes", payload: "rolled back")
            throw Abandoned()
        }
        try sender.transaction { try sender.notify(channel: "store changes", payload: "token 42") }
        let second = try listener.notifications(waitingUpTo: .seconds(10))
        #expect(second.map(\.payload) == ["token 42"], "a rolled-back transaction notifies nobody")
    }

    @Test func aLostConnectionFailsClearlyAndReconnects() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let connection = try PostgreSQLConnection(url: url)
        let other = try PostgreSQLConnection(url: url)
        try other.execute(
            "SELECT pg_terminate_backend($1::integer, 5000)", [.integer(Int64(connection.serverProcessID))])
        let lost = #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT 1") }
        #expect(lost?.kind == .connectionLost, "\(String(describing: lost))")
        #expect(!connection.isConnected)
        try connection.reconnect()
        #expect(try connection.execute("SELECT 41 + 1").integer(0, 0) == 42)
    }
}
