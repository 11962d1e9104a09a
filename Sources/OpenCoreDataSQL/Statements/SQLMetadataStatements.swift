import OpenCoreDataCore

/// The statements on a store's own description: `Z_METADATA` (one row, version 1, with
/// the store's UUID and its metadata as a binary property list) and `Z_MODELCACHE`
/// (the compiled model Core Data caches in its stores).
package enum SQLMetadataStatements {
    /// The metadata row of a new store.
    package static func insert(uuid: String, plist: Data) -> SQLFragment {
        "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, \(.bind(uuid.sqlScalar)), \(.bind(plist.sqlScalar)))"
    }

    /// `Z_UUID, Z_PLIST` of the metadata row.
    package static let read: SQLFragment = "SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1"

    /// Replaces the metadata property list.
    package static func update(plist: Data) -> SQLFragment {
        "UPDATE Z_METADATA SET Z_PLIST = \(.bind(plist.sqlScalar)) WHERE Z_VERSION = 1"
    }

    /// The cached model (`Z_CONTENT`), if any.
    package static let cachedModel: SQLFragment =
        "SELECT Z_CONTENT FROM Z_MODELCACHE WHERE Z_CONTENT IS NOT NULL LIMIT 1"

    /// Forgets the cached model.
    package static let clearModelCache: SQLFragment = "DELETE FROM Z_MODELCACHE"

    /// Caches a compiled model (`Z_CONTENT`, compressed); the table holds one row.
    package static func insertModelCache(_ content: Data) -> SQLFragment {
        "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (\(.bind(content.sqlScalar)))"
    }
}
