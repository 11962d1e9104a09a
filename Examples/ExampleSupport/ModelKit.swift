import OpenCoreData

/// Builds the seed apps' models in code, as an app without a model file builds them.
public enum ModelKit {
    /// An entity whose objects are of class `objectClass`.
    public static func entity(
        _ name: String, _ objectClass: NSManagedObject.Type = NSManagedObject.self,
        _ attributes: [NSAttributeDescription]
    ) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName =
            objectClass == NSManagedObject.self ? "NSManagedObject" : NSStringFromClass(objectClass)
        entity.properties = attributes
        return entity
    }

    /// An attribute; optional unless `optional` is false.
    public static func attribute(
        _ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil,
        externalStorage: Bool = false
    ) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.defaultValue = defaultValue
        attribute.allowsExternalBinaryDataStorage = externalStorage
        return attribute
    }

    /// Relates `source.name` (to-many when `toMany`) and its inverse `destination.inverse` (a to-one).
    public static func relate(
        _ source: NSEntityDescription, _ name: String, toMany: Bool = true,
        deleteRule: NSDeleteRule = .nullifyDeleteRule,
        _ destination: NSEntityDescription, inverse: String, inverseDeleteRule: NSDeleteRule = .nullifyDeleteRule
    ) {
        let forward = NSRelationshipDescription()
        forward.name = name
        forward.destinationEntity = destination
        forward.maxCount = toMany ? 0 : 1
        forward.deleteRule = deleteRule
        let backward = NSRelationshipDescription()
        backward.name = inverse
        backward.destinationEntity = source
        backward.maxCount = 1
        backward.deleteRule = inverseDeleteRule
        forward.inverseRelationship = backward
        backward.inverseRelationship = forward
        source.properties.append(forward)
        destination.properties.append(backward)
    }

    /// A model of `entities`.
    public static func model(_ entities: NSEntityDescription...) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        model.entities = entities
        return model
    }
}
