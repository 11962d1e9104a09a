/// One uniqueness-constraint conflict a save met: objects that would share the values
/// of a constraint of their entity (`NSEntityDescription.uniquenessConstraints`).
///
/// ``databaseObject`` is the stored object already holding the values, or `nil` when
/// only objects of the context collide. Merge policies read it to pick the survivor.
open class NSConstraintConflict: NSObject, @unchecked Sendable {
    /// The names of the constrained properties.
    public let constraint: [String]
    /// The object whose row in the store holds the values, if any.
    public let databaseObject: NSManagedObject?
    /// The stored values of ``databaseObject``.
    public let databaseSnapshot: [String: Any]?
    /// The context's objects that would duplicate the values.
    public let conflictingObjects: [NSManagedObject]
    /// The last saved values of each conflicting object (empty for new objects), in the same order.
    public let conflictingSnapshots: [[AnyHashable: Any]]

    /// A conflict over `contraint` between `databaseObject` (stored values `databaseSnapshot`)
    /// and `conflictingObjects` (saved values `conflictingSnapshots`, one per object).
    public init(
        constraint contraint: [String], database databaseObject: NSManagedObject?,
        databaseSnapshot: [AnyHashable: Any]?, conflicting conflictingObjects: [NSManagedObject],
        conflictingSnapshots: [Any]
    ) {
        constraint = contraint
        self.databaseObject = databaseObject
        self.databaseSnapshot = databaseSnapshot.map { snapshot in
            Dictionary(
                snapshot.compactMap { key, value in (key.base as? String).map { ($0, value) } },
                uniquingKeysWith: { first, _ in first })
        }
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots.map { ($0 as? [AnyHashable: Any]) ?? [:] }
    }

    /// The constrained values the objects share, by property name (`NSNull` for nil).
    open var constraintValues: [String: Any] {
        guard let object = conflictingObjects.first ?? databaseObject else { return [:] }
        var result: [String: Any] = [:]
        for name in constraint {
            guard let property = object.entity.facts.propertiesByName[name], property.slot < object.storage.count else {
                continue
            }
            if property is NSRelationshipDescription {
                result[name] = NSManagedObject.objectID(of: object.storage[property.slot]) ?? NSNull()
            } else if let attribute = property as? NSAttributeDescription {
                result[name] =
                    object.storage[property.slot].map { AttributeValue.publicValue($0, type: attribute.attributeType) }
                    ?? NSNull()
            }
        }
        return result
    }

    open override var description: String {
        "<NSConstraintConflict: \(constraint) = \(constraintValues), database object \(databaseObject?.objectID.uriRepresentation().absoluteString ?? "none"), \(conflictingObjects.count) conflicting>"
    }
}
