import OpenCoreData

/// Builds models in code, as tests of every engine need them.
public enum ModelBuilder {
    /// An entity named `name` whose objects are of class `className` (its name when not given).
    public static func entity(_ name: String, className: String? = nil) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = className ?? name
        return entity
    }

    /// An attribute of `type`.
    public static func attribute(
        _ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil
    ) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.defaultValue = defaultValue
        return attribute
    }

    /// A model of `entities`.
    public static func model(_ entities: NSEntityDescription...) -> NSManagedObjectModel {
        let model = NSManagedObjectModel()
        model.entities = entities
        return model
    }

    /// A relationship pair; `toMany` sides get `maxCount = 0`.
    public static func pair(
        _ forwardName: String, from source: NSEntityDescription, toMany forwardToMany: Bool,
        rule forwardRule: NSDeleteRule = .nullifyDeleteRule,
        _ inverseName: String, to destination: NSEntityDescription, toMany inverseToMany: Bool,
        rule inverseRule: NSDeleteRule = .nullifyDeleteRule,
        ordered: Bool = false
    ) -> (NSRelationshipDescription, NSRelationshipDescription) {
        let forward = NSRelationshipDescription()
        forward.name = forwardName
        forward.destinationEntity = destination
        forward.maxCount = forwardToMany ? 0 : 1
        forward.deleteRule = forwardRule
        forward.isOrdered = ordered && forwardToMany
        let inverse = NSRelationshipDescription()
        inverse.name = inverseName
        inverse.destinationEntity = source
        inverse.maxCount = inverseToMany ? 0 : 1
        inverse.deleteRule = inverseRule
        forward.inverseRelationship = inverse
        inverse.inverseRelationship = forward
        return (forward, inverse)
    }
}
