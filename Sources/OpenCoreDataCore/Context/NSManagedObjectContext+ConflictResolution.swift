extension NSManagedObjectContext {
    /// How many times a save checks, resolves and checks again before it gives up on
    /// conflicts the merge policy does not settle (or that other writers keep making).
    static let conflictResolutionRounds = 8

    /// Writes the context's changes to `store`, with the conflict checks inside the
    /// write's transaction; conflicts go to the merge policy and the write runs again.
    /// Returns what was written and the keys given to new objects.
    func writeResolvingConflicts(
        to store: NSPersistentStore, _ coordinator: NSPersistentStoreCoordinator
    ) throws -> (inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject], keys: [ObjectIdentifier: Int64]) {
        var round = 0
        // Reading every updated row's version before writing costs as much as the writes;
        // the writer's `WHERE Z_OPT = ?` notices a stale row anyway. So the first attempt
        // leaves locking to the writer, and only when it reports a stale row does the save
        // run again with the full check, which finds every conflict for the policy at once.
        var checkLocking = false
        while true {
            let inserted = Array(insertedSet)
            let updated = Array(updatedSet)
            let deleted = Array(deletedSet)
            var assignedKeys: [ObjectIdentifier: Int64] = [:]
            do {
                try coordinator.save(to: store) { allocator in
                    if let reader = allocator as? any SaveTransactionReader {
                        let found = try SaveConflictScan(inserted: inserted, updated: updated, deleted: deleted, context: self).run(reader, locking: checkLocking)
                        if !found.isEmpty { throw found }
                    }
                    for object in inserted {
                        assignedKeys[ObjectIdentifier(object)] = try object.objectID.primaryKey ?? allocator.nextKey(for: object.entity)
                    }
                    var request = try SaveRequestBuilder(keys: assignedKeys).request(inserted: inserted, updated: updated, deleted: deleted)
                    request.origin = historyOrigin
                    request.context = self
                    return request
                }
                return (inserted, updated, deleted, assignedKeys)
            } catch let found as SaveConflictsFound {
                round += 1
                try resolveConflicts(found, giveUp: round >= Self.conflictResolutionRounds)
            } catch let stale as NSError where stale.domain == NSCocoaErrorDomain && stale.code == NSManagedObjectMergeError && !checkLocking {
                // The transaction rolled back; check every row's version this time.
                checkLocking = true
            }
        }
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
                databaseSnapshot: entry.databaseRow.map { ConflictSnapshot.dictionary($0.values, of: $0.objectID.entity) },
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
            throw CoreDataError.make(NSCoreDataError, "The context's mergePolicy is a \(type(of: mergePolicy)), not an NSMergePolicy, so the save's conflicts cannot be resolved",
                                     ["conflictList": (locking as [Any]) + (constraints as [Any])])
        }
        try policy.resolve(mergeConflicts: (locking as [Any]) + (constraints as [Any]))
    }
}
