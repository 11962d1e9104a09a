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
        guard let context = managedObjectContext as? SwiftDataObjectContext,
              let type = context.modelTypes[entity.name ?? ""]
        else {
            preconditionFailure("A SwiftData object of entity '\(entity.name ?? "?")' is outside any model context")
        }
        let made = Self.makeModel(type, over: self)
        model = made
        return made
    }

    private static func makeModel<Model: PersistentModel>(_ type: Model.Type, over object: SwiftDataManagedObject) -> any PersistentModel {
        Model(backingData: _ModelBackingData<Model>(object: object))
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

    init(concurrencyType: ConcurrencyType, modelTypes: [String: any PersistentModel.Type]) {
        self.modelTypes = modelTypes
        super.init(concurrencyType: concurrencyType)
    }
}
