import OpenCoreData

/// The Core Data object behind every model: an `NSManagedObject` that knows the model
/// made over it (weakly: the model owns its backing store, which owns this object).
///
/// Every entity of a schema names this class, so fetches make it too.
final class SwiftDataManagedObject: NSManagedObject {
    /// The model over this object, while something holds it.
    weak var model: AnyObject?

    /// The model over this object, made now if none is alive.
    func resolvedModel() -> any PersistentModel {
        if let model = model as? any PersistentModel { return model }
        return makeModel(modelType())
    }

    /// The model over this object when it is a `T` (made now if none is alive), else `nil`.
    ///
    /// What fetches call for each row: it casts to the class `T` rather than through the
    /// `PersistentModel` existential.
    func resolvedModel<T: PersistentModel>(as type: T.Type) -> T? {
        if let model { return model as? T }
        let modelType = modelType()
        guard modelType == T.self else { return makeModel(modelType) as? T }
        return makeModel(T.self)
    }

    /// The model type of the object's entity, which its context knows.
    private func modelType() -> any PersistentModel.Type {
        guard let context = managedObjectContext as? SwiftDataObjectContext,
            let type = context.modelTypesByEntity[ObjectIdentifier(entity)]
        else {
            preconditionFailure("A SwiftData object of entity '\(entity.name ?? "?")' is outside any model context")
        }
        return type
    }

    /// Makes a `Model` over this object and links it as the object's model.
    private func makeModel<Model: PersistentModel>(_ type: Model.Type) -> Model {
        let store = _ModelBackingData<Model>(object: self)
        // `@Model`'s property initializer takes the store instead of making one.
        BackingDataOffer.offer(store)
        let made = Model(backingData: store)
        BackingDataOffer.offer(nil)
        model = made
        return made
    }

    /// The class name entities give, so that Core Data's fetches make this class.
    static let entityClassName = String(reflecting: SwiftDataManagedObject.self)
}

/// The Core Data context behind a ``ModelContext``: it knows the model types by entity
/// name, so that its objects can make their models even after the model context is gone.
final class SwiftDataObjectContext: NSManagedObjectContext, @unchecked Sendable {
    /// The model context driving this one.
    weak var modelContext: ModelContext?
    /// The model type of each entity of the schema.
    let modelTypes: [String: any PersistentModel.Type]
    /// The same by entity instance: what each fetched object asks, without hashing a name.
    let modelTypesByEntity: [ObjectIdentifier: any PersistentModel.Type]
    /// Per model type, its table and its properties' slots (see ``ModelTable/slots(in:)``).
    let layouts: [ObjectIdentifier: ModelLayout]

    init(concurrencyType: ConcurrencyType, container: ModelContainer) {
        modelTypes = container.modelTypes
        let entities = container.persistentContainer.managedObjectModel.entitiesByName
        modelTypesByEntity = container.modelTypes.reduce(into: [:]) { types, pair in
            if let entity = entities[pair.key] { types[ObjectIdentifier(entity)] = pair.value }
        }
        layouts = container.layouts
        super.init(concurrencyType: concurrencyType)
    }
}
