import OpenCoreData

/// The store behind a model's persisted properties.
///
/// `@Model` gives each model one; SwiftData's default one keeps values in Core Data's
/// object, and so does OpenSwiftData's (`_ModelBackingData`). Code rarely touches it: a
/// model's properties and ``PersistentModel/getValue(forKey:)`` go through it.
public protocol BackingData<Model>: AnyObject {
    /// The model type whose values this stores.
    associatedtype Model: PersistentModel

    /// The model's identifier, once it is in a context.
    var persistentModelID: PersistentIdentifier? { get }

    /// Reads the persisted property at `key`.
    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value

    /// Writes the persisted property at `key`.
    func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value)
}

/// The type of the stored peer `@Model` gives each persisted property (`_name`): it holds
/// nothing, but gives the property's init accessor something to initialize.
public struct _SwiftDataNoType: Sendable {
    /// Makes the empty value.
    public init() {}
}

/// What the framework needs of any model's backing store, whatever its model type.
protocol ModelStorage: AnyObject {
    /// The Core Data object holding the values, once the model is in a context.
    var managedObject: SwiftDataManagedObject? { get }
    /// The context of ``managedObject``.
    var modelContext: ModelContext? { get }
    /// The identifier, once the model is in a context.
    var persistentModelID: PersistentIdentifier? { get }
    /// Makes the model's Core Data object in `context` and moves the values set so far into it.
    func insert(_ model: any PersistentModel, into context: ModelContext)
}

/// OpenSwiftData's backing store: values set before the model is inserted wait here, in
/// the model's property order; from insertion (or fetch) on they live in the Core Data
/// object of the model's context, which the store reads and writes by property index.
///
/// Public because `@Model` expands to code that names it; apps never use it directly.
public final class _ModelBackingData<Model: PersistentModel>: BackingData, ModelStorage {
    /// The model type's table, looked up on first use: `@Model`'s property initializer makes
    /// a store for every model, also those a fetch makes over an object (and then replaces).
    private var knownTable: ModelTable?
    /// Values set before insertion, by property index (`nil`: not set); empty until the first.
    private var pending: [Any?] = []
    private(set) var managedObject: SwiftDataManagedObject?
    /// Each property's slot in ``managedObject``'s entity, or `-1` (see ``ModelTable/slots(in:)``).
    private var slots: [Int] = []
    /// The model's context, held strongly: a model keeps its context (and so its Core Data
    /// object's context) alive, so that it stays readable after the code that fetched it let
    /// go of the context. The context holds models only weakly, so this makes no cycle.
    private var context: ModelContext?

    /// A store for a model made by its initializer, not yet in a context.
    public init() {}

    /// A store over a fetched object.
    init(object: SwiftDataManagedObject) {
        managedObject = object
        let objectContext = object.managedObjectContext as? SwiftDataObjectContext
        context = objectContext?.modelContext
        adoptLayout(of: objectContext)
    }

    var table: ModelTable {
        if let knownTable { return knownTable }
        let table = ModelTable.of(Model.self)
        knownTable = table
        return table
    }

    /// Takes `Model`'s table and slots from `objectContext`'s container; without them, every
    /// property takes the general path.
    private func adoptLayout(of objectContext: SwiftDataObjectContext?) {
        if let layout = objectContext?.layouts[ObjectIdentifier(Model.self)] {
            knownTable = layout.table
            slots = layout.slots
        } else {
            slots = Array(repeating: -1, count: table.properties.count)
        }
    }

    /// The store of `data`, which must be OpenSwiftData's.
    public static func _adopting(_ data: any BackingData<Model>) -> _ModelBackingData<Model> {
        // A class cast, cheaper than casting the existential.
        guard let own = (data as AnyObject) as? _ModelBackingData<Model> else {
            preconditionFailure("\(Model.self) was given backing data of type \(type(of: data)); OpenSwiftData models use _ModelBackingData")
        }
        return own
    }

    /// Ties the Core Data object (if any) to the model made over this store.
    public func _attach(to model: Model) {
        managedObject?.model = model
    }

    public var persistentModelID: PersistentIdentifier? {
        managedObject.map { PersistentIdentifier($0.objectID) }
    }

    var modelContext: ModelContext? { context }

    // MARK: Access by index (what @Model's accessors call)

    /// Stores the initial value of the property at `index` (the property's init accessor).
    public func _initialize<Value>(_ value: Value, at index: Int) {
        _setValue(value, at: index)
    }

    /// Stores the initial value of the optional property at `index`.
    ///
    /// Swift initializes an optional stored property to `nil` in every initializer, also in
    /// `init(backingData:)`, where the store being initialized is the placeholder the fetched
    /// object's store replaces. An unset optional reads as `nil`, so a `nil` leaves the
    /// property unset (fetching a model costs no pending values, and an upsert keeps the stored
    /// value), unless it replaces a default, which must then be written.
    public func _initialize<Wrapped>(_ value: Wrapped?, at index: Int) {
        guard value == nil, managedObject == nil else { return _setValue(value, at: index) }
        if pending.isEmpty { return }
        if table.properties[index].defaultValue == nil {
            pending[index] = nil
            return
        }
        _setValue(value, at: index)
    }

    /// Reads the property at `index`.
    public func _value<Value>(at index: Int) -> Value {
        let property = table.properties[index]
        if let managedObject {
            // The accessor was made for the property's declared type, which is `Value`.
            return unsafeDowncast(property.accessor, to: PropertyAccessor<Value>.self).read(property, from: managedObject, slot: slots[index])
        }
        if index < pending.count, let value = pending[index] { return value as! Value }
        return property.absentValue() as! Value
    }

    /// Writes the property at `index`.
    public func _setValue<Value>(_ value: Value, at index: Int) {
        if let managedObject {
            let property = table.properties[index]
            unsafeDowncast(property.accessor, to: PropertyAccessor<Value>.self).write(value, property, to: managedObject, slot: slots[index])
        } else {
            if pending.isEmpty { pending = Array(repeating: nil, count: table.properties.count) }
            pending[index] = value
        }
    }

    // MARK: BackingData

    public func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value {
        _value(at: table.index(of: key, in: Model.self))
    }

    public func setValue<Value>(forKey key: KeyPath<Model, Value>, to newValue: Value) {
        _setValue(newValue, at: table.index(of: key, in: Model.self))
    }

    // MARK: Insertion

    func insert(_ model: any PersistentModel, into context: ModelContext) {
        guard managedObject == nil else { return }
        let object = context.makeObject(for: Model.self)
        object.model = model
        managedObject = object
        self.context = context
        adoptLayout(of: context.objectContext)
        let values = pending
        pending = []
        // Attributes first: relationships may insert related models, which may read this one.
        for (index, property) in table.properties.enumerated() where !property.isRelationship && index < values.count {
            if let value = values[index] { property.accessor.writePending(value, property, to: object, slot: slots[index]) }
        }
        for (property, value) in zip(table.properties, values) where property.isRelationship {
            if let value { property.write(value, to: object) }
        }
    }
}
