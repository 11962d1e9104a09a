import Foundation
import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing

/// The SQLite store's read connections: the main one first, read-only ones opened while
/// it is busy, up to a bound, and the main one again when no other can be had.
@Suite struct SQLiteReadConnectionsTests {
    static func readOnly() -> Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    /// A file database (WAL) with one table, and its main connection.
    static func fileDatabase() throws -> (DatabaseQueue, URL) {
        let url = temporaryStoreURL("Pool")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let main = try DatabaseQueue(path: url.path)
        try main.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (42)")
        }
        return (main, url)
    }

    /// Takes `depth` connections at once (each inside the previous one's use), reading
    /// the table on each; the connections in the order taken.
    static func nest(_ pool: SQLiteReadConnections, depth: Int) throws -> [SQLiteStoreConnection] {
        guard depth > 0 else { return [] }
        return try pool.withConnection { connection in
            #expect(try connection.database.read { try Int.fetchOne($0, sql: "SELECT x FROM t") } == 42)
            return [connection] + (try nest(pool, depth: depth - 1))
        }
    }

    @Test func busyReadsOpenReadOnlyConnectionsUpToTheBoundThenShareTheMainOne() throws {
        let (main, url) = try Self.fileDatabase()
        let pool = SQLiteReadConnections(main: main, path: url.path, configuration: Self.readOnly())
        defer { pool.close() }
        let bound = SQLiteReadConnections.defaultMaximumReaders
        let taken = try Self.nest(pool, depth: bound + 2)
        #expect(taken[0] === pool.main)
        #expect(Set(taken[0...bound].map(ObjectIdentifier.init)).count == bound + 1)
        #expect(taken[bound + 1] === pool.main)
        #expect(pool.all.count == bound + 1)
        // The readers are read-only.
        #expect(throws: DatabaseError.self) {
            try taken[1].database.writeWithoutTransaction { try $0.execute(sql: "DELETE FROM t") }
        }
        // Freed connections are reused: nothing more opens.
        _ = try Self.nest(pool, depth: bound + 1)
        #expect(pool.all.count == bound + 1)
    }

    @Test func aDatabaseInMemoryReadsOnItsMainConnectionOnly() throws {
        let main = try DatabaseQueue()
        try main.write { try $0.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (42)") }
        let pool = SQLiteReadConnections(main: main, path: nil, configuration: nil)
        let taken = try Self.nest(pool, depth: 3)
        #expect(taken.allSatisfy { $0 === pool.main })
        #expect(pool.all.count == 1)
    }

    @Test func aReaderThatCannotOpenLeavesReadsOnTheMainConnection() throws {
        let (main, url) = try Self.fileDatabase()
        let missing = url.deletingLastPathComponent().appendingPathComponent("missing/Pool.sqlite")
        let pool = SQLiteReadConnections(main: main, path: missing.path, configuration: Self.readOnly())
        defer { pool.close() }
        let notes = LockedValue<[String]>([])
        let token = StoreDebugLog.addAnnotationObserver { note in notes.withLock { $0.append(note) } }
        defer { StoreDebugLog.removeAnnotationObserver(token) }
        let taken = try Self.nest(pool, depth: 3)
        #expect(taken.allSatisfy { $0 === pool.main })
        #expect(pool.all.count == 1)
        // Said once (OPENCOREDATA_SQL_DEBUG prints it): later reads do not try again.
        #expect(notes.withLock { $0.filter { $0.contains(missing.path) } }.count == 1)
    }
}
