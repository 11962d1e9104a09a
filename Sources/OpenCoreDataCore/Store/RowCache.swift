import Synchronization

/// The snapshots a coordinator's contexts share (Core Data's row cache).
///
/// A snapshot lives as long as some object uses it: objects hold theirs strongly, the
/// cache holds ``UnretainedReference``s and a row leaves the cache in its `deinit`.
/// So a fault can fire from the cache without touching the store, and memory is
/// released with the objects. Rows die on whatever thread drops them last, so the
/// table has its own lock; nothing is released while it is held.
final class RowCache: Sendable {
    /// Only the reference, keyed: a row's version and timestamp are constants read through
    /// it under the lock (24 bytes a row where copies of them made 40, at a million rows
    /// and a half-full table that is 34 MB).
    private let entries = Mutex(ObjectKeyTable<UnretainedReference<StoreRow>>())

    /// The cached row for `objectID` when it is no older than `maxAge` seconds (negative: any age).
    func row(for objectID: NSManagedObjectID, maxAge: TimeInterval, now: TimeInterval) -> StoreRow? {
        entries.withLock { entries in
            guard let entry = entries[objectID.key] else { return nil }
            if maxAge >= 0, now - entry.readUnretained(\.timestamp) > maxAge { return nil }
            return entry.load()
        }
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
                if let cached = entries[key], cached.readUnretained(\.version) > row.version { continue }
                entries[key] = UnretainedReference(row)
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
            entries.removeValue(forKey: key) { $0.refers(to: row) }
        }
    }
}
