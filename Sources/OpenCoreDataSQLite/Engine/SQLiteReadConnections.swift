import OpenCoreDataCore
internal import GRDB

/// The connections a file store reads on: its main connection, and read-only ones
/// opened when reads from several threads arrive at once (the coordinator lets reads
/// run side by side, never beside a write), as Core Data keeps a pool of connections.
///
/// A read takes an idle connection, the main one first (its statements are the warmest),
/// and opens another while fewer than ``maximumReaders`` exist; beyond that it queues on
/// the main connection, which GRDB serializes. A store in memory, or a file opened
/// immutable, has no path another connection could open and reads on the main one only.
final class SQLiteReadConnections: Sendable {
    /// The store's own connection, which every write uses.
    let main: SQLiteStoreConnection
    /// Where and how a read-only connection opens; `nil`: never.
    private let opening: (path: String, configuration: Configuration)?
    private let pool: LockedValue<Pool>

    private struct Pool {
        var idle: [SQLiteStoreConnection]
        var readers: [SQLiteStoreConnection] = []
        /// Readers being opened, counted so two threads cannot both open the last one.
        var opening = 0
        /// Set when a reader failed to open (a file whose folder cannot hold the shared
        /// memory file a read-only WAL reader needs, say): reads keep to the main connection.
        var cannotOpen = false
        var isClosed = false
    }

    /// How many read-only connections may exist beside the main one. Each keeps its own
    /// page cache and statements; more threads than this share the main connection.
    let maximumReaders: Int
    /// Three beside the main one: `NSPersistentStoreConnectionPoolMaxSizeKey`'s default of 4.
    static let defaultMaximumReaders = 3

    init(main: DatabaseQueue, path: String?, configuration: Configuration?, maximumReaders: Int = defaultMaximumReaders)
    {
        self.main = SQLiteStoreConnection(main)
        self.maximumReaders = maximumReaders
        if let path, let configuration { opening = (path, configuration) } else { opening = nil }
        pool = LockedValue(Pool(idle: [self.main]))
    }

    /// Every open connection, the main one first.
    var all: [SQLiteStoreConnection] { pool.withLock { [main] + $0.readers } }

    /// Runs `body` on a connection no other read is using, if one can be had, else on
    /// the main connection after the reads ahead of it.
    func withConnection<T>(_ body: (SQLiteStoreConnection) throws -> T) rethrows -> T {
        // The main connection stays first in line, so reads that come one at a time keep to it.
        let taken = pool.withLock { $0.idle.isEmpty ? nil : $0.idle.removeFirst() }
        guard let connection = taken ?? openReader() else { return try body(main) }
        defer {
            pool.withLock { pool in
                if connection === main { pool.idle.insert(connection, at: 0) } else { pool.idle.append(connection) }
            }
        }
        return try body(connection)
    }

    /// A new read-only connection, or `nil` when the store cannot have one (no file, or
    /// enough of them, all busy).
    private func openReader() -> SQLiteStoreConnection? {
        guard let opening else { return nil }
        let mayOpen = pool.withLock { pool in
            guard !pool.isClosed, !pool.cannotOpen, pool.readers.count + pool.opening < maximumReaders else {
                return false
            }
            pool.opening += 1
            return true
        }
        guard mayOpen else { return nil }
        let reader: DatabaseQueue?
        do {
            reader = try DatabaseQueue(path: opening.path, configuration: opening.configuration)
        } catch {
            reader = nil
            StoreDebugLog.annotate(
                "The SQLite store at \(opening.path) could not open a read connection (\(error)); its reads take turns on its main connection"
            )
        }
        return pool.withLock { pool in
            pool.opening -= 1
            guard let reader else {
                pool.cannotOpen = true
                return nil
            }
            let connection = SQLiteStoreConnection(reader)
            pool.readers.append(connection)
            return connection
        }
    }

    /// Closes every connection. The coordinator removes a store holding its lock alone,
    /// so no read is running.
    func close() {
        let readers = pool.withLock { pool in
            pool.isClosed = true
            pool.idle.removeAll()
            defer { pool.readers.removeAll() }
            return pool.readers
        }
        for reader in readers { try? reader.database.close() }
        try? main.database.close()
    }
}
