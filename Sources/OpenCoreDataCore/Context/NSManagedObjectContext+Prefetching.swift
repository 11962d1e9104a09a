extension NSManagedObjectContext {
    /// Loads the relationships named by `keyPaths` for all `objects` at once:
    /// `relationshipKeyPathsForPrefetching`, so walking them later costs no query per object.
    ///
    /// One query per relationship and level: a to-many reads every destination row of
    /// every source together, a to-one reads the destination rows by key. Destinations
    /// become faults that fire from the rows read, without another query. Key paths
    /// may continue through relationships (`"children.toys"`).
    func prefetch(_ keyPaths: [String]?, of objects: [NSManagedObject], entity: NSEntityDescription) throws {
        // A child's relationships load from its parent on first use; prefetching reads the
        // store, which would miss the parent's unsaved changes.
        guard parent == nil, let keyPaths, !keyPaths.isEmpty, !objects.isEmpty,
            let coordinator = persistentStoreCoordinator
        else { return }
        // First components, in order, each with the rest of its key paths.
        var rests: [(String, [String])] = []
        for path in keyPaths {
            let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
            guard let first = parts.first else { continue }
            if let index = rests.firstIndex(where: { $0.0 == first }) {
                if parts.count > 1 { rests[index].1.append(parts[1]) }
            } else {
                rests.append((first, parts.count > 1 ? [parts[1]] : []))
            }
        }
        for (name, deeper) in rests {
            guard let relationship = entity.facts.propertiesByName[name] as? NSRelationshipDescription,
                let destination = relationship.destinationEntity
            else {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "relationshipKeyPathsForPrefetching names '\(name)', which is not a relationship of entity '\(entity.name ?? "?")'"
                )
            }
            let sources = objects.filter { !$0.hasTemporaryID && $0.lifecycle != .deleted }
            let loaded =
                relationship.isToMany
                ? try prefetchToMany(relationship, of: sources, coordinator: coordinator)
                : try prefetchToOne(relationship, of: sources, coordinator: coordinator)
            try prefetch(deeper, of: loaded, entity: destination)
        }
    }

    private func prefetchToMany(
        _ relationship: NSRelationshipDescription, of sources: [NSManagedObject],
        coordinator: NSPersistentStoreCoordinator
    ) throws -> [NSManagedObject] {
        // Objects that already hold the relationship (maybe with unsaved changes) keep it.
        let pending = sources.filter { $0.storage[relationship.slot] == nil }
        guard !pending.isEmpty else { return [] }
        let related = try coordinator.relatedRows(
            of: pending.map(\.objectID), relationship: relationship, at: readGeneration, by: self)
        var membersByKey: [Int64: [NSManagedObject]] = [:]
        var destinations: [NSManagedObject] = []
        destinations.reserveCapacity(related.count)
        for (source, row) in related {
            let object = register(row, asFault: true)
            membersByKey[source, default: []].append(object)
            destinations.append(object)
        }
        for object in pending {
            let members = ManagedObjectSet(membersByKey[object.objectKey.primaryKey] ?? [])
            object.storage[relationship.slot] = ToManyRelationship(members: members, committed: members)
        }
        return destinations
    }

    private func prefetchToOne(
        _ relationship: NSRelationshipDescription, of sources: [NSManagedObject],
        coordinator: NSPersistentStoreCoordinator
    ) throws -> [NSManagedObject] {
        // Sources hold their destination objects, which keeps the prefetched rows alive;
        // a fault whose row its fetch already read is loaded for that (no query).
        var holders: [NSManagedObject] = []
        var wanted: [NSManagedObjectID] = []
        var seen = Set<NSManagedObjectID>()
        for object in sources {
            if object.isFaultStorage, object.snapshot != nil, try !loadFault(object) {
                handleInaccessibleFault(object, triggeredBy: nil)
            }
            guard !object.isFaultStorage else { continue }
            holders.append(object)
            guard let id = object.storage[relationship.slot] as? NSManagedObjectID, seen.insert(id).inserted else {
                continue
            }
            if let registered = registry[id], !registered.isFaultStorage || registered.snapshot != nil { continue }
            wanted.append(id)
        }
        var destinations: [ObjectKey: NSManagedObject] = [:]
        for row in try coordinator.rows(for: wanted, at: readGeneration, by: self) {
            destinations[row.key] = register(row, asFault: true)
        }
        var result: [NSManagedObject] = []
        for object in holders {
            guard let id = object.storage[relationship.slot] as? NSManagedObjectID else { continue }
            let destination = destinations[id.key] ?? self.object(with: id)
            object.storage[relationship.slot] = destination
            result.append(destination)
        }
        return result
    }
}
