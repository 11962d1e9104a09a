/// Conflicts a save's transaction found; thrown out of it so the transaction rolls back,
/// the merge policy settles them outside it (where it may fetch and fire faults), and
/// the save runs again. Thrown and caught on the saving context's queue, hence `@unchecked`.
struct SaveConflictsFound: Error, @unchecked Sendable {
    /// Updated or deleted objects whose rows changed or vanished, with the row now (`nil`: gone).
    var locking: [(object: NSManagedObject, row: StoreRow?)] = []
    /// Objects sharing constrained values, with the stored row holding them, if any.
    var constraints: [(names: [String], objects: [NSManagedObject], databaseRow: StoreRow?)] = []

    var isEmpty: Bool { locking.isEmpty && constraints.isEmpty }
}

/// The checks of one save, run inside its transaction: every updated and deleted
/// object's version against its row's, and every uniqueness constraint of inserted and
/// updated objects among themselves and against the stored rows.
struct SaveConflictScan {
    let inserted: [NSManagedObject]
    let updated: [NSManagedObject]
    let deleted: [NSManagedObject]
    let context: NSManagedObjectContext

    /// Runs the checks; `locking: false` leaves version checks to the writer, whose
    /// conditional `UPDATE`/`DELETE` fails on the first stale row (see `writeResolvingConflicts`).
    func run(_ reader: any SaveTransactionReader, locking: Bool) throws -> SaveConflictsFound {
        var found = SaveConflictsFound()
        if locking { try findLockingConflicts(reader, into: &found) }
        try findConstraintConflicts(reader, into: &found)
        return found
    }

    // MARK: Optimistic locking

    private func findLockingConflicts(_ reader: any SaveTransactionReader, into found: inout SaveConflictsFound) throws {
        let checked = updated.filter { $0.lifecycle == .persisted } + deleted
        let byTable = Dictionary(grouping: checked.filter { !$0.objectID.isTemporaryID }) { ObjectIdentifier($0.entity.facts.root) }
        var conflicting: [NSManagedObject] = []
        for objects in byTable.values {
            let versions = try reader.versions(ofKeys: objects.compactMap(\.objectID.primaryKey), in: objects[0].entity)
            for object in objects {
                guard let key = object.objectID.primaryKey else { continue }
                if versions[key] != object.storedVersion { conflicting.append(object) }
            }
        }
        guard !conflicting.isEmpty else { return }
        let rows = Dictionary(try reader.rows(for: conflicting.map(\.objectID)).map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
        for object in conflicting {
            found.locking.append((object, rows[object.objectID]))
        }
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

    private func findConstraintConflicts(_ reader: any SaveTransactionReader, into found: inout SaveConflictsFound) throws {
        var groups: [Group] = []
        var index: [[AnyHashable]: Int] = [:]
        var constraintsByEntity: [ObjectIdentifier: [Constraint]] = [:]
        for object in inserted + updated where object.lifecycle == .inserted || object.lifecycle == .persisted {
            let entityKey = ObjectIdentifier(object.entity)
            let constraints = constraintsByEntity[entityKey] ?? Self.constraints(of: object.entity)
            constraintsByEntity[entityKey] = constraints
            for constraint in constraints {
                // A saved object keeps its row's values unless it changes a constrained property.
                if object.lifecycle == .persisted, !constraint.properties.contains(where: { object.changedSlots.contains($0.slot) && object.isChanged($0) }) {
                    continue
                }
                guard let values = Self.values(of: object, constraint) else { continue }
                let key: [AnyHashable] = [ObjectIdentifier(constraint.owner), constraint.names] + values.map(Self.hashable)
                if let position = index[key] {
                    groups[position].objects.append(object)
                } else {
                    index[key] = groups.count
                    groups.append(Group(constraint: constraint, values: values, objects: [object]))
                }
            }
        }
        for group in groups {
            let databaseRow = try storedDuplicate(of: group, reader)
            if group.objects.count > 1 || databaseRow != nil {
                found.constraints.append((group.constraint.names, group.objects, databaseRow))
            }
        }
    }

    /// The stored row already holding the group's values, unless this save deletes it or
    /// moves it to other values.
    private func storedDuplicate(of group: Group, _ reader: any SaveTransactionReader) throws -> StoreRow? {
        let values = group.values.map { value -> Any? in
            (value as? NSManagedObject)?.objectID ?? value
        }
        // Rows can only hold saved objects; a new destination cannot match one.
        if values.contains(where: { ($0 as? NSManagedObjectID)?.isTemporaryID == true }) { return nil }
        if group.constraint.properties.contains(where: { ($0 as? NSAttributeDescription)?.allowsExternalBinaryDataStorage == true }) { return nil }
        let own = Set(group.objects.map(\.objectID))
        for id in try reader.objectIDs(of: group.constraint.owner, where: group.constraint.properties, equal: values) where !own.contains(id) {
            if let registered = context.registeredObject(for: id) {
                if registered.lifecycle == .deleted { continue }
                if registered.lifecycle == .persisted, let current = Self.values(of: registered, group.constraint),
                   current.map(Self.hashable) != values.map(Self.hashable) {
                    continue
                }
            }
            if let row = try reader.rows(for: [id]).first { return row }
        }
        return nil
    }

    /// The constraints of `entity`: its own and its ancestors', each checked among the
    /// declaring entity's rows (subentities included). Constraints naming unknown
    /// properties or to-manys are left out (the model validator reports them).
    private static func constraints(of entity: NSEntityDescription) -> [Constraint] {
        var result: [Constraint] = []
        var owner: NSEntityDescription? = entity
        while let current = owner {
            for constraint in current.uniquenessConstraints {
                let properties = NSEntityDescription.propertyNames(inConstraint: constraint).compactMap { current.facts.propertiesByName[$0] }
                guard !properties.isEmpty, properties.count == constraint.count,
                      properties.allSatisfy({ $0 is NSAttributeDescription || ($0 as? NSRelationshipDescription)?.isToMany == false })
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
