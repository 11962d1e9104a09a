extension NSManagedObjectContext {
    /// How many times a save checks, resolves and checks again before it gives up on
    /// conflicts the merge policy does not settle (or that other writers keep making).
    static let conflictResolutionRounds = 8

    /// Writes the context's changes to `store` as one request that carries its conflict
    /// checks; the store runs them in the write's transaction and writes nothing when one
    /// fails. Conflicts go to the merge policy and a new request goes down. Returns what was
    /// written and the keys given to new objects.
    func writeResolvingConflicts(
        to store: NSPersistentStore, _ coordinator: NSPersistentStoreCoordinator
    ) throws -> (
        inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject],
        keys: [ObjectIdentifier: Int64]
    ) {
        var round = 0
        // Reading every updated row's version before writing costs as much as the writes;
        // the writer's `WHERE Z_OPT = ?` notices a stale row anyway. So the first attempt
        // leaves locking to the writer, and only when it reports a stale row does the save
        // run again with the full check, which finds every conflict for the policy at once.
        // An incremental store's subclass does not compare versions as it writes, so its
        // saves check them first, every time.
        var checkLocking = store.isIncremental
        // Keys for new objects, reserved once per object: a round the merge policy sends
        // back keeps them.
        var keys: [ObjectIdentifier: Int64] = [:]
        while true {
            let inserted = Array(insertedSet)
            let updated = Array(updatedSet)
            let deleted = Array(deletedSet)
            if round > 0 {
                // Objects the merge policy took out of the save give their keys up, so a
                // reference to one fails the save instead of pointing at a row never written.
                let current = Set(inserted.map(ObjectIdentifier.init))
                keys = keys.filter { current.contains($0.key) }
            }
            try reserveKeys(for: inserted, in: store, coordinator, into: &keys)
            var request = try SaveRequestBuilder(keys: keys).request(
                inserted: inserted, updated: updated, deleted: deleted)
            request.origin = historyOrigin
            request.context = self
            let scan = SaveConflictScan(inserted: inserted, updated: updated, deleted: deleted, locking: checkLocking)
            request.checks = scan.checks
            let outcome: StoreSaveOutcome
            do {
                outcome = try coordinator.save(request, to: store)
            } catch let stale as NSError
                where stale.domain == NSCocoaErrorDomain && stale.code == NSManagedObjectMergeError && !checkLocking
            {
                // The transaction rolled back; check every row's version this time.
                checkLocking = true
                continue
            }
            switch outcome {
            case .saved:
                return (inserted, updated, deleted, keys)
            case .conflicts(let conflicts):
                round += 1
                try resolveConflicts(scan.found(conflicts), giveUp: round >= Self.conflictResolutionRounds)
            }
        }
    }

    /// Reserves keys for the objects among `inserted` that have neither a permanent ID nor
    /// a key in `keys` yet, with one call to the store, and adds them to `keys`.
    private func reserveKeys(
        for inserted: [NSManagedObject], in store: NSPersistentStore, _ coordinator: NSPersistentStoreCoordinator,
        into keys: inout [ObjectIdentifier: Int64]
    ) throws {
        // A save's first round has no keys yet, so it skips the lookups.
        let firstRound = keys.isEmpty
        var pending: [ObjectIdentifier] = []
        var entities: [NSEntityDescription] = []
        pending.reserveCapacity(inserted.count)
        entities.reserveCapacity(inserted.count)
        for object in inserted where object.objectID.primaryKey == nil {
            let identity = ObjectIdentifier(object)
            if !firstRound, keys[identity] != nil { continue }
            pending.append(identity)
            entities.append(object.entity)
        }
        guard !pending.isEmpty else { return }
        let reserved = try coordinator.reservePrimaryKeys(in: store, for: entities)
        keys.reserveCapacity(keys.count + pending.count)
        for (identity, key) in zip(pending, reserved) { keys[identity] = key }
    }

    /// Hands conflicts to the merge policy (or, past the last round, fails with them),
    /// then checks what the policy left as a save checks it: the policy's writes bypass
    /// the setters' callers, so nothing else would validate them before they are written.
    func resolveConflicts(_ found: SaveConflictsFound, giveUp: Bool) throws {
        try handToMergePolicy(found, giveUp: giveUp)
        processPendingChanges()
        for object in insertedSet { object.applyDerivations() }
        for object in updatedSet { object.applyDerivations() }
        try validatePendingChanges()
    }

    private func handToMergePolicy(_ found: SaveConflictsFound, giveUp: Bool) throws {
        let withParent = parent != nil
        let locking = found.locking.map { NSMergeConflict(object: $0.object, row: $0.row, withParent: withParent) }
        let constraints = found.constraints.map { entry in
            NSConstraintConflict(
                constraint: entry.names,
                database: entry.databaseRow.map { register($0, asFault: true) },
                databaseSnapshot: entry.databaseRow.map {
                    ConflictSnapshot.dictionary($0.values, of: $0.entity)
                },
                conflicting: entry.objects,
                conflictingSnapshots: entry.objects.map { object in
                    object.committed.map { ConflictSnapshot.dictionary($0, of: object.entity) } ?? [:]
                }
            )
        }
        if giveUp {
            if !locking.isEmpty { throw MergeResolution.lockingError(locking, unresolved: true) }
            throw MergeResolution.constraintError(constraints, unresolved: true)
        }
        guard let policy = mergePolicy as? NSMergePolicy else {
            throw CoreDataError.make(
                NSCoreDataError,
                "The context's mergePolicy is a \(type(of: mergePolicy)), not an NSMergePolicy, so the save's conflicts cannot be resolved",
                ["conflictList": (locking as [Any]) + (constraints as [Any])])
        }
        try policy.resolve(mergeConflicts: (locking as [Any]) + (constraints as [Any]))
    }
}
