import Foundation
import OpenCoreDataCore

/// A store's metadata as set, and which setting of it the database holds, kept alike by
/// the SQL engines. It is set on the app's thread while a save may run on another, hence
/// the lock; a save writes what was set before it and records the write only once its
/// transaction commits, so a value set meanwhile, or a save that rolls back, leaves the
/// metadata pending for the next save.
package final class SQLStoreMetadata: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Any]
    /// Counts settings; `writtenVersion` is the one the database holds.
    private var version = 0
    private var writtenVersion = 0

    package init(_ values: [String: Any]) {
        self.values = values
    }

    /// The metadata as last set.
    package var current: [String: Any] { lock.withLock { values } }

    /// Replaces the metadata; the store's UUID is not the caller's to change, so it stays.
    package func set(_ metadata: [String: Any]) {
        lock.withLock {
            var merged = metadata
            merged[NSStoreUUIDKey] = values[NSStoreUUIDKey]
            values = merged
            version += 1
        }
    }

    /// Whether a setting is not written yet.
    package var hasUnwrittenChanges: Bool { lock.withLock { version != writtenVersion } }

    /// The metadata to write into `Z_METADATA` (a binary property list, with `storeType`
    /// as its store type when given) and its version for ``committed(_:)``; `nil` when the
    /// database holds the latest setting.
    package func pendingWrite(storeType: String? = nil) throws -> (plist: Data, version: Int)? {
        let (values, version, written) = lock.withLock { (self.values, self.version, writtenVersion) }
        guard version != written else { return nil }
        var stored = values
        if let storeType { stored[NSStoreTypeKey] = storeType }
        return (try Self.propertyList(stored), version)
    }

    /// Records that the transaction which wrote setting `version` committed.
    package func committed(_ version: Int) {
        lock.withLock { writtenVersion = max(writtenVersion, version) }
    }

    /// `metadata` as Core Data stores it, a binary property list; throws for a value that is
    /// not a property-list type.
    package static func propertyList(_ metadata: [String: Any]) throws -> Data {
        do {
            return try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        } catch {
            throw CoreDataError.make(
                NSPersistentStoreSaveError,
                "The store's metadata can't be saved: every value must be a property-list type (String, number, Date, Data, array, dictionary)",
                [NSUnderlyingErrorKey: error as NSError])
        }
    }
}
