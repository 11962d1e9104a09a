internal import Synchronization

/// What objects of an entity need, computed once its model is frozen and read on every
/// property access: the storage layout, a new object's defaults, the entity's class.
/// The model's facts (slots, entity number, inheritance) come from the entity's
/// `EntityStructure` and are copied here, so hot paths read one object of this module
/// (a read across modules costs a call).
package final class EntityFacts {
    /// Every property, inherited first; a property's `slot` is its index here.
    package let slots: [NSPropertyDescription]
    package let propertiesByName: PropertyTable
    /// The constant facts of each slot, indexed like `slots`.
    package let slotFacts: [SlotFacts]
    /// Slots stored in the object's own row (stored attributes and to-ones), in slot order.
    let rowColumnSlots: [Int]
    /// Stored to-many slots: their changes are written as memberships.
    let storedToManySlots: [Int]
    /// Whether an object of the entity can have to-one or to-many destinations.
    package let hasRelationships: Bool
    /// Core Data's entity number (`Z_ENT`).
    package let entityNumber: Int
    /// The top of the inheritance tree: the entity whose table holds this one's rows.
    package unowned let root: NSEntityDescription
    /// This entity and every entity below it.
    package let selfAndDescendants: [NSEntityDescription]
    /// Whether some attribute may keep its value in an external file.
    package let hasExternalStorage: Bool
    /// To-many slots: snapshots leave them empty.
    let toManySlots: [Int]
    /// Transient slots: not in the store, so a reload keeps their values.
    let transientSlots: [Int]
    /// Fetched property slots: their results are the context's own objects, never part of a row.
    let fetchedSlots: [Int]
    /// Derived attributes, recomputed on every save of an inserted or updated object.
    let derivedAttributes: [NSDerivedAttributeDescription]

    /// Where each slot's value lives in the entity's ``SlotValues``.
    package let slotLayout: SlotLayout
    /// A new object's storage: coerced default values, `nil` elsewhere.
    let defaultStorage: SlotValues
    /// Storage without values (a fault's), shared until written.
    let emptyStorage: SlotValues
    /// The class found for the entity's objects, once it is not the `NSManagedObject`
    /// fallback, as its metadata pointer's bits (0: none yet). Every new object reads it,
    /// on any thread: an atomic load, where a lock's cache line would bounce between the
    /// threads of contexts creating objects at once.
    private let resolvedClass = Atomic<UInt>(0)

    private var knownClass: NSManagedObject.Type? {
        let bits = resolvedClass.load(ordering: .acquiring)
        return bits == 0 ? nil : unsafeBitCast(bits, to: NSManagedObject.Type.self)
    }

    private func setKnownClass(_ objectClass: NSManagedObject.Type) {
        resolvedClass.store(unsafeBitCast(objectClass, to: UInt.self), ordering: .releasing)
    }
    /// Classes already compared with the entity's class name (the comparison builds strings).
    private let checkedClasses = Mutex<Set<ObjectIdentifier>>([])

    init(_ structure: EntityStructure) {
        let slots = structure.slots
        self.slots = slots
        self.entityNumber = structure.entityNumber
        self.root = structure.root
        self.selfAndDescendants = structure.selfAndDescendants
        self.propertiesByName = PropertyTable(slots)
        let facts = slots.map(SlotFacts.init)
        self.slotFacts = facts
        self.rowColumnSlots = facts.indices.filter { facts[$0].isRowColumn }
        self.storedToManySlots = facts.indices.filter { facts[$0].kind == .toMany && facts[$0].isStored }
        self.hasRelationships = facts.contains { $0.kind != .attribute }
        self.toManySlots = slots.filter { ($0 as? NSRelationshipDescription)?.isToMany == true }.map(\.slot)
        self.transientSlots = slots.filter {
            $0.isTransient && !(($0 as? NSRelationshipDescription)?.isToMany ?? false)
                && !($0 is NSFetchedPropertyDescription)
        }.map(\.slot)
        self.derivedAttributes = slots.compactMap { $0 as? NSDerivedAttributeDescription }
        self.fetchedSlots = slots.filter { $0 is NSFetchedPropertyDescription }.map(\.slot)
        self.hasExternalStorage = slots.contains {
            ($0 as? NSAttributeDescription)?.allowsExternalBinaryDataStorage == true
        }
        let layout = SlotLayout(
            facts.map { slot in
                slot.kind == .attribute
                    ? SlotRepresentation(
                        attributeType: slot.attributeType, allowsExternalStorage: slot.allowsExternalStorage) : .boxed
            })
        self.slotLayout = layout
        self.emptyStorage = SlotValues(layout: layout)
        var defaults = SlotValues(layout: layout)
        for property in slots {
            if let composite = property as? NSCompositeAttributeDescription {
                // The composite's default dictionary, completed by its elements' defaults.
                defaults[property.slot] = CompositeValue.defaultValue(of: composite)
                continue
            }
            guard let attribute = property as? NSAttributeDescription, let value = attribute.defaultValue else {
                continue
            }
            defaults[property.slot] = AttributeValue.coerce(value, to: attribute)
        }
        self.defaultStorage = defaults
    }

    /// The class that represents the entity's objects (cached: the registry's lookup builds strings).
    func objectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
        if let known = knownClass { return known }
        let found = ManagedObjectClassRegistry.shared.objectClass(for: entity)
        if found != NSManagedObject.self { setKnownClass(found) }
        return found
    }

    /// Called by every new object: the first object of a subclass the entity names
    /// teaches the registry that class (so fetches create it too).
    func noteInstantiated(_ objectClass: NSManagedObject.Type, entity: NSEntityDescription) {
        guard objectClass != NSManagedObject.self, knownClass != objectClass,
            checkedClasses.withLock({ $0.insert(ObjectIdentifier(objectClass)).inserted }),
            ManagedObjectClassRegistry.names(objectClass, entity: entity)
        else { return }
        ManagedObjectClassRegistry.shared.register(objectClass)
        setKnownClass(objectClass)
    }
}
