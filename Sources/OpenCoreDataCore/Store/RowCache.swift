/// The snapshots a coordinator's contexts share (Core Data's row cache).
///
/// A snapshot lives as long as some object uses it: objects hold theirs strongly, the
/// cache holds ``UnretainedReference``s and a row leaves the cache in its `deinit`.
/// So a fault can fire from the cache without touching the store, and memory is
/// released with the objects. Rows die on whatever thread drops them last, so the
/// table has its own lock; nothing is released while it is held.
final class RowCache: Sendable {
    private struct Entry {
        let row: UnretainedReference<StoreRow>
        /// The row's version, copied: choosing between two rows must not touch a row that
        /// may be deallocating (reading it takes a reference, and dropping that reference
        /// could end the row's life, and run its `deinit`, under the lock).
        let version: Int64
    }

    /// 32 bytes a row (key, reference, version); the timestamp is read from the row once
    /// it is loaded, outside the lock.
    private let entries = LockedValue(ObjectKeyTable<Entry>())

    /// The cached row for `objectID` when it is no older than `maxAge` seconds (negative: any age).
    func row(for objectID: NSManagedObjectID, maxAge: TimeInterval, now: TimeInterval) -> StoreRow? {
        // Loaded under the lock, judged outside it: if it is too old, dropping it may be
        // its last release. (Spelled out: the one-line `withLock { $0[key]?.row.load() }`
        // loaded a null reference in debug builds with Swift 6.3.)
        let loaded: StoreRow? = entries.withLock { entries in
            guard let entry = entries[objectID.key] else { return nil }
            return entry.row.load()
        }
        guard let row = loaded else { return nil }
        if maxAge >= 0, now - row.timestamp > maxAge { return nil }
        return row
    }

    /// Makes `rows` current, keeping a cached row that is newer than the one read (a
    /// save through this coordinator can land between a read and its caching).
    func insert(_ rows: some Collection<StoreRow>) {
        for row in rows {
            // A row in two caches would leave the first one's entry dangling when it dies.
            precondition(row.cache == nil || row.cache === self, "a snapshot belongs to one row cache")
            row.cache = self
        }
        entries.withLock { entries in
            // Rows already cached come back often: room for the larger of the two, not the sum.
            entries.reserveCapacity(max(entries.count, rows.count))
            for row in rows {
                let key = row.objectID.key
                if let cached = entries[key], cached.version > row.version { continue }
                entries[key] = Entry(row: UnretainedReference(row), version: row.version)
            }
        }
    }

    /// Forgets the snapshots of these objects.
    func remove(_ objectIDs: some Sequence<NSManagedObjectID>) {
        entries.withLock { entries in
            for id in objectIDs { entries[id.key] = nil }
        }
    }

    /// Forgets every snapshot of these entities.
    func remove(entities: [NSEntityDescription]) {
        let doomed = Set(entities.map { $0.facts.root.facts.entityNumber })
        entries.withLock { entries in
            entries.removeAll { doomed.contains(Int($0.table)) }
        }
    }

    /// How many snapshots are alive (for tests and diagnostics).
    var liveCount: Int { entries.withLock { $0.count } }

    /// Called by a row's `deinit`, on whatever thread released it last.
    func rowWillDeallocate(_ row: ObjectIdentifier, key: ObjectKey) {
        entries.withLock { entries in
            entries.removeValue(forKey: key) { $0.row.refers(to: row) }
        }
    }
}
