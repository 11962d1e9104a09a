// The benchmark's Core Data model, built in code as an app on OpenCoreData would,
// with its NSManagedObject subclasses. Its SQLite layout (ZITEM, ZPARENT, ZCHILD and
// their indexes) is the one the raw SQLite and GRDB contenders use too.
import OpenCoreData

/// The six-attribute entity of workloads 1–5 and 7.
final class Item: NSManagedObject {
    @Managed var name: String?
    @Managed var number: Int64
    @Managed var amount: Double
    @Managed var created: Date?
    @Managed var flag: Bool
    @Managed var note: String?
}

/// Workload 6's parent: one-to-many `children`.
final class Parent: NSManagedObject {
    @Managed var name: String?
    @Managed var children: Set<Child>?
}

/// Workload 6's child: a value to sum and its `parent`.
final class Child: NSManagedObject {
    @Managed var value: Int64
    @Managed var parent: Parent?
}

enum BenchmarkModel {
    /// Item (`number` indexed, as the queries filter and sort on it), Parent ↔ Child.
    static func make() -> NSManagedObjectModel {
        func entity(_ name: String, _ objectClass: NSManagedObject.Type) -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            entity.managedObjectClassName = String(reflecting: objectClass)
            return entity
        }
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            return attribute
        }
        let item = entity("Item", Item.self)
        let number = attribute("number", .integer64AttributeType, optional: false)
        number.isIndexed = true
        item.properties = [
            attribute("name", .stringAttributeType), number,
            attribute("amount", .doubleAttributeType, optional: false), attribute("created", .dateAttributeType),
            attribute("flag", .booleanAttributeType, optional: false), attribute("note", .stringAttributeType),
        ]

        let parent = entity("Parent", Parent.self)
        let child = entity("Child", Child.self)
        let children = NSRelationshipDescription()
        children.name = "children"
        children.destinationEntity = child
        children.maxCount = 0
        children.deleteRule = .cascadeDeleteRule
        let parentOfChild = NSRelationshipDescription()
        parentOfChild.name = "parent"
        parentOfChild.destinationEntity = parent
        parentOfChild.maxCount = 1
        parentOfChild.deleteRule = .nullifyDeleteRule
        children.inverseRelationship = parentOfChild
        parentOfChild.inverseRelationship = children
        parent.properties = [attribute("name", .stringAttributeType), children]
        child.properties = [attribute("value", .integer64AttributeType, optional: false), parentOfChild]

        let model = NSManagedObjectModel()
        model.entities = [item, parent, child]
        return model
    }
}
