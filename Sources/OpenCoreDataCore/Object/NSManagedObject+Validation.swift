// Validation as Core Data does it on save: required values, counts, validation
// predicates (where min/max and patterns from models live), deny rules, and the
// assignments key-value coding refused.
extension NSManagedObject {
    /// Checks one value for `key`: required-ness, type, relationship counts and validation predicates.
    ///
    /// Override to add rules (call `super`). Core Data passes the value by pointer so a
    /// validator may replace it; here it is `inout` for the same purpose.
    func builtInValidateValue(_ value: inout Any?, forKey key: String) throws {
        let facts = entityFacts
        guard let slot = facts.propertiesByName.slot(named: key) else {
            throw CoreDataError.validation(
                NSManagedObjectValidationError, object: self, key: key, value: value, "no such property")
        }
        if let error = validationError(for: facts.slotFacts[slot], value: value) { throw error }
    }

    /// Validates the object as a save of a new object would.
    func builtInValidateForInsert() throws {
        if let error = CoreDataError.combine(propertyValidationErrors()) { throw error }
    }

    /// Validates the object as a save of changes would.
    func builtInValidateForUpdate() throws {
        if let error = CoreDataError.combine(propertyValidationErrors()) { throw error }
    }

    /// Checks deny rules: deleting fails while a deny relationship still has destinations.
    func builtInValidateForDelete() throws {
        if let error = CoreDataError.combine(deleteValidationErrors()) { throw error }
    }

    /// Every problem with the object's current values, one error each.
    func propertyValidationErrors() -> [NSError] {
        var errors: [NSError] = []
        if entity.isAbstract {
            errors.append(
                CoreDataError.validation(
                    NSManagedObjectValidationError, object: self, key: nil, value: nil,
                    "cannot save an instance of abstract entity '\(entity.name ?? "?")'; insert one of its subentities")
            )
        }
        let hasRejected = !rejectedAssignments.isEmpty
        if hasRejected {
            for (key, message) in rejectedAssignments.sorted(by: { $0.key < $1.key }) {
                errors.append(
                    CoreDataError.validation(
                        NSManagedObjectValidationError, object: self, key: key, value: nil, message))
            }
        }
        let facts = entityFacts
        let isUnsaved = isUnsaved
        for slot in facts.slotFacts.indices {
            let slotFacts = facts.slotFacts[slot]
            if hasRejected, rejectedAssignments[slotFacts.name] != nil { continue }
            // A to-many never loaded is unchanged since the last save, where it was valid;
            // checking it would cost a query per object.
            if slotFacts.kind == .toMany, storage[slot] == nil, !isUnsaved { continue }
            var value: Any? = currentValueForValidation(slot: slot, slotFacts)
            do {
                try validateValue(&value, forKey: slotFacts.name)
            } catch let error as NSError {
                if error.code == NSValidationMultipleErrorsError,
                    let details = error.userInfo[NSDetailedErrorsKey] as? [NSError]
                {
                    errors += details
                } else {
                    errors.append(error)
                }
            }
        }
        for (relationship, target) in facts.hasRelationships ? foreignDestinations() : [] {
            errors.append(
                CoreDataError.validation(
                    NSManagedObjectExternalRelationshipError, object: self, key: relationship.name, value: target,
                    "relationship points to an object that is not in this object's context (insert it first)"
                ))
        }
        return errors
    }

    func deleteValidationErrors() -> [NSError] {
        var errors: [NSError] = []
        for case let relationship as NSRelationshipDescription in entityFacts.slots
        where relationship.deleteRule == .denyDeleteRule {
            let remaining = DeletePropagation.destinations(of: self, relationship).filter { $0.lifecycle != .deleted }
            if !remaining.isEmpty {
                errors.append(
                    CoreDataError.validation(
                        NSValidationRelationshipDeniedDeleteError, object: self, key: relationship.name,
                        value: remaining.first,
                        "cannot be deleted while relationship '\(relationship.name)' (delete rule Deny) still has \(remaining.count) object(s)"
                    ))
            }
        }
        return errors
    }

    /// Related objects that live in no context or another context: saving them would break the graph.
    private func foreignDestinations() -> [(NSRelationshipDescription, NSManagedObject)] {
        var result: [(NSRelationshipDescription, NSManagedObject)] = []
        for case let relationship as NSRelationshipDescription in entityFacts.slots {
            let targets: [NSManagedObject]
            if relationship.isToMany {
                targets = (storage[relationship.slot] as? ToManyRelationship).map { Array($0.members) } ?? []
            } else {
                targets = (storage[relationship.slot] as? NSManagedObject).map { [$0] } ?? []
            }
            for target in targets where target.managedObjectContext !== managedObjectContext {
                result.append((relationship, target))
            }
        }
        return result
    }

    private func currentValueForValidation(slot: Int, _ facts: SlotFacts) -> Any? {
        if facts.kind == .toMany {
            return (storage[slot] as? ToManyRelationship).map { NSSet(array: Array($0.members)) }
        }
        return storage[slot]
    }

    /// The built-in checks for one property value.
    private func validationError(for facts: SlotFacts, value: Any?) -> NSError? {
        // The common case first: an attribute without predicates holding its stored form
        // (as every value set through an accessor does) or nothing.
        if facts.kind == .attribute, !facts.hasValidationPredicates {
            guard let value else {
                return facts.isOptional
                    ? nil
                    : CoreDataError.validation(
                        NSValidationMissingMandatoryPropertyError, object: self, key: facts.name, value: nil,
                        "is a required value")
            }
            if AttributeValue.isStoredForm(value, of: facts.attributeType) { return nil }
        }
        let property = facts.property
        let value = CollectionValue.unwrapNull(value)
        if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
            let count: Int
            if let set = value as? NSSet {
                count = set.count
            } else if value == nil {
                count = 0
            } else {
                count = Self.managedObjects(in: value)?.count ?? 0
            }
            // A to-many always has a value (an empty set at least), so only its counts
            // constrain it: a non-optional one with no members saves, as in Core Data.
            if count < relationship.minCount && (count > 0 || !relationship.isOptional) {
                return CoreDataError.validation(
                    NSValidationRelationshipLacksMinimumCountError, object: self, key: property.name, value: value,
                    "has \(count) object(s), fewer than the minimum \(relationship.minCount)")
            }
            if relationship.maxCount > 0 && count > relationship.maxCount {
                return CoreDataError.validation(
                    NSValidationRelationshipExceedsMaximumCountError, object: self, key: property.name, value: value,
                    "has \(count) object(s), more than the maximum \(relationship.maxCount)")
            }
            return nil
        }
        guard let value else {
            if property.isOptional { return nil }
            return CoreDataError.validation(
                NSValidationMissingMandatoryPropertyError, object: self, key: property.name, value: nil,
                "is a required value")
        }
        if let composite = property as? NSCompositeAttributeDescription {
            guard let stored = CompositeValue.coerce(value, to: composite) else {
                let reason =
                    CompositeValue.problem(with: value, for: composite)
                    ?? "value of type \(type(of: value)) is not a composite value"
                return CoreDataError.validation(
                    NSManagedObjectValidationError, object: self, key: property.name, value: value, reason)
            }
            // Required elements and the elements' own rules, named by key path (`location.latitude`).
            if let problem = CompositeValue.validationProblem(in: stored, of: composite, keyPath: property.name) {
                return CoreDataError.validation(
                    problem.code, object: self, key: problem.key, value: problem.value, problem.message,
                    predicate: problem.predicate)
            }
        } else if let attribute = property as? NSAttributeDescription,
            AttributeValue.coerce(value, to: attribute) == nil
        {
            return CoreDataError.validation(
                NSManagedObjectValidationError, object: self, key: property.name, value: value,
                "value of type \(type(of: value)) is not a \(attribute.attributeType.displayName)")
        }
        guard !property.validationPredicates.isEmpty else { return nil }
        let checked =
            (property as? NSAttributeDescription).map { AttributeValue.publicValue(value, type: $0.attributeType) }
            ?? value
        for (index, predicate) in property.validationPredicates.enumerated() where !predicate.evaluate(with: checked) {
            let warning = index < property.validationWarnings.count ? property.validationWarnings[index] : nil
            let code = ValidationPredicateKind.errorCode(for: predicate, value: checked)
            return CoreDataError.validation(
                code, object: self, key: property.name, value: checked,
                warning ?? "value \(checked) does not satisfy \(predicate.predicateFormat)", predicate: predicate)
        }
        return nil
    }
}

extension CoreDataError {
    /// A validation error naming the object and key, as Core Data's validation errors do.
    static func validation(
        _ code: Int,
        object: NSManagedObject,
        key: String?,
        value: Any?,
        _ message: String,
        predicate: NSPredicate? = nil
    ) -> NSError {
        var info: [String: Any] = [NSValidationObjectErrorKey: object]
        if let key { info[NSValidationKeyErrorKey] = key }
        if let value { info[NSValidationValueErrorKey] = value }
        if let predicate { info[NSValidationPredicateErrorKey] = predicate }
        let entity = object.entity.name ?? "?"
        let subject = key.map { "\(entity).\($0)" } ?? entity
        return make(code, "\(subject): \(message)", info)
    }
}
