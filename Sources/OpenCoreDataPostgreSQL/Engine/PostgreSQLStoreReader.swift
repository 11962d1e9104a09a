import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// A look into a PostgreSQL store for tools (the store browser): a connection of its own
/// whose session cannot write, for what Core Data's API does not say (its tables' rows by
/// key, the metadata, the cached model, the server).
///
/// Reads are serialized; a connection lost between them is made again once per read.
package final class PostgreSQLStoreReader: @unchecked Sendable {
    /// The store's URL and options, checked.
    package let settings: PostgreSQLConnectionSettings
    private let url: URL
    private let connection: PostgreSQLConnection
    private let lock = NSLock()

    /// Connects to the store `url` names, in the schema `options` name.
    ///
    /// - Throws: `NSPersistentStoreInvalidTypeError` for a URL or option that is not a
    ///   PostgreSQL store's, `NSPersistentStoreOpenError` when the server cannot be reached,
    ///   `NSFileReadNoSuchFileError` when the schema holds no store.
    package init(url: URL, options: [AnyHashable: Any]?) throws {
        let settings = try PostgreSQLConnectionSettings(url: url, options: options)
        self.settings = settings
        self.url = url
        connection = try PostgreSQLStore.connect(settings, creatingSchema: false)
        do {
            // Every later session too: a read that would write is the server's error.
            try connection.startSessions(with: settings.sessionStatements + ["SET default_transaction_read_only = on"])
            guard try PostgreSQLStore.hasStore(connection) else { throw PostgreSQLStore.noStore(settings) }
        } catch {
            connection.close()
            throw wrapped(error)
        }
    }

    deinit { connection.close() }

    /// Closes the connection; a read after this throws.
    package func close() { lock.withLock { connection.close() } }

    /// Runs `body` with the store's database, one read at a time. A connection lost during
    /// `body` is made again and `body` runs once more: it must only read.
    package func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try lock.withLock {
            let database = PostgreSQLDatabaseAdapter(connection: connection)
            do {
                return try body(database)
            } catch let error as PostgreSQLError where error.kind == .connectionLost {
                do {
                    try connection.reconnect()
                    return try body(database)
                } catch {
                    throw wrapped(error)
                }
            } catch {
                throw wrapped(error)
            }
        }
    }

    /// The store's metadata.
    package func metadata() throws -> [String: Any] {
        try read { _ in
            guard let metadata = try PostgreSQLStore.readMetadata(connection, url: url) else {
                throw PostgreSQLStore.noStore(settings)
            }
            return metadata
        }
    }

    /// The model the store caches (`Z_MODELCACHE`), `nil` when it caches none.
    package func cachedModel() throws -> NSManagedObjectModel? {
        try read { _ in try PostgreSQLStore.cachedModel(connection, url: url) }
    }

    /// The server's version (`server_version`, as `17.2 (Debian 17.2-1)`).
    package func serverVersion() throws -> String {
        try read { _ in try connection.run("SHOW server_version").text(0, 0) ?? "unknown" }
    }

    /// The bytes the tables of the store's schema take on the server, indexes included.
    package func storageSize() throws -> Int64 {
        try read { try $0.integer(PostgreSQLStatements.storageSize) } ?? 0
    }

    /// A server error as Core Data's, naming the store; other errors as they are.
    private func wrapped(_ error: any Error) -> any Error {
        guard let error = error as? PostgreSQLError else { return error }
        return PostgreSQLStore.operationError(error, settings)
    }
}
