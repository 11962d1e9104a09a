/// What the core adds to entity descriptions: their objects' facts and class, and the
/// class methods Core Data offers for finding an entity and inserting an object by name.
extension NSEntityDescription {
    /// What the core computed for the entity's objects when the model was frozen; `nil` before.
    package var frozenFacts: EntityFacts? {
        objectFacts.map { unsafeDowncast($0, to: EntityFacts.self) }
    }

    /// The frozen facts; the model must be frozen (creating an object freezes its entity's
    /// model). An entity in no model has none: its objects are a programmer error that traps.
    package var facts: EntityFacts {
        guard let objectFacts else {
            preconditionFailure(
                "Entity '\(name ?? "")' belongs to no NSManagedObjectModel: add it to a model before creating its objects"
            )
        }
        return unsafeDowncast(objectFacts, to: EntityFacts.self)
    }

    /// The class that represents this entity's objects, found as ``ManagedObjectClassRegistry`` describes.
    var managedObjectClass: NSManagedObject.Type {
        facts.objectClass(for: self)
    }

    /// Makes a new object of this entity's class, inserted into `context` when given.
    func instantiate(insertInto context: NSManagedObjectContext?) -> NSManagedObject {
        managedObjectClass.init(entity: self, insertInto: context)
    }

    /// Finds the entity named `entityName` in the model of the context's coordinator.
    ///
    /// - Parameters:
    ///   - entityName: The entity's name.
    ///   - context: A context whose coordinator has a model.
    /// - Returns: The entity, or `nil` when the model has none of that name.
    public class func entity(
        forEntityName entityName: String, in context: NSManagedObjectContext
    ) -> NSEntityDescription? {
        context.managedObjectModel?.entitiesByName[entityName]
    }

    /// Creates an object of the named entity and inserts it into `context`.
    ///
    /// An unknown entity name is a programmer error that Core Data raises on; it traps
    /// here with the name in the message. Use ``entity(forEntityName:in:)`` to check first.
    ///
    /// - Parameters:
    ///   - entityName: The entity's name.
    ///   - context: The context to insert the object into.
    /// - Returns: The new object, of the entity's class. Discardable, as Objective-C
    ///   methods are in Swift: code often inserts and then fetches or relates the object.
    @discardableResult
    public class func insertNewObject(
        forEntityName entityName: String, into context: NSManagedObjectContext
    ) -> NSManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            preconditionFailure(
                "+entityForName: could not locate an entity named '\(entityName)' in the context's model")
        }
        return entity.instantiate(insertInto: context)
    }
}
