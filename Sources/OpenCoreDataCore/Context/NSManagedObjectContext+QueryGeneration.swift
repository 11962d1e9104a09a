// Query generations: a context pinned to a generation reads the store as it was at one
// moment (fetches of every result type, counts, faults, to-many loads, prefetching,
// batched arrays), however other contexts, coordinators or processes write meanwhile,
// until it moves on. Writes are not pinned: saves and their conflict checks see the
// store as it is.
extension NSManagedObjectContext {
    /// The token of the query generation the context reads at, or `nil` when it is not
    /// pinned and reads the latest data (the default).
    ///
    /// A pinned context's token names its generation even before the first read has taken
    /// the generation's moment: another context pinned with it shares that moment, whichever
    /// of them reads first. A child context is never pinned itself, so its token is `nil`;
    /// it reads what its parent holds, and so at its root context's generation.
    public var queryGenerationToken: NSQueryGenerationToken? {
        guard parent == nil else { return nil }
        return pinnedGeneration.withLock { $0 }.map(NSQueryGenerationToken.init(generation:))
    }

    /// Pins the context to a query generation, or unpins it.
    ///
    /// - `NSQueryGenerationToken.current`: the generation of the store's data at the
    ///   context's next read (fetch or fault), kept from then on.
    /// - Another context's ``queryGenerationToken`` (same coordinator): that context's
    ///   generation; both read the same data.
    /// - `nil`: unpinned; every read sees the latest data.
    ///
    /// A pinned context moves to the latest generation (again taken at its next read) when
    /// it saves changes, merges another context's save (``mergeChanges(fromContextDidSave:)``,
    /// also through ``automaticallyMergesChangesFromParent``, or
    /// ``mergeChanges(fromRemoteContextSave:into:)``) or is reset. Batch requests do not
    /// move it. Objects already loaded keep their values until refreshed.
    ///
    /// When a store of the coordinator cannot keep an older state readable (an in-memory
    /// store, an SQLite store not in WAL journal mode), `.current` leaves the context
    /// unpinned, as Core Data does: check ``queryGenerationToken`` to know. Throws
    /// `NSCoreDataError` for a child context (pin its root instead), a context without a
    /// coordinator, or a token from another coordinator's context. The context's
    /// generation is unchanged when it throws.
    ///
    /// - Parameter generation: The generation to read at, `.current` for the data as of the
    ///   next read, or `nil` to follow the latest data again.
    /// - Throws: `NSCoreDataError` for a child context, a context without a coordinator, or
    ///   a token from another coordinator's context.
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        guard let token = generation else {
            replacePin { _ in nil }
            return
        }
        guard parent == nil else {
            throw CoreDataError.make(
                NSCoreDataError,
                "A child context reads its parent's data and cannot be pinned to a query generation; pin its root context (the one with the coordinator) instead"
            )
        }
        guard let coordinator = persistentStoreCoordinator else {
            throw CoreDataError.make(
                NSCoreDataError, "A context needs a persistent store coordinator to be pinned to a query generation")
        }
        let pinned: QueryGeneration
        if let shared = token.generation {
            guard shared.coordinator === coordinator else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "The query generation token belongs to a context of another persistent store coordinator; a token pins only contexts of the coordinator it came from"
                )
            }
            pinned = shared
        } else {
            // As Core Data documents: where no older state can be kept readable, the
            // context quietly stays unpinned (its token stays `nil`, which tells).
            guard (try? coordinator.supportsQueryGenerations()) == true else {
                replacePin { _ in nil }
                return
            }
            pinned = QueryGeneration(coordinator: coordinator)
        }
        replacePin { _ in pinned }
    }

    /// The generation this context's store reads run at: its own, or for a child context
    /// its root's (children defer to their parent's data). Any queue.
    var readGeneration: QueryGeneration? {
        // Recursive rather than a loop over a `root` variable: each step would retain a
        // context, which objects reference weakly (the runtime's slower reference counts).
        if let parent { return parent.readGeneration }
        guard isPinned.load(ordering: .acquiring) else { return nil }
        return pinnedGeneration.withLock { $0 }
    }

    /// Moves a pinned context to the latest generation, taken at its next read (after a
    /// save, a merge or a reset); an unpinned context stays unpinned.
    func advanceQueryGeneration() {
        guard parent == nil, let coordinator = persistentStoreCoordinator else { return }
        replacePin { $0 == nil ? nil : QueryGeneration(coordinator: coordinator) }
    }

    /// Sets the pin to what `next` makes of the current one. The generation let go of is
    /// released after the lock: releasing the last reference closes its snapshots, which
    /// children reading the pin need not wait for.
    private func replacePin(_ next: (QueryGeneration?) -> QueryGeneration?) {
        let released = pinnedGeneration.withLock { pin in
            let old = pin
            pin = next(old)
            isPinned.store(pin != nil, ordering: .releasing)
            return old
        }
        withExtendedLifetime(released) {}
    }
}
