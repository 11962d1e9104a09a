/// One query generation of a coordinator: its stores as they were at one moment,
/// shared by the contexts pinned to it and the tokens naming it, and released with the
/// last of them (which ends the stores' snapshots, so SQLite can checkpoint past them).
///
/// The moment is the generation's first read, not its creation: a context pinned to
/// `NSQueryGenerationToken.current` sees the data as of the first fetch or fault after
/// pinning, as in Core Data. Every store is frozen then, together.
///
/// Rows read at a generation go to the generation's own row cache, never to the
/// coordinator's: the shared cache holds the newest rows for unpinned contexts (a
/// snapshot row there would be served to them as current), and the generation must not
/// be served rows newer than its moment. Its own cache needs no invalidation either:
/// nothing can change what a generation sees, so a row cached here is exact for as long
/// as the generation lives, whatever `stalenessInterval` says.
final class QueryGeneration: @unchecked Sendable {
    /// The coordinator the generation belongs to; a token pins only its contexts.
    let coordinator: NSPersistentStoreCoordinator
    /// Rows read at this generation, shared by the contexts pinned to it.
    let rows = RowCache()
    /// The stores' snapshots, taken by the first read (`nil` until then). Touched only
    /// under the coordinator's lock, and by `deinit`, when no one else can.
    private var snapshots: [(store: NSPersistentStore, snapshot: any StoreSnapshot)]?

    init(coordinator: NSPersistentStoreCoordinator) {
        self.coordinator = coordinator
    }

    deinit {
        for entry in snapshots ?? [] { entry.snapshot.close() }
    }

    /// Whether the first read has taken the generation's moment yet (for tests).
    var isTaken: Bool { coordinator.performAndWait { snapshots != nil } }

    /// The snapshot of `store`, freezing every store of the coordinator at the first call.
    /// `nil` for a store added after that, or one that cannot keep an older state: Core
    /// Data leaves such stores out of a generation; here they are read as they are now
    /// (docs/DEVIATIONS.md).
    /// Call under the coordinator's lock.
    func snapshot(of store: NSPersistentStore, among stores: [NSPersistentStore]) throws -> (any StoreSnapshot)? {
        if snapshots == nil {
            var taken: [(store: NSPersistentStore, snapshot: any StoreSnapshot)] = []
            do {
                for candidate in stores {
                    // A store that cannot keep an older state (added after pinning, when
                    // only the stores present then were checked) is read at its latest
                    // data, as an unsupported store leaves a context unpinned.
                    guard let snapshot = try candidate.backend?.openSnapshot() else { continue }
                    taken.append((candidate, snapshot))
                }
            } catch {
                for entry in taken { entry.snapshot.close() }
                throw error
            }
            snapshots = taken
        }
        return snapshots?.first { $0.store === store }?.snapshot
    }
}
