/// How the objects of a store made with one model become objects of another: a list of
/// entity mappings, each with its property mappings.
open class NSMappingModel: NSObject, @unchecked Sendable {
    /// The entity mappings, one per destination entity (and one per removed source entity).
    open var entityMappings: [NSEntityMapping]! = []

    /// The entity mappings by name.
    open var entityMappingsByName: [String: NSEntityMapping] {
        var result: [String: NSEntityMapping] = [:]
        for mapping in entityMappings ?? [] { if let name = mapping.name { result[name] = mapping } }
        return result
    }

    /// Whether inference made this mapping: its removals were not chosen by the app, so a
    /// migration refuses to drop the rows they would drop (``OpenCoreDataMigrationAllowsDataLossOption``).
    package var isInferred = false

    /// Creates an empty mapping model.
    public override init() { super.init() }

    /// The mapping lightweight migration uses between two models, inferred from their
    /// differences: entities and properties matched by name or `renamingIdentifier`,
    /// added and removed ones, optionality changes (a default fills what was nil) and
    /// numeric type changes.
    ///
    /// Throws `NSInferredMappingModelError` naming the change when a difference cannot
    /// be inferred (such as a string attribute becoming a date).
    ///
    /// - Parameters:
    ///   - source: The model the store was made with.
    ///   - destination: The model to migrate it to.
    /// - Returns: The mapping lightweight migration would use.
    /// - Throws: ``/OpenCoreDataModel/NSInferredMappingModelError`` when the change cannot be inferred, saying
    ///   which entity or property stops it.
    open class func inferredMappingModel(
        forSourceModel source: NSManagedObjectModel, destinationModel destination: NSManagedObjectModel
    ) throws -> NSMappingModel {
        try MappingInference(source: source.entities, destination: destination.entities).mappingModel()
    }

    // MARK: Equality

    /// Whether `object` is a mapping model with equal entity mappings, in the same order.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSMappingModel else { return false }
        return other === self || (entityMappings ?? []) == (other.entityMappings ?? [])
    }

    /// A hash consistent with ``isEqual(_:)``: the entity mappings' names.
    open override var hash: Int {
        var hasher = Hasher()
        for mapping in entityMappings ?? [] { hasher.combine(mapping.name) }
        return hasher.finalize()
    }
}
