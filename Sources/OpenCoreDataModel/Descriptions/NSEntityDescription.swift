/// Describes an entity: its name, properties, class and place in an inheritance tree.
///
/// Edit it freely while building a model; once a coordinator uses the model, it is
/// frozen and its facts (storage slots, entity numbers) are fixed.
open class NSEntityDescription: NSObject, @unchecked Sendable {
    /// The entity's name, unique in its model.
    open var name: String? { willSet { assertMutable() } }
    /// The name of the `NSManagedObject` subclass that represents the entity.
    ///
    /// Either the bare class name (`"Person"`) or a module-qualified one
    /// (`"MyApp.Person"`); see `NSManagedObject` for how classes are found.
    open var managedObjectClassName: String! = "NSManagedObject" { willSet { assertMutable() } }
    /// Whether the entity only exists as the parent of others (no direct instances).
    open var isAbstract: Bool = false { willSet { assertMutable() } }
    /// Free-form information for the app.
    open var userInfo: [AnyHashable: Any]? { willSet { assertMutable() } }
    /// Sets of property names (or descriptions) whose values must be unique together.
    open var uniquenessConstraints: [[Any]] = [] { willSet { assertMutable() } }

    /// The property names one of ``uniquenessConstraints`` lists: its elements are names
    /// or property descriptions.
    package static func propertyNames(inConstraint constraint: [Any]) -> [String] {
        constraint.map { ($0 as? NSPropertyDescription)?.name ?? ($0 as? String) ?? "\($0)" }
    }
    /// The name this entity had in an earlier model version (for migration).
    open var renamingIdentifier: String? { willSet { assertMutable() } }
    /// A string mixed into the version hash to force a new hash for the same shape.
    open var versionHashModifier: String? { willSet { assertMutable() } }
    /// Indexes the store creates for this entity's table, beyond single indexed properties.
    open var indexes: [NSFetchIndexDescription] = [] {
        willSet { assertMutable() }
        didSet {
            for old in oldValue where old.entity === self { old.entity = nil }
            for index in indexes { index.entity = self }
        }
    }

    /// Storage of ``codeGenerationType`` (an OpenCoreData code-generation hint).
    package final var codeGenerationTypeHint: String?

    /// The model that contains the entity.
    open package(set) weak var managedObjectModel: NSManagedObjectModel!
    /// The entity this one inherits from.
    ///
    /// Unretained, and cleared by the superentity when it lets this entity go or deallocates:
    /// on Linux a `weak` reference would move every entity's reference count to a side table,
    /// and every object and object ID retains its entity, on the slow path that then takes
    /// (Core Data's reference is unretained too).
    open package(set) unowned(unsafe) var superentity: NSEntityDescription?

    /// The entities that inherit from this one. Setting it makes this entity their superentity.
    open var subentities: [NSEntityDescription] {
        get { _subentities }
        set {
            assertMutable()
            for old in _subentities where old.superentity === self { old.superentity = nil }
            _subentities = newValue
            for sub in newValue { sub.superentity = self }
        }
    }
    private var _subentities: [NSEntityDescription] = []

    /// All properties: inherited ones first, then this entity's own.
    ///
    /// Setting it replaces the entity's own properties and claims them for this entity.
    open var properties: [NSPropertyDescription] {
        get { (superentity?.properties ?? []) + ownProperties }
        set {
            assertMutable()
            let kept = Set(newValue.map(ObjectIdentifier.init))
            for old in ownProperties where old.entity === self && !kept.contains(ObjectIdentifier(old)) {
                old.entity = nil
            }
            ownProperties = newValue
            for property in newValue { property.entity = self }
        }
    }
    /// The properties declared on this entity itself.
    package final private(set) var ownProperties: [NSPropertyDescription] = []

    /// Properties by name, inherited ones included.
    open var propertiesByName: [String: NSPropertyDescription] {
        if let frozenStructure { return frozenStructure.propertiesByName }
        return Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Attributes by name, inherited ones included.
    open var attributesByName: [String: NSAttributeDescription] {
        propertiesByName.compactMapValues { $0 as? NSAttributeDescription }
    }

    /// Relationships by name, inherited ones included.
    open var relationshipsByName: [String: NSRelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? NSRelationshipDescription }
    }

    /// The relationships of this entity whose destination is `entity`.
    open func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        properties.compactMap { $0 as? NSRelationshipDescription }.filter { $0.destinationEntity === entity }
    }

    /// Whether this entity is `entity` or inherits from it.
    open func isKindOf(entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// The entity's version hash: SHA-256 over the facts that change the store's shape.
    open var versionHash: Data {
        if let model = managedObjectModel, let hash = model.frozenVersionHashes()?[ObjectIdentifier(self)] {
            return hash
        }
        return VersionHasher.hash(of: self)
    }

    /// Creates an empty entity description.
    public override init() { super.init() }

    /// What this entity owns references it unretained: they are cleared here, so none of
    /// them is left pointing at a deallocated entity.
    deinit {
        for property in ownProperties where property.entity === self { property.entity = nil }
        for index in indexes where index.entity === self { index.entity = nil }
        for sub in _subentities where sub.superentity === self { sub.superentity = nil }
    }

    package final func assertMutable() {
        if let managedObjectModel, managedObjectModel.isFrozen {
            preconditionFailure(
                "Can't modify an immutable model: entity '\(name ?? "")' belongs to a model in use by a coordinator")
        }
    }

    // MARK: Facts (set when the model is frozen)

    /// What the model computed about the entity when it was frozen; `nil` before.
    package final var frozenStructure: EntityStructure? {
        get { frozenStructureStorage }
        set { frozenStructureStorage = newValue }
    }
    /// What the core computed for the entity's objects when it froze the model (its
    /// `EntityFacts`, a layer above); `nil` before.
    package final var objectFacts: AnyObject? {
        get { objectFactsStorage }
        set { objectFactsStorage = newValue }
    }
    // Set once, under the model's freeze lock, then only read: no exclusivity checks. The
    // accessors above are what other modules call: `@exclusivity(unchecked)` covers this
    // module's accesses only, and a direct access from the core would check dynamically,
    // which costs more than the call.
    @exclusivity(unchecked) private final var frozenStructureStorage: EntityStructure?
    @exclusivity(unchecked) private final var objectFactsStorage: AnyObject?

    open override var description: String {
        "(\(type(of: self))) name \(name ?? "nil"), managedObjectClassName \(managedObjectClassName ?? "nil"), properties \(properties.map(\.name))"
    }
}
