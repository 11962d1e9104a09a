import CDToolCore
import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataSQL

/// A PostgreSQL store (`postgres://user@host:port/database`, in the schema the options
/// name), read on a connection of its own whose session cannot write.
final class PostgreSQLBrowsedStore: BrowsedStore {
    let url: URL
    let options: [String: NSObject]
    var type: String { NSPostgreSQLStoreType }
    private let reader: PostgreSQLStoreReader

    /// Whether `url` names a PostgreSQL database.
    static func accepts(_ url: URL) -> Bool {
        url.scheme.map { PostgreSQLConnectionSettings.schemes.contains($0.lowercased()) } ?? false
    }

    /// Connects; the schema must hold a store (none is ever made here).
    init(url: URL, options: [String: NSObject]) throws {
        self.url = url
        self.options = options
        reader = try PostgreSQLStoreReader(url: url, options: options)
    }

    /// The database's name, and its schema when that is not the default one.
    var name: String {
        let database = url.lastPathComponent.isEmpty ? "postgres" : url.lastPathComponent
        return reader.settings.schema == "public" ? database : "\(database) (\(reader.settings.schema))"
    }

    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T { try reader.read(body) }

    /// PostgreSQL stores are made by OpenCoreData, which caches every model it makes one with:
    /// without a given model, that one. Nothing is inferred from the tables.
    func inspect(model: NSManagedObjectModel?) throws -> StoreInspection {
        let metadata = try reader.metadata()
        var recovered: (NSManagedObjectModel, StoreInspection.RecoveredModelSource)?
        if model == nil {
            guard let cached = try reader.cachedModel() else {
                throw CDToolError("the PostgreSQL store caches no model (Z_MODELCACHE): give it with --model")
            }
            recovered = (cached, .modelCache)
        }
        let shown = URL(string: reader.settings.displayURL) ?? URL(fileURLWithPath: name)
        return try read {
            try StoreInspection.inspect($0, url: shown, metadata: metadata, model: model, recovered: recovered)
        }
    }

    func facts() -> [(String, String)] {
        let size = (try? reader.storageSize()).map {
            ByteCountFormatter.string(fromByteCount: $0, countStyle: .file) + " (the schema's tables and indexes)"
        }
        return [
            ("Database", reader.settings.displayURL),
            ("Schema", reader.settings.schema),
            ("Server", (try? reader.serverVersion()).map { "PostgreSQL \($0)" } ?? "unknown"),
            ("Size", size ?? "unknown"),
        ]
    }

    /// PostgreSQL checks its pages itself (checksums, `amcheck`, which needs privileges a
    /// browser should not have); none is run from here.
    var integrityCheck: (name: String, run: () -> String)? { nil }

    func writingOptions() throws -> [String: NSObject] { [:] }

    func close() { reader.close() }
}
