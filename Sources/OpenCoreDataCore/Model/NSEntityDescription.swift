import Synchronization
/// Describes an entity: its name, properties, class and place in an inheritance tree.
///
/// Edit it freely while building a model; once a coordinator uses the model, it is
/// frozen and the compiled facts below (storage slots, entity numbers) are fixed.
open class NSEntityDescription: NSObject, @unchecked Sendable {
    /// The entity's name, unique in its model.
    open var name: String? { willSet { assertMutable() } }
    /// The name of the `NSManagedObject` subclass that represents the entity.
    ///
    /// Either the bare class name (`"Person"`) or a module-qualified one
    /// (`"MyApp.Person"`); see ``NSManagedObject`` for how classes are found.
    open var managedObjectClassName: String! = "NSManagedObject" { willSet { assertMutable() } }
    /// Whether the entity only exists as the parent of others (no direct instances).
    open var isAbstract: Bool = false { willSet { assertMutable() } }
    /// Free-form information for the app.
    open var userInfo: [AnyHashable: Any]? { willSet { assertMutable() } }
    /// Sets of property names (or descriptions) whose values must be unique together.
    open var uniquenessConstraints: [[Any]] = [] { willSet { assertMutable() } }

    /// The property names one of ``uniquenessConstraints`` lists: its elements are names
    /// or property descriptions.
    static func propertyNames(inConstraint constraint: [Any]) -> [String] {
        constraint.map { ($0 as? NSPropertyDescription)?.name ?? ($0 as? String) ?? "\($0)" }
    }
    /// The name this entity had in an earlier model version (for migration).
    open var renamingIdentifier: String? { willSet { assertMutable() } }
    /// A string mixed into the version hash to force a new hash for the same shape.
    open var versionHashModifier: String? { willSet { assertMutable() } }
    /// Indexes the store creates for this entity's table, beyond single indexed properties.
    open var indexes: [NSFetchIndexDescription] = [] {
        willSet { assertMutable() }
        didSet { for index in indexes { index.entity = self } }
    }

    /// Storage of ``codeGenerationType`` (an OpenCoreData code-generation hint).
    var codeGenerationTypeHint: String?

    /// The model that contains the entity.
    open internal(set) weak var managedObjectModel: NSManagedObjectModel!
    /// The entity this one inherits from.
    open internal(set) weak var superentity: NSEntityDescription?

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
            ownProperties = newValue
            for property in newValue { property.entity = self }
        }
    }
    /// The properties declared on this entity itself.
    private(set) var ownProperties: [NSPropertyDescription] = []

    /// Properties by name, inherited ones included.
    open var propertiesByName: [String: NSPropertyDescription] {
        if let compiled { return compiled.propertiesByName.dictionary }
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
    open var versionHash: Data { VersionHasher.hash(of: self) }

    /// Creates an empty entity description.
    public override init() { super.init() }

    /// Finds the entity named `entityName` in the model of the context's coordinator.
    open class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.managedObjectModel?.entitiesByName[entityName]
    }

    /// Creates an object of the named entity and inserts it into `context`.
    ///
    /// An unknown entity name is a programmer error that Core Data raises on; it traps
    /// here with the name in the message. Use ``entity(forEntityName:in:)`` to check first.
    open class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            preconditionFailure("+entityForName: could not locate an entity named '\(entityName)' in the context's model")
        }
        return entity.instantiate(insertInto: context)
    }

    func assertMutable() {
        if let managedObjectModel, managedObjectModel.isFrozen {
            preconditionFailure("Can't modify an immutable model: entity '\(name ?? "")' belongs to a model in use by a coordinator")
        }
    }

    // MARK: Compiled facts (set when the model is frozen)

    /// Facts computed once the model is frozen, read on every property access.
    final class Compiled {
        /// Every property, inherited first; a property's `slot` is its index here.
        let slots: [NSPropertyDescription]
        let propertiesByName: PropertyTable
        /// The constant facts of each slot, indexed like `slots`.
        let slotFacts: [SlotFacts]
        /// Slots stored in the object's own row (stored attributes and to-ones), in slot order.
        let rowColumnSlots: [Int]
        /// Stored to-many slots: their changes are written as memberships.
        let storedToManySlots: [Int]
        /// Whether an object of the entity can have to-one or to-many destinations.
        let hasRelationships: Bool
        /// Core Data's entity number (`Z_ENT`).
        let entityNumber: Int
        /// The top of the inheritance tree: the entity whose table holds this one's rows.
        unowned let root: NSEntityDescription
        /// This entity and every entity below it.
        let selfAndDescendants: [NSEntityDescription]

        /// A new object's storage: coerced default values, `nil` elsewhere.
        let defaultStorage: [Any?]
        /// Whether some attribute may keep its value in an external file.
        let hasExternalStorage: Bool
        /// To-many slots: snapshots leave them empty.
        let toManySlots: [Int]
        /// Transient slots: not in the store, so a reload keeps their values.
        /// (Fetched properties are not among them: a refresh drops their results.)
        let transientSlots: [Int]
        /// Derived attributes, recomputed on every save of an inserted or updated object.
        let derivedAttributes: [NSDerivedAttributeDescription]
        /// The class found for the entity's objects, once it is not the `NSManagedObject` fallback.
        private let resolvedClass = Mutex<NSManagedObject.Type?>(nil)
        /// Classes already compared with the entity's class name (the comparison builds strings).
        private let checkedClasses = Mutex<Set<ObjectIdentifier>>([])

        init(slots: [NSPropertyDescription], entityNumber: Int, root: NSEntityDescription, selfAndDescendants: [NSEntityDescription]) {
            self.slots = slots
            self.propertiesByName = PropertyTable(slots)
            let facts = slots.map(SlotFacts.init)
            self.slotFacts = facts
            self.rowColumnSlots = facts.indices.filter { facts[$0].isRowColumn }
            self.storedToManySlots = facts.indices.filter { facts[$0].kind == .toMany && facts[$0].isStored }
            self.hasRelationships = facts.contains { $0.kind != .attribute }
            self.entityNumber = entityNumber
            self.root = root
            self.selfAndDescendants = selfAndDescendants
            self.toManySlots = slots.filter { ($0 as? NSRelationshipDescription)?.isToMany == true }.map(\.slot)
            self.transientSlots = slots.filter {
                $0.isTransient && !(($0 as? NSRelationshipDescription)?.isToMany ?? false) && !($0 is NSFetchedPropertyDescription)
            }.map(\.slot)
            self.derivedAttributes = slots.compactMap { $0 as? NSDerivedAttributeDescription }
            self.hasExternalStorage = slots.contains { ($0 as? NSAttributeDescription)?.allowsExternalBinaryDataStorage == true }
            self.defaultStorage = slots.map { property in
                guard let attribute = property as? NSAttributeDescription, let value = attribute.defaultValue else { return nil }
                return AttributeValue.coerce(value, to: attribute)
            }
        }

        /// The class that represents the entity's objects (cached: the registry's lookup builds strings).
        func objectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
            if let known = resolvedClass.withLock({ $0 }) { return known }
            let found = ManagedObjectClassRegistry.shared.objectClass(for: entity)
            if found != NSManagedObject.self { resolvedClass.withLock { $0 = found } }
            return found
        }

        /// Called by every new object: the first object of a subclass the entity names
        /// teaches the registry that class (so fetches create it too).
        func noteInstantiated(_ objectClass: NSManagedObject.Type, entity: NSEntityDescription) {
            guard objectClass != NSManagedObject.self, resolvedClass.withLock({ $0 }) != objectClass,
                  checkedClasses.withLock({ $0.insert(ObjectIdentifier(objectClass)).inserted }),
                  ManagedObjectClassRegistry.names(objectClass, entity: entity)
            else { return }
            ManagedObjectClassRegistry.shared.register(objectClass)
            resolvedClass.withLock { $0 = objectClass }
        }
    }
    var compiled: Compiled?

    /// The compiled facts; the model must be frozen (every context path guarantees it).
    var facts: Compiled {
        guard let compiled else {
            preconditionFailure("Entity '\(name ?? "")' is used before its model was loaded by a coordinator")
        }
        return compiled
    }

    /// The class that represents this entity's objects, found as ``ManagedObjectClassRegistry`` describes.
    var managedObjectClass: NSManagedObject.Type {
        facts.objectClass(for: self)
    }

    /// Makes a new object of this entity's class, inserted into `context` when given.
    func instantiate(insertInto context: NSManagedObjectContext?) -> NSManagedObject {
        managedObjectClass.init(entity: self, insertInto: context)
    }

    open override var description: String {
        "(\(type(of: self))) name \(name ?? "nil"), managedObjectClassName \(managedObjectClassName ?? "nil"), properties \(properties.map(\.name))"
    }
}
