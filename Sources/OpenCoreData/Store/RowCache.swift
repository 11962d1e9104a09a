/// The snapshots a coordinator's contexts share (Core Data's row cache).
///
/// A snapshot lives as long as some object uses it: the cache holds rows weakly,
/// objects hold theirs strongly. So a fault can fire from the cache without touching
/// the store, and memory is released with the objects. Dead entries are swept when
/// the table has quadrupled since the last sweep, which keeps inserts amortized O(1).
///
/// Not thread-safe by itself: the coordinator calls it under its lock.
struct RowCache {
    private struct Entry {
        weak var row: StoreRow?
    }

    private var entries: [ObjectKey: Entry] = [:]
    private var sweepThreshold = 4096

    /// The cached row for `objectID` when it is no older than `maxAge` seconds (negative: any age).
    func row(for objectID: NSManagedObjectID, maxAge: TimeInterval, now: TimeInterval) -> StoreRow? {
        guard let row = entries[objectID.key]?.row else { return nil }
        if maxAge >= 0, now - row.timestamp > maxAge { return nil }
        return row
    }

    /// Makes `rows` current, keeping a cached row that is newer than the one read (a
    /// save through this coordinator can land between a read and its caching).
    mutating func insert(_ rows: some Collection<StoreRow>) {
        for row in rows { Self.keepNewer(row, in: &entries[row.objectID.key, default: Entry()]) }
        if entries.count > sweepThreshold { sweep() }
    }

    /// Stores `row` in `entry` unless the entry holds a newer row. Taking the entry
    /// `inout` through the defaulting subscript hashes the key once, not twice.
    private static func keepNewer(_ row: StoreRow, in entry: inout Entry) {
        if let cached = entry.row, cached.version > row.version { return }
        entry.row = row
    }

    /// Forgets the snapshots of these objects.
    mutating func remove(_ objectIDs: some Sequence<NSManagedObjectID>) {
        for id in objectIDs { entries[id.key] = nil }
    }

    /// Forgets every snapshot of these entities.
    mutating func remove(entities: [NSEntityDescription]) {
        let doomed = Set(entities.map { $0.facts.root.facts.entityNumber })
        entries = entries.filter { !doomed.contains($0.key.table) }
    }

    /// How many snapshots are alive (for tests and diagnostics).
    var liveCount: Int { entries.values.count { $0.row != nil } }

    private mutating func sweep() {
        entries = entries.filter { $0.value.row != nil }
        sweepThreshold = max(4096, entries.count * 4)
    }
}
