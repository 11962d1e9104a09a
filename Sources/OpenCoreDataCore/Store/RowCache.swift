/// The snapshots a coordinator's contexts share (Core Data's row cache).
///
/// A snapshot lives as long as some object uses it: objects hold theirs strongly, the
/// cache holds ``UnretainedReference``s and a row notes its departure in its `deinit`
/// (taken out before the cache is next used, see ``Departures``).
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

    private struct Table: SettlingDepartures {
        /// 32 bytes a row (key, reference, version); the timestamp is read from the row once
        /// it is loaded, outside the lock.
        var entries = ObjectKeyTable<Entry>()
        /// Rows that deallocated since the table was last used (see ``Departures``).
        var departures = Departures()

        var entryCount: Int { entries.count }

        mutating func removeEntry(_ record: Departures.Record) {
            entries.removeValue(forKey: record.key) { $0.row.refers(to: record.identity) }
        }

        mutating func removeAllEntries() { entries = ObjectKeyTable() }
    }

    private let table = LockedValue(Table())

    /// The cached row for `objectID` when it is no older than `maxAge` seconds (negative: any age).
    func row(for objectID: NSManagedObjectID, maxAge: TimeInterval, now: TimeInterval) -> StoreRow? {
        row(forKey: objectID.key, maxAge: maxAge, now: now)
    }

    /// The cached row with `key` when it is no older than `maxAge` seconds (negative: any age).
    func row(forKey key: ObjectKey, maxAge: TimeInterval, now: TimeInterval) -> StoreRow? {
        // Loaded under the lock, judged outside it: if it is too old, dropping it may be
        // its last release. (Spelled out: the one-line `withLock { $0[key]?.row.load() }`
        // loaded a null reference in debug builds with Swift 6.3.)
        let loaded: StoreRow? = table.withSettled { table in
            guard let entry = table.entries[key] else { return nil }
            return entry.row.load()
        }
        guard let row = loaded else { return nil }
        if maxAge >= 0, now - row.timestamp > maxAge { return nil }
        return row
    }

    /// Makes `rows` current, keeping a cached row that is newer than the one read (a
    /// save through this coordinator can land between a read and its caching).
    func insert(_ rows: [StoreRow]) {
        for row in rows {
            // A row in two caches would leave the first one's entry dangling when it dies.
            precondition(row.cache == nil || row.cache === self, "a snapshot belongs to one row cache")
            row.cache = self
        }
        table.withSettled { table in
            // Rows already cached come back often: room for the larger of the two, not the sum.
            table.entries.reserveCapacity(max(table.entries.count, rows.count))
            for row in rows {
                let identity = ObjectIdentifier(row)
                // One probe: the entry is judged and replaced where it was found.
                let stray: ObjectIdentifier? = table.entries.update(row.key) { entry in
                    if let cached = entry {
                        // The newer row stays; this one, not filed, will still note its
                        // departure (its `cache` is this one).
                        if cached.version > row.version { return identity }
                        if cached.row.refers(to: identity) { return nil }
                        entry = Entry(row: UnretainedReference(row), version: row.version)
                        return cached.row.objectIdentity
                    }
                    entry = Entry(row: UnretainedReference(row), version: row.version)
                    return nil
                }
                if let stray { table.departures.markStray(stray) }
                if stray != identity { table.departures.clearStray(identity) }
            }
        }
    }

    /// Forgets the snapshots of these objects.
    func remove(_ objectIDs: some Sequence<NSManagedObjectID>) {
        table.withSettled { table in
            for id in objectIDs {
                let dropped = table.entries.update(id.key) { entry -> ObjectIdentifier? in
                    defer { entry = nil }
                    return entry?.row.objectIdentity
                }
                // The row, alive elsewhere, becomes a stray.
                if let dropped { table.departures.markStray(dropped) }
            }
        }
    }

    /// Forgets every snapshot of these entities.
    func remove(entities: [NSEntityDescription]) {
        let doomed = Set(entities.map { $0.facts.root.facts.entityNumber })
        table.withSettled { table in
            // Their rows, alive elsewhere, become strays.
            var dropped: [ObjectIdentifier] = []
            table.entries.forEach { key, entry in
                if doomed.contains(Int(key.table)) { dropped.append(entry.row.objectIdentity) }
            }
            for row in dropped { table.departures.markStray(row) }
            table.entries.removeAll { doomed.contains(Int($0.table)) }
        }
    }

    /// How many snapshots are alive (for tests and diagnostics).
    var liveCount: Int { table.withSettled { $0.entries.count } }

    /// Called by a row's `deinit`, on whatever thread released it last: notes the
    /// departure, which the next use of the table settles.
    func rowWillDeallocate(_ row: ObjectIdentifier, key: ObjectKey) {
        table.withLock { $0.noteDeparture(key: key, identity: row) }
    }
}
