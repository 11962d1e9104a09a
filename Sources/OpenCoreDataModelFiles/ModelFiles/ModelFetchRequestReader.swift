/// Builds a fetch request from a `<fetchRequest>` element: a model's named template or
/// a fetched property's query.
package enum ModelFetchRequestReader {
    /// Result types by the names and numbers Xcode has written for them.
    package static let resultTypesByName: [String: NSFetchRequestResultType] = [
        "0": .managedObjectResultType, "ManagedObject": .managedObjectResultType,
        "1": .managedObjectIDResultType, "ManagedObjectID": .managedObjectIDResultType,
        "2": .dictionaryResultType, "Dictionary": .dictionaryResultType,
        "4": .countResultType, "Count": .countResultType,
    ]

    package static func request(
        _ values: ModelElementValues, entitiesByName: [String: NSEntityDescription]
    ) throws -> NSFetchRequest<NSFetchRequestResult> {
        try values.checkChildren([])
        let entityName = try values.required("entity")
        guard let entity = entitiesByName[entityName] else {
            throw values.error("names entity '\(entityName)' that the model does not have")
        }
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = entity
        request.predicate = try values.predicate("predicateString")
        request.fetchLimit = try values.integer("fetchLimit") ?? 0
        request.fetchOffset = try values.integer("fetchOffset") ?? 0
        request.fetchBatchSize = try values.integer("fetchBatchSize") ?? 0
        if let name = values["resultType"] {
            guard let type = resultTypesByName[name] else {
                throw values.error("has resultType \"\(name)\", which is not a fetch result type")
            }
            request.resultType = type
        }
        // Xcode has spelled some of these flags two ways over the years.
        request.includesSubentities = try values.flag(
            "includesSubentities", default: values.flag("includeSubentities", default: true))
        request.includesPropertyValues = try values.flag(
            "includesPropertyValues", default: values.flag("includePropertyValues", default: true))
        request.includesPendingChanges = try values.flag("includesPendingChanges", default: true)
        request.returnsObjectsAsFaults = try values.flag(
            "returnObjectsAsFaults", default: values.flag("returnsObjectsAsFaults", default: true))
        request.returnsDistinctResults = try values.flag(
            "returnDistinctResults", default: values.flag("returnsDistinctResults", default: false))
        return request
    }
}
