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

    /// The model over this object when it is a `T` (made now if none is alive), else `nil`.
    ///
    /// What fetches call for each row: it casts to the class `T` rather than through the
    /// `PersistentModel` existential.
    func resolvedModel<T: PersistentModel>(as type: T.Type) -> T? {
        if let model { return model as? T }
        guard let context = managedObjectContext as? SwiftDataObjectContext,
              let modelType = context.modelTypes[entity.name ?? ""], modelType == T.self
        else { return resolvedModel() as? T }
        let made = T(backingData: _ModelBackingData<T>(object: self))
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
    /// Per model type, its table and its properties' slots (see ``ModelTable/slots(in:)``).
    let layouts: [ObjectIdentifier: ModelLayout]

    init(concurrencyType: ConcurrencyType, container: ModelContainer) {
        modelTypes = container.modelTypes
        layouts = container.layouts
        super.init(concurrencyType: concurrencyType)
    }
}
