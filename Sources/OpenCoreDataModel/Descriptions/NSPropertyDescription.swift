/// The common part of an entity's attributes and relationships.
///
/// A property belongs to one entity. Like Core Data, a model can be edited freely
/// until a coordinator uses it; from then on it is immutable.
open class NSPropertyDescription: NSObject, @unchecked Sendable {
    /// The property's name, unique in its entity and its entity's ancestors.
    open var name: String = "" { willSet { assertMutable() } }
    /// Whether a value may be absent when the owning object is saved. Default `true`.
    open var isOptional: Bool = true { willSet { assertMutable() } }
    /// Whether the value lives only in memory and is never written to the store.
    open var isTransient: Bool = false { willSet { assertMutable() } }
    /// Whether the store keeps an index on this property.
    open var isIndexed: Bool = false { willSet { assertMutable() } }
    /// Kept for API compatibility; Spotlight does not exist off Apple platforms.
    open var isIndexedBySpotlight: Bool = false
    /// Free-form information for the app.
    open var userInfo: [AnyHashable: Any]? { willSet { assertMutable() } }
    /// The name this property had in an earlier model version (for migration).
    open var renamingIdentifier: String? { willSet { assertMutable() } }
    /// A string mixed into the version hash to force a new hash for the same shape.
    open var versionHashModifier: String? { willSet { assertMutable() } }
    /// The property's version hash: SHA-256 of what migration compares (name, kind, type,
    /// optionality, and for relationships destination, inverse and counts), as Core Data
    /// computes it; see ``NSEntityDescription/versionHash``.
    open var versionHash: Data { VersionHasher.hash(of: self) }
    /// The entity that owns the property; set when the property is added to an entity.
    ///
    /// Unretained, and cleared by the entity when it lets the property go or deallocates (see
    /// ``NSEntityDescription/superentity`` for why not `weak`).
    open package(set) unowned(unsafe) var entity: NSEntityDescription!

    /// Predicates a value must satisfy on save, in order.
    open private(set) var validationPredicates: [NSPredicate] = []
    /// The messages paired with `validationPredicates`, one per predicate.
    open private(set) var validationWarnings: [String] = []

    /// Sets the validation predicates and their warnings (arrays of equal length).
    open func setValidationPredicates(_ predicates: [NSPredicate]?, withValidationWarnings warnings: [String]?) {
        assertMutable()
        validationPredicates = predicates ?? []
        validationWarnings = warnings ?? []
    }

    /// Names that would shadow NSManagedObject's own API (Core Data rejects these too).
    package static let reservedNames: Set<String> = [
        "entity", "objectID", "managedObjectContext", "isInserted", "isUpdated", "isDeleted",
        "isFault", "hasChanges", "description", "hash", "self", "faultingState", "hasPersistentChangedValues",
    ]

    /// The position of this property's value in an object's storage; set when the model is frozen.
    package final var slot: Int {
        get { slotStorage }
        set { slotStorage = newValue }
    }
    // Set when the model freezes, then only read. Other modules read it through the accessor
    // above: `@exclusivity(unchecked)` covers this module's accesses only, and a direct
    // access from the core would check dynamically, which costs more than the call.
    @exclusivity(unchecked) private final var slotStorage = -1

    /// Creates an empty property description.
    public override init() { super.init() }

    /// Traps when the model is already in use, as Core Data raises for the same mistake.
    package final func assertMutable() {
        if let model = entity?.managedObjectModel, model.isFrozen {
            preconditionFailure("Can't modify an immutable model: '\(name)' belongs to a model in use by a coordinator")
        }
    }

    /// Whether the store keeps a column for this property.
    package final var isStored: Bool { !isTransient }

    open override var description: String {
        "(\(type(of: self))) name \(name), isOptional \(isOptional), isTransient \(isTransient), entity \(entity?.name ?? "nil")"
    }
}
