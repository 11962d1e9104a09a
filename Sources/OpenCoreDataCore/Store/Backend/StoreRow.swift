/// One object's saved state as a store hands it to contexts: Core Data's snapshot.
///
/// `values` is indexed by property slot: attributes hold their native stored value,
/// to-ones the destination's ID (or `nil`), to-manys `nil` (they load on demand).
/// Immutable, so the contexts of one coordinator share it through the row cache; a
/// class, so the cache can reference it without owning it while the objects using it do.
package final class StoreRow: @unchecked Sendable {
    package let objectID: NSManagedObjectID
    /// The row version, Core Data's `Z_OPT`.
    package let version: Int64
    package let values: SlotValues
    /// When the store read (or wrote) these values, on ``StoreRow/now()``'s clock; staleness is measured from here.
    package let timestamp: TimeInterval
    /// The coordinator's cache generation when the row was cached: while it is current,
    /// no save or batch request has touched the cache since, so the row is the freshest.
    /// (Written once, under the coordinator's lock, before the row reaches any context;
    /// no dynamic exclusivity check, which would only catch same-thread overlaps.)
    @exclusivity(unchecked) package var generation = 0
    /// The row cache holding the row (without keeping it alive); the row leaves it when it deallocates.
    @exclusivity(unchecked) var cache: RowCache?

    package init(objectID: NSManagedObjectID, version: Int64, values: SlotValues, timestamp: TimeInterval) {
        self.objectID = objectID
        self.version = version
        self.values = values
        self.timestamp = timestamp
    }

    deinit { cache?.rowWillDeallocate(ObjectIdentifier(self), key: objectID.key) }

    /// The clock snapshots are stamped with (monotonic seconds); read once per fetch, not per row.
    package static func now() -> TimeInterval { ProcessInfo.processInfo.systemUptime }
}
