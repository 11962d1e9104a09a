import OpenCoreData

/// The model of the batch writers (the worker's default mode): one entity, `Entry`, with
/// `batch`, `row` and `writer`. The worker and the tests open the store with it.
public func entryModel() -> NSManagedObjectModel {
    let entry = NSEntityDescription()
    entry.name = "Entry"
    entry.managedObjectClassName = "NSManagedObject"
    entry.properties = [
        ("batch", NSAttributeType.integer64AttributeType), ("row", .integer64AttributeType),
        ("writer", .stringAttributeType),
    ].map { name, type in
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        return attribute
    }
    let model = NSManagedObjectModel()
    model.entities = [entry]
    return model
}
