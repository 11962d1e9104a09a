/// Conflicts a save's checks found, with the objects they concern: the store wrote
/// nothing, the merge policy settles them (where it may fetch and fire faults), and the
/// save runs again. It stays on the saving context's queue.
struct SaveConflictsFound {
    /// Updated or deleted objects whose rows changed or vanished, with the row now (`nil`: gone).
    var locking: [(object: NSManagedObject, row: StoreRow?)] = []
    /// Objects sharing constrained values, with the stored row holding them, if any.
    var constraints: [(names: [String], objects: [NSManagedObject], databaseRow: StoreRow?)] = []
}

/// The checks of one save, as the store runs them inside the write's transaction (see
/// ``StoreSaveChecks``): every updated and deleted object's version against its row's, and
/// every uniqueness constraint of inserted and updated objects among themselves and
/// against the stored rows. It also turns the conflicts the store reports back into the
/// objects they concern, for the merge policy.
struct SaveConflictScan {
    let inserted: [NSManagedObject]
    let updated: [NSManagedObject]
    let deleted: [NSManagedObject]

    /// The objects each uniqueness check stands for, by position in ``checks``' list.
    private(set) var groups: [(names: [String], objects: [NSManagedObject])] = []
    /// The checks to send with the save's request.
    private(set) var checks = StoreSaveChecks()

    /// Prepares the checks; `locking: false` leaves version checks to the writer, whose
    /// conditional `UPDATE`/`DELETE` fails on the first stale row (see `writeResolvingConflicts`).
    init(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject], locking: Bool) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        checks.versions = locking
        addConstraintChecks()
    }

    /// The conflicts the store reported, with the objects they concern.
    func found(_ conflicts: StoreSaveConflicts) -> SaveConflictsFound {
        var found = SaveConflictsFound()
        if !conflicts.stale.isEmpty {
            var objects: [StoreSaveRequest.RowReference: NSManagedObject] = [:]
            for object in updated + deleted {
                guard let key = object.objectID.primaryKey else { continue }
                objects[StoreSaveRequest.RowReference(entity: object.entity, primaryKey: key)] = object
            }
            found.locking = conflicts.stale.compactMap { stale in objects[stale.row].map { ($0, stale.current) } }
        }
        found.constraints = conflicts.duplicates.map { duplicate in
            (groups[duplicate.check].names, groups[duplicate.check].objects, duplicate.stored)
        }
        return found
    }

    // MARK: Uniqueness constraints

    /// One constraint as the save checks it: the entity declaring it and its properties.
    private struct Constraint {
        let owner: NSEntityDescription
        let properties: [NSPropertyDescription]
        var names: [String] { properties.map(\.name) }
    }

    /// Objects of one constraint and one set of values.
    private struct Group {
        let constraint: Constraint
        let values: [Any?]
        var objects: [NSManagedObject]
    }

    private mutating func addConstraintChecks() {
        var groups: [Group] = []
        var index: [[AnyHashable]: Int] = [:]
        var constraintsByEntity: [ObjectIdentifier: [Constraint]] = [:]
        for object in inserted + updated where object.lifecycle == .inserted || object.lifecycle == .persisted {
            let entityKey = ObjectIdentifier(object.entity)
            let constraints = constraintsByEntity[entityKey] ?? Self.constraints(of: object.entity)
            constraintsByEntity[entityKey] = constraints
            for constraint in constraints {
                // A saved object keeps its row's values unless it changes a constrained property.
                if object.lifecycle == .persisted, !Self.changes(object, constraint) { continue }
                guard let values = Self.values(of: object, constraint) else { continue }
                let key: [AnyHashable] =
                    [ObjectIdentifier(constraint.owner), constraint.names] + values.map(Self.hashable)
                if let position = index[key] {
                    groups[position].objects.append(object)
                } else {
                    index[key] = groups.count
                    groups.append(Group(constraint: constraint, values: values, objects: [object]))
                }
            }
        }
        guard !groups.isEmpty else { return }
        // Rows the save deletes, or moves to other values of a constraint, hold no values
        // once it commits: a stored row of theirs is no conflict.
        let deletedIDs = Set(deleted.map(\.objectID))
        var released: [[AnyHashable]: StoreSaveChecks.ReleasedRows] = [:]
        for group in groups {
            let constraint = group.constraint
            let releasedKey: [AnyHashable] = [ObjectIdentifier(constraint.owner), constraint.names]
            let rows =
                released[releasedKey]
                ?? StoreSaveChecks.ReleasedRows(
                    deleted: deletedIDs,
                    changed: Set(
                        updated.filter { $0.lifecycle == .persisted && Self.changes($0, constraint) }.map(\.objectID))
                )
            released[releasedKey] = rows
            // To-ones are already IDs (see `values(of:_:)`), as the store compares them.
            let values = group.values
            // Rows can only hold saved objects, and external data is not compared in the store.
            let mayBeStored =
                !values.contains { ($0 as? NSManagedObjectID)?.isTemporaryID == true }
                && !constraint.properties.contains {
                    ($0 as? NSAttributeDescription)?.allowsExternalBinaryDataStorage == true
                }
            // Values one object holds and no row can hold cannot conflict: nothing to send.
            if !mayBeStored && group.objects.count == 1 { continue }
            checks.uniqueness.append(
                StoreSaveChecks.UniquenessCheck(
                    entity: constraint.owner, properties: constraint.properties, values: values,
                    mayBeStored: mayBeStored,
                    holders: group.objects.map(\.objectID), released: rows
                ))
            self.groups.append((constraint.names, group.objects))
        }
    }

    /// Whether the saved `object` changes a property of `constraint` in this save.
    private static func changes(_ object: NSManagedObject, _ constraint: Constraint) -> Bool {
        constraint.properties.contains { object.changedSlots.contains($0.slot) && object.isChanged($0) }
    }

    /// The constraints of `entity`: its own and its ancestors', each checked among the
    /// declaring entity's rows (subentities included). Constraints naming unknown
    /// properties or to-manys are left out (the model validator reports them).
    private static func constraints(of entity: NSEntityDescription) -> [Constraint] {
        var result: [Constraint] = []
        var owner: NSEntityDescription? = entity
        while let current = owner {
            for constraint in current.uniquenessConstraints {
                let properties = NSEntityDescription.propertyNames(inConstraint: constraint).compactMap {
                    current.facts.propertiesByName[$0]
                }
                guard !properties.isEmpty, properties.count == constraint.count,
                    properties.allSatisfy({
                        $0 is NSAttributeDescription || ($0 as? NSRelationshipDescription)?.isToMany == false
                    })
                else { continue }
                result.append(Constraint(owner: current, properties: properties))
            }
            owner = current.superentity
        }
        return result
    }

    /// The object's values of the constraint's properties (to-ones as IDs), or `nil`
    /// when one is nil: as in SQL, nil never equals nil.
    private static func values(of object: NSManagedObject, _ constraint: Constraint) -> [Any?]? {
        var result: [Any?] = []
        for property in constraint.properties {
            guard property.slot < object.storage.count else { return nil }
            let value = object.storage[property.slot]
            if property is NSRelationshipDescription {
                guard let id = NSManagedObject.objectID(of: value) else { return nil }
                result.append(id)
            } else {
                guard let value else { return nil }
                result.append(value)
            }
        }
        return result
    }

    private static func hashable(_ value: Any?) -> AnyHashable {
        switch value {
        case let object as NSManagedObject: return AnyHashable(object.objectID)
        case let value as AnyHashable: return value
        case let value?: return AnyHashable(String(describing: value))
        case nil: return AnyHashable(0 as Int?)
        }
    }
}
