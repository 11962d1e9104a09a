import OpenCoreData

/// The model of the batch writers (the worker's default mode): one entity, `Entry`, with
/// `batch`, `row` and `writer`. The worker and the tests open the store with it.
public func entryModel() -> NSManagedObjectModel {
    workerModel([
        (
            "Entry",
            [("batch", .integer64AttributeType), ("row", .integer64AttributeType), ("writer", .stringAttributeType)]
        )
    ])
}

/// The shared counters' attributes, the same in every workload that has them.
public let counterAttributes: [(String, NSAttributeType)] = [
    ("name", .stringAttributeType), ("value", .integer64AttributeType), ("label", .stringAttributeType),
]

/// A model of plain entities (`NSManagedObject`s) of optional attributes, as the workers
/// build theirs: each entity a name and its attributes' names and types.
public func workerModel(_ entities: [(String, [(String, NSAttributeType)])]) -> NSManagedObjectModel {
    let model = NSManagedObjectModel()
    model.entities = entities.map { name, attributes in
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = "NSManagedObject"
        entity.properties = attributes.map { name, type in
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        return entity
    }
    return model
}
