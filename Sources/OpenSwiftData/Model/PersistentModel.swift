/// A class whose instances SwiftData persists; `@Model` makes a class conform.
///
/// The requirements are what the macro writes: the backing store, the table of persisted
/// properties with their key paths (``schemaMetadata``), and the initializer fetches use.
/// Everything else (identity, context, change state) comes from this protocol's extension.
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable {
    /// The store behind the model's persisted properties.
    var persistentBackingData: any BackingData<Self> { get set }

    /// Every persisted property: its name, key path, default value and schema options.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }

    /// Makes a model over `backingData`: how fetches make models of stored rows.
    init(backingData: any BackingData<Self>)

    /// The `#Unique` constraints of the model, as key paths (written by `@Model`).
    static var _$uniquenessConstraints: [[AnyKeyPath]] { get }

    /// The `#Index` declarations of the model, as key paths (written by `@Model`).
    static var _$indices: [[AnyKeyPath]] { get }
}

extension PersistentModel {
    public static var _$uniquenessConstraints: [[AnyKeyPath]] { [] }
    public static var _$indices: [[AnyKeyPath]] { [] }

    /// The model's identifier: temporary until the model is first saved, then the store's.
    public var persistentModelID: PersistentIdentifier {
        storage.persistentModelID ?? PersistentIdentifier(unsaved: self)
    }

    /// The identifier, for `Identifiable`.
    public var id: PersistentIdentifier { persistentModelID }

    /// The context the model was inserted into or fetched by; `nil` before insertion and after
    /// the context is gone.
    public var modelContext: ModelContext? { storage.modelContext }

    /// Whether the model has changes its context has not saved.
    public var hasChanges: Bool { storage.managedObject?.hasChanges ?? false }

    /// Whether the model was deleted from its context (and the deletion not yet undone).
    public var isDeleted: Bool { storage.managedObject?.isDeleted ?? false }

    /// Reads a persisted property by key path.
    public func getValue<Value>(forKey key: KeyPath<Self, Value>) -> Value {
        persistentBackingData.getValue(forKey: key)
    }

    /// Writes a persisted property by key path.
    public func setValue<Value>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        persistentBackingData.setValue(forKey: key, to: newValue)
    }

    /// Models are equal when they are the same instance, as SwiftData's are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The backing store as the framework sees it.
    var storage: any ModelStorage {
        // A class cast first: casting the existential to a protocol looks up a conformance.
        if let own = (persistentBackingData as AnyObject) as? _ModelBackingData<Self> { return own }
        guard let storage = persistentBackingData as? any ModelStorage else {
            preconditionFailure("\(Self.self)'s backing data is not OpenSwiftData's; models get theirs from @Model")
        }
        return storage
    }
}
