import OpenCoreData
internal import Synchronization

/// A model type's persisted properties, in `schemaMetadata` order, with what each one is
/// (attribute, to-one, to-many) and how its values convert; made once per type.
final class ModelTable: @unchecked Sendable {
    let properties: [ModelProperty]
    private let indexByKeyPath: [AnyKeyPath: Int]

    private init(_ type: any PersistentModel.Type) {
        let typeName = String(describing: type)
        properties = type.schemaMetadata.map { ModelProperty($0, modelName: typeName) }
        var indexes: [AnyKeyPath: Int] = [:]
        for (index, property) in properties.enumerated() { indexes[property.keyPath] = index }
        indexByKeyPath = indexes
    }

    private static let tables = Mutex<[ObjectIdentifier: ModelTable]>([:])

    /// The table of `type`.
    static func of(_ type: any PersistentModel.Type) -> ModelTable {
        let key = ObjectIdentifier(type)
        if let table = tables.withLock({ $0[key] }) { return table }
        let made = ModelTable(type)
        return tables.withLock { tables in
            if let existing = tables[key] { return existing }
            tables[key] = made
            return made
        }
    }

    /// The entity of the container made last with this type, with its slots. Held strongly
    /// (one entity per model type), so that reading it costs no weak load per model made.
    private let latest = Mutex<(entity: NSEntityDescription, slots: [Int])?>(nil)

    /// Where a model made outside any context keeps its values until inserted: the entity
    /// of the container made last with this type, with its slots; `nil` before any container.
    var latestLayout: (entity: NSEntityDescription, slots: [Int])? {
        latest.withLock { $0 }
    }

    /// Records `entity`, with its `slots`, as the one a container made last gave this type.
    func noteLatest(_ entity: NSEntityDescription, slots: [Int]) {
        latest.withLock { $0 = (entity, slots) }
    }

    /// For each property, its slot in `entity` when values can move straight between the model
    /// and the slot (see ``PropertyAccessor``), else `-1`.
    func slots(in entity: NSEntityDescription) -> [Int] {
        properties.map { property in
            property.slotAttributeType.flatMap { entity.attributeSlot(named: property.name, ofType: $0) } ?? -1
        }
    }

    /// The property at `keyPath`, or `nil` if it is not persisted.
    func property(at keyPath: AnyKeyPath) -> ModelProperty? {
        indexByKeyPath[keyPath].map { properties[$0] }
    }

    /// The index of the persisted property at `keyPath`; traps for any other key path, as
    /// reading a property that is not persisted through the backing store is a programmer error.
    func index(of keyPath: AnyKeyPath, in type: Any.Type) -> Int {
        guard let index = indexByKeyPath[keyPath] else {
            preconditionFailure("\(keyPath) is not a persisted property of \(type)")
        }
        return index
    }
}

/// A model type's table with its properties' slots in the entity of one container.
struct ModelLayout {
    let table: ModelTable
    /// See ``ModelTable/slots(in:)``.
    let slots: [Int]
}

/// One persisted property of a model type.
final class ModelProperty: @unchecked Sendable {
    /// What the property is in Core Data's terms.
    enum Kind {
        case attribute(ValueCodec)
        case toOne(any PersistentModel.Type)
        case toMany(any PersistentModel.Type, any ModelCollection.Type)
        /// A type SwiftData cannot persist, with why (reported when a container is made).
        case unsupported(String)
    }

    let name: String
    let keyPath: AnyKeyPath
    let valueType: Any.Type
    let isOptional: Bool
    let kind: Kind
    let defaultValue: Any?
    /// Whether ``defaultValue`` is set (asked per model made, without copying the value).
    let hasDefault: Bool
    let metadata: (any SchemaProperty)?
    /// `Trip.name`, for messages.
    let label: String
    /// The ``PropertyAccessor`` of the property's type.
    let accessor: AnyPropertyAccessor
    /// The attribute type of a primitive whose values go straight into the object's slot.
    let slotAttributeType: NSAttributeType?

    init(_ metadata: Schema.PropertyMetadata, modelName: String) {
        name = metadata.name
        keyPath = metadata.keypath
        defaultValue = metadata.defaultValue.flatMap(unwrapOptional)
        hasDefault = defaultValue != nil
        self.metadata = metadata.metadata
        label = "\(modelName).\(metadata.name)"
        let declared = type(of: metadata.keypath).valueType
        valueType = declared
        accessor = Self.accessor(for: declared)
        var base = declared
        var optional = false
        if let wrapper = declared as? any OptionalValue.Type {
            base = wrapper.wrappedType
            optional = true
        }
        isOptional = optional
        slotAttributeType = (base as? any SwiftDataPrimitive.Type).flatMap {
            $0.storesNatively ? $0.attributeType : nil
        }
        if let model = base as? any PersistentModel.Type {
            kind = .toOne(model)
        } else if let collection = base as? any ModelCollection.Type {
            kind = .toMany(collection.modelType, collection)
        } else if let codec = ValueCodec.codec(for: base) {
            kind = .attribute(codec)
        } else {
            kind = .unsupported(
                "\(label) has type \(declared), which SwiftData cannot store: use a type of Swift's standard library or Foundation, a model, an array of models, or a Codable type"
            )
        }
    }

    var isRelationship: Bool {
        switch kind {
        case .toOne, .toMany: true
        case .attribute, .unsupported: false
        }
    }

    // MARK: Reading and writing the Core Data object

    /// The Swift value of the property in `object`.
    func read(from object: SwiftDataManagedObject) -> Any {
        switch kind {
        case .attribute(let codec):
            guard let stored = object.value(forKey: name) else { return absentValue() }
            guard let value = codec.decode(stored) else {
                preconditionFailure("\(label) holds a \(type(of: stored)) in the store, which is not a \(valueType)")
            }
            return value
        case .toOne:
            guard let related = object.value(forKey: name) as? SwiftDataManagedObject else { return absentValue() }
            return related.resolvedModel()
        case .toMany(_, let collection):
            let members = (object.value(forKey: name) as? NSSet)?.allObjects ?? []
            return collection.make(members.map { ($0 as! SwiftDataManagedObject).resolvedModel() })
        case .unsupported(let reason):
            preconditionFailure(reason)
        }
    }

    /// Writes `value` (of the property's declared type) into `object`.
    func write(_ value: Any, to object: SwiftDataManagedObject) {
        let unwrapped = unwrapOptional(value)
        switch kind {
        case .attribute(let codec):
            object.setValue(unwrapped.map(codec.encode), forKey: name)
        case .toOne:
            let related = (unwrapped as? any PersistentModel).map { relatedObject($0, of: object) }
            object.setValue(related, forKey: name)
        case .toMany:
            let models = (unwrapped as? any ModelCollection)?.models ?? []
            object.setValue(models.map { relatedObject($0, of: object) }, forKey: name)
        case .unsupported(let reason):
            preconditionFailure(reason)
        }
    }

    /// The Core Data object of a related model, inserting the model into `object`'s context
    /// first if it is in none (SwiftData inserts what a relationship reaches).
    private func relatedObject(
        _ model: any PersistentModel, of object: SwiftDataManagedObject
    ) -> SwiftDataManagedObject {
        if let related = model.storage.managedObject { return related }
        guard let context = (object.managedObjectContext as? SwiftDataObjectContext)?.modelContext else {
            preconditionFailure("\(label) was set to a model outside any context, on a model whose context is gone")
        }
        context.insert(model)
        return model.storage.managedObject!
    }

    /// The value of a property nothing set: `nil` for optionals, empty for to-many.
    func absentValue() -> Any {
        if isOptional { return Optional<Any>.none as Any }
        if case .toMany(_, let collection) = kind { return collection.make([]) }
        if let defaultValue { return defaultValue }
        preconditionFailure("\(label) has no value in the store, but its type \(valueType) is not optional")
    }
}
