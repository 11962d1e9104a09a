/// How an entity mapping produces destination objects.
public enum NSEntityMappingType: UInt, Sendable {
    /// Not set.
    case undefinedEntityMappingType = 0
    /// A custom migration policy creates the destination objects.
    case customEntityMappingType = 1
    /// The destination entity is new: no source objects.
    case addEntityMappingType = 2
    /// The source entity is gone: its objects are not migrated.
    case removeEntityMappingType = 3
    /// Objects are copied unchanged.
    case copyEntityMappingType = 4
    /// Objects are copied with their properties mapped.
    case transformEntityMappingType = 5
}

/// How the objects of one source entity become objects of one destination entity.
open class NSEntityMapping: NSObject, @unchecked Sendable {
    /// The mapping's name (Core Data names inferred ones `SourceToDestination`).
    open var name: String!
    /// How destination objects are produced.
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType
    /// The source entity's name (`nil` for an add mapping).
    open var sourceEntityName: String?
    /// The source entity's version hash.
    open var sourceEntityVersionHash: Data?
    /// The destination entity's name (`nil` for a remove mapping).
    open var destinationEntityName: String?
    /// The destination entity's version hash.
    open var destinationEntityVersionHash: Data?
    /// How each destination attribute gets its value.
    open var attributeMappings: [NSPropertyMapping]?
    /// How each destination relationship gets its objects.
    open var relationshipMappings: [NSPropertyMapping]?
    /// The expression that yields the source objects (`FETCH(FUNCTION($manager, …))` in Xcode's files).
    open var sourceExpression: NSExpression?
    /// The class name of the `NSEntityMigrationPolicy` that runs this mapping.
    open var entityMigrationPolicyClassName: String?
    /// Anything the app keeps with the mapping.
    open var userInfo: [AnyHashable: Any]?

    // MARK: Equality

    /// Whether `object` is an entity mapping with the same name, type, entities, version
    /// hashes, source expression, policy class, property mappings and user info.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSEntityMapping else { return false }
        if other === self { return true }
        return name == other.name && mappingType == other.mappingType
            && sourceEntityName == other.sourceEntityName && destinationEntityName == other.destinationEntityName
            && sourceEntityVersionHash == other.sourceEntityVersionHash
            && destinationEntityVersionHash == other.destinationEntityVersionHash
            && sourceExpression == other.sourceExpression
            && entityMigrationPolicyClassName == other.entityMigrationPolicyClassName
            && (attributeMappings ?? []) == (other.attributeMappings ?? [])
            && (relationshipMappings ?? []) == (other.relationshipMappings ?? [])
            && MappingUserInfo.equal(userInfo, other.userInfo)
    }

    /// A hash consistent with ``isEqual(_:)``.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(name)
        hasher.combine(mappingType)
        hasher.combine(destinationEntityName)
        return hasher.finalize()
    }
}
