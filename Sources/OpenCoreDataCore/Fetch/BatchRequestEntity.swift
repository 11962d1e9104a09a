/// Finds the entity a batch request targets in the coordinator's model.
enum BatchRequestEntity {
    /// The explicit entity when given (it must belong to `model`), else the one named `name`.
    static func resolve(
        _ explicit: NSEntityDescription?, name: String, in model: NSManagedObjectModel, request: String
    ) throws -> NSEntityDescription {
        if let explicit {
            // An entity from another model has other entity numbers and tables: look it up by name.
            if explicit.managedObjectModel === model { return explicit }
            if let name = explicit.name, let same = model.entitiesByName[name] { return same }
        }
        guard let entity = model.entitiesByName[name] else {
            throw CoreDataError.make(
                NSCoreDataError,
                "The \(request) request's entity '\(name)' is not in the model (entities: \(model.entitiesByName.keys.sorted().joined(separator: ", ")))"
            )
        }
        return entity
    }
}
