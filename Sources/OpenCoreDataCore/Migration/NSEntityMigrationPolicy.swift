/// The key of the migration manager among the variables of a mapping's expressions (`$manager`).
public let NSMigrationManagerKey = "manager"
/// The key of the source object being migrated (`$source`).
public let NSMigrationSourceObjectKey = "source"
/// The key of the destination object being filled (`$destination`).
public let NSMigrationDestinationObjectKey = "destination"
/// The key of the entity mapping being run (`$entityMapping`).
public let NSMigrationEntityMappingKey = "entityMapping"
/// The key of the property mapping being evaluated (`$propertyMapping`).
public let NSMigrationPropertyMappingKey = "propertyMapping"
/// The key of the entity migration policy running the mapping (`$entityPolicy`).
public let NSMigrationEntityPolicyKey = "entityPolicy"

/// The steps a migration manager takes for one entity mapping, each of which a subclass
/// may override to migrate objects its own way.
///
/// A migration runs every entity mapping through three passes: first each mapping
/// creates its destination objects (``begin(_:with:)``,
/// ``createDestinationInstances(forSource:in:manager:)`` per source object,
/// ``endInstanceCreation(forMapping:manager:)``), then each sets its destination objects'
/// relationships (``createRelationships(forDestination:in:manager:)``,
/// ``endRelationshipCreation(forMapping:manager:)``), then each validates
/// (``performCustomValidation(forMapping:manager:)``, ``end(_:manager:)``). An error
/// thrown by any step stops the migration, and the source store is left as it was.
///
/// The mapping names its policy with `entityMigrationPolicyClassName`; the class must be
/// known to OpenCoreData's class registry (its module-qualified or bare name, as
/// `NSClassFromString` answers here), and it is created with `init()`.
open class NSEntityMigrationPolicy: NSObject, ExpressionFunctionTarget, @unchecked Sendable {
    /// Creates a policy; the manager makes one per entity mapping.
    public required override init() { super.init() }

    /// Called before the mapping creates any destination object.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping about to run.
    ///   - manager: The migration manager running it.
    /// - Throws: Any error, which stops the migration; the source store stays as it was.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Creates the destination objects for one source object. The default creates one
    /// object of the mapping's destination entity, sets its attributes from the
    /// mapping's attribute mappings, and associates it with the source object.
    ///
    /// - Parameters:
    ///   - sInstance: The source object, in the manager's source context.
    ///   - mapping: The entity mapping being run.
    ///   - manager: The migration manager; associate each new object with the source object
    ///     through ``NSMigrationManager/associate(sourceInstance:withDestinationInstance:for:)``.
    /// - Throws: Any error, which stops the migration; the source store stays as it was.
    open func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        try manager.createDefaultDestinationInstance(forSource: sInstance, in: mapping, policy: self)
    }

    /// Called once every source object of the mapping has its destination objects.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping being run.
    ///   - manager: The migration manager running it.
    /// - Throws: Any error, which stops the migration; the source store stays as it was.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Sets the relationships of one destination object. The default evaluates the
    /// mapping's relationship mappings for it.
    ///
    /// - Parameters:
    ///   - dInstance: A destination object this mapping created.
    ///   - mapping: The entity mapping being run.
    ///   - manager: The migration manager, which finds the source objects of `dInstance`.
    /// - Throws: Any error, which stops the migration; the source store stays as it was.
    open func createRelationships(
        forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        try manager.createDefaultRelationships(forDestination: dInstance, in: mapping, policy: self)
    }

    /// Called once every destination object of the mapping has its relationships.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping being run.
    ///   - manager: The migration manager running it.
    /// - Throws: Any error, which stops the migration; the source store stays as it was.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Checks the migrated objects beyond the model's own validation.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping being run.
    ///   - manager: The migration manager running it.
    /// - Throws: Any error, which stops the migration; the source store stays as it was.
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called when the mapping is done.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping that ran.
    ///   - manager: The migration manager running it.
    /// - Throws: Any error, which stops the migration; the source store stays as it was.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Answers `FUNCTION($entityPolicy, "name:", …)` in the mapping's value expressions;
    /// override it for the functions your mapping model calls (Objective-C would send
    /// the message; see ``/OpenCoreDataPredicate/ExpressionFunctionTarget``). The default knows none.
    open func evaluateFunction(named selector: String, arguments: [Any?]) -> Any? { nil }
}
