import OpenCoreData
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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

/// OpenSwiftData's backing store.
///
/// A model made by its initializer keeps the values set before insertion in a Core Data object
/// outside any context (``detached``), made with its type's entity in the container made last
/// (see ``ModelTable/latestLayout``), so they go straight into typed slots; inserting the model
/// into a context of that container inserts that object. Without such a container yet, values
/// wait in ``pending``, in the model's property order, as do relationships (which need a
/// context). From insertion (or fetch) on, values live in the Core Data object of the model's
/// context, which the store reads and writes by property index.
///
/// Public because `@Model` expands to code that names it; apps never use it directly.
public final class _ModelBackingData<Model: PersistentModel>: BackingData, ModelStorage {
    /// The model type's table, looked up on first use.
    private var knownTable: ModelTable?
    /// Values set before insertion that ``detached`` cannot hold, by property index (`nil`: not
    /// set); empty until the first.
    private var pending: [Any?] = []
    /// Before insertion, the object holding the attribute values set so far (see above).
    private var detached: SwiftDataManagedObject?
    /// Whether ``detached`` was looked for, so a model without one asks once.
    private var soughtDetached = false
    private(set) var managedObject: SwiftDataManagedObject?
    /// Each property's slot in ``managedObject``'s (or ``detached``'s) entity, or `-1` (see
    /// ``ModelTable/slots(in:)``).
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

    /// What `@Model`'s property initializer calls: the store a fetch offered for the model it
    /// is making over an object (see ``BackingDataOffer``), else a new store. Swift runs the
    /// initializer in `init(backingData:)` too, so without the offer every fetched model would
    /// make and drop a store.
    public static func _make() -> _ModelBackingData<Model> {
        BackingDataOffer.take(as: _ModelBackingData<Model>.self) ?? _ModelBackingData<Model>()
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

    /// ``detached``, made on first use when a container has given `Model` an entity.
    private func detachedObject() -> SwiftDataManagedObject? {
        if let detached { return detached }
        guard !soughtDetached else { return nil }
        soughtDetached = true
        guard let layout = table.latestLayout else { return nil }
        let object = SwiftDataManagedObject(entity: layout.entity, insertInto: nil)
        detached = object
        slots = layout.slots
        return object
    }

    /// The store of `data`, which must be OpenSwiftData's.
    public static func _adopting(_ data: any BackingData<Model>) -> _ModelBackingData<Model> {
        // A class cast, cheaper than casting the existential.
        guard let own = (data as AnyObject) as? _ModelBackingData<Model> else {
            preconditionFailure(
                "\(Model.self) was given backing data of type \(type(of: data)); OpenSwiftData models use _ModelBackingData"
            )
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
    ///
    /// A store over an object (fetched, offered to `init(backingData:)`) keeps the object's
    /// values: there the initial values are only the declaration's defaults. An optional left
    /// `nil` is not written (it reads as `nil` unset, and an upsert then keeps the stored
    /// value), unless it replaces a default.
    public func _initialize<Value>(_ value: Value, at index: Int) {
        guard managedObject == nil else { return }
        let property = table.properties[index]
        if property.isOptional, !property.hasDefault,
            unsafeDowncast(property.accessor, to: PropertyAccessor<Value>.self).isNil(value)
        {
            if index < pending.count { pending[index] = nil }
            return
        }
        _setValue(value, at: index)
    }

    /// Reads the property at `index`.
    public func _value<Value>(at index: Int) -> Value {
        let property = table.properties[index]
        if let object = managedObject ?? (property.isRelationship ? nil : detached) {
            // The accessor was made for the property's declared type, which is `Value`.
            return unsafeDowncast(property.accessor, to: PropertyAccessor<Value>.self).read(
                property, from: object, slot: slots[index])
        }
        if index < pending.count, let value = pending[index] { return value as! Value }
        return property.absentValue() as! Value
    }

    /// Writes the property at `index`.
    public func _setValue<Value>(_ value: Value, at index: Int) {
        let property = table.properties[index]
        if let object = managedObject ?? (property.isRelationship ? nil : detachedObject()) {
            unsafeDowncast(property.accessor, to: PropertyAccessor<Value>.self).write(
                value, property, to: object, slot: slots[index])
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
        let object: SwiftDataManagedObject
        if let detached, detached.entity === context.container.entity(for: Model.self) {
            object = detached
            context.objectContext.insert(object)
        } else {
            object = context.makeObject(for: Model.self)
            if let detached { copyAttributes(from: detached, to: object) }
        }
        detached = nil
        object.model = model
        managedObject = object
        self.context = context
        adoptLayout(of: context.objectContext)
        let values = pending
        pending = []
        // Attributes first: relationships may insert related models, which may read this one.
        for (index, property) in table.properties.enumerated() where !property.isRelationship && index < values.count {
            if let value = values[index] {
                property.accessor.writePending(value, property, to: object, slot: slots[index])
            }
        }
        for (property, value) in zip(table.properties, values) where property.isRelationship {
            if let value { property.write(value, to: object) }
        }
    }

    /// Moves the attribute values set on `detached` (made with another container's entity)
    /// into `object`: those with a value, and `nil`s that replace a default.
    private func copyAttributes(from detached: SwiftDataManagedObject, to object: SwiftDataManagedObject) {
        for property in table.properties where !property.isRelationship {
            let value = detached.value(forKey: property.name)
            if value != nil || object.entity.attributesByName[property.name]?.defaultValue != nil {
                object.setValue(value, forKey: property.name)
            }
        }
    }
}

/// The store a fetch offers to the model it makes over an object, for `@Model`'s property
/// initializer (``_ModelBackingData/_make()``) to take instead of making one, per thread.
enum BackingDataOffer {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Offers `store` (unretained: the caller holds it until it withdraws the offer) on this thread.
    static func offer(_ store: AnyObject?) {
        pthread_setspecific(key, store.map { Unmanaged.passUnretained($0).toOpaque() })
    }

    /// The store offered on this thread when it is a `Store`, which then is no longer offered.
    static func take<Store: AnyObject>(as _: Store.Type) -> Store? {
        guard let pointer = pthread_getspecific(key),
            let store = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as? Store
        else { return nil }
        pthread_setspecific(key, nil)
        return store
    }
}
