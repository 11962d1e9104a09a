import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB

/// The model Core Data caches inside its SQLite stores (`Z_MODELCACHE.Z_CONTENT`): the
/// compiled model that created or last migrated the store, as a keyed archive compressed
/// with raw DEFLATE (or stored plain). It lets a tool read a store made by an app whose
/// model file is not at hand, and a migration find the source model of a store made from
/// a model built in code. OpenCoreData writes it as Core Data does: when it creates a
/// store file and after migrating one.
enum SQLiteModelCache {
    /// Replaces the cached model of the store in `db` with `model`, compiled and
    /// compressed. A model that cannot be archived (a block predicate in a template) is
    /// not cached, and the store works without it; the SQL debug log says why.
    static func write(_ model: NSManagedObjectModel, in db: Database) throws {
        guard let content = SQLModelCache.content(of: model), try db.tableExists("Z_MODELCACHE") else { return }
        try db.execute(SQLMetadataStatements.clearModelCache)
        try db.execute(SQLMetadataStatements.insertModelCache(content))
    }

    /// The cached model of the store at `url`, `nil` when the store caches none (stores
    /// in memory, or written by Core Data before the cache existed).
    static func model(inStoreAt url: URL) throws -> NSManagedObjectModel? {
        let blob = try SQLiteStore.readFile(at: url) { db -> Data? in
            guard try db.tableExists("Z_MODELCACHE") else { return nil }
            return try Data.fetchOne(db, SQLMetadataStatements.cachedModel)
        }
        return try blob.flatMap {
            try SQLModelCache.model(from: $0, source: ModelFileSource(url: url.appendingPathComponent("Z_MODELCACHE")))
        }
    }

    /// The model cached in the open store `db`, `nil` when there is none or it cannot be
    /// read (a migration then looks no further, and opening fails as without a cache).
    static func model(in db: Database) -> NSManagedObjectModel? {
        guard (try? db.tableExists("Z_MODELCACHE")) == true,
            let blob = try? Data.fetchOne(db, SQLMetadataStatements.cachedModel)
        else { return nil }
        return try? SQLModelCache.model(from: blob, source: ModelFileSource(url: URL(fileURLWithPath: "Z_MODELCACHE")))
    }

    /// The model in a `Z_CONTENT` value: a binary keyed archive, compressed or plain.
}

extension NSManagedObjectModel {
    /// The compiled model Core Data cached in the SQLite store at `url` (its
    /// `Z_MODELCACHE`), or `nil` when the store caches none.
    ///
    /// Core Data keeps there the model that created or last migrated the store, so a tool can read a
    /// store whose app is not at hand with the store's real names and types (where
    /// ``inferred(fromStoreAt:)`` recovers only what the tables show). OpenCoreData caches
    /// the model as Core Data does, in every store file it creates or migrates. Throws when
    /// the file is not a readable store or the cached model is damaged.
    ///
    /// - Parameter url: The SQLite store file.
    /// - Returns: The cached model, or `nil`.
    /// - Throws: An `NSError` when the file is not a readable store, or a ``/OpenCoreDataModelFiles/ModelLoadingError``
    ///   when the cached model is damaged.
    public static func cached(inStoreAt url: URL) throws -> NSManagedObjectModel? {
        try SQLiteModelCache.model(inStoreAt: url)
    }
}
