/// Applies delete rules when a deleted object is processed.
///
/// `prepareForDeletion()` runs first, then each relationship's rule: nullify removes
/// the object from the other side, cascade deletes the destinations (each object is
/// deleted once, so cycles end), deny is checked later by validation, and no-action
/// leaves the other side alone.
enum DeletePropagation {
    static func apply(to object: NSManagedObject, in context: NSManagedObjectContext) {
        object.prepareForDeletion()
        for case let relationship as NSRelationshipDescription in object.entity.facts.slots {
            switch relationship.deleteRule {
            case .nullifyDeleteRule:
                guard let inverse = relationship.inverseRelationship else { continue }
                for target in destinations(of: object, relationship) { target.detach(object, from: inverse) }
            case .cascadeDeleteRule:
                for target in destinations(of: object, relationship) where target.lifecycle != .deleted {
                    context.delete(target)
                }
            case .denyDeleteRule, .noActionDeleteRule:
                continue
            }
        }
    }

    static func destinations(of object: NSManagedObject, _ relationship: NSRelationshipDescription) -> [NSManagedObject]
    {
        if relationship.isToMany { return Array(object.toMany(relationship).members) }
        return object.toOne(relationship).map { [$0] } ?? []
    }
}
