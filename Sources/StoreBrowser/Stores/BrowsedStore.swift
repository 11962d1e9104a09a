import CDToolCore
import Foundation
import OpenCoreData
import OpenCoreDataSQL

/// The store a browser shows, as its engine keeps it: how a container adds it, its database
/// for what Core Data's API does not say (rows in key order, `Z_OPT`, history counts), and
/// what the overview tells of it. One conformance per engine: a SQLite file
/// (``SQLiteBrowsedStore``) and a PostgreSQL database (``PostgreSQLBrowsedStore``).
protocol BrowsedStore: AnyObject {
    /// The store's type, for `NSPersistentStoreDescription.type`.
    var type: String { get }
    /// The store's URL, for `NSPersistentStoreDescription`.
    var url: URL { get }
    /// The options every opening of the store is added with (a PostgreSQL store's schema).
    var options: [String: NSObject] { get }
    /// The store's short name, for page titles: the file's, the database's.
    var name: String { get }

    /// Runs `body` with the store's database, read-only.
    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T

    /// The store's entities, tables and metadata; the model it caches (or, for a SQLite file,
    /// one inferred from its tables) when no `model` is given.
    func inspect(model: NSManagedObjectModel?) throws -> StoreInspection

    /// Where the store is and what its engine says of it, as the overview's first lines
    /// (plain text, escaped by the page).
    func facts() -> [(String, String)]

    /// The engine's own check of the database, when the browser can run one: its name and
    /// how to run it (its report as text).
    var integrityCheck: (name: String, run: () -> String)? { get }

    /// Options the store's read-write opening (`--allow-edits`) needs beside ``options``, so
    /// that opening it for writing changes nothing of how it is kept.
    func writingOptions() throws -> [String: NSObject]

    /// Closes the browser's own connection to the store.
    func close()
}

extension StoreBrowser {
    /// The store at `url` with `options`: a PostgreSQL database for a `postgres://` or
    /// `postgresql://` URL, a SQLite file otherwise.
    static func openStore(_ url: URL, options: [String: NSObject]) throws -> any BrowsedStore {
        if PostgreSQLBrowsedStore.accepts(url) { return try PostgreSQLBrowsedStore(url: url, options: options) }
        guard url.isFileURL else {
            throw CDToolError("\(url.scheme ?? "that") URLs are not stores: give a file, or a postgres:// URL")
        }
        guard options.isEmpty else {
            throw CDToolError("a SQLite store takes no options (\(options.keys.sorted().joined(separator: ", ")))")
        }
        return try SQLiteBrowsedStore(url: url)
    }
}
