/// What the model knows about an entity once it is frozen: its slots (every property,
/// inherited first), its entity number and its place in the inheritance tree.
///
/// The core adds what objects need (storage layout, defaults, the entity's class) in
/// facts of its own, built from this when it freezes the model.
package final class EntityStructure {
    /// Every property, inherited first; a property's `slot` is its index here.
    package let slots: [NSPropertyDescription]
    package let propertiesByName: PropertyTable
    /// The constant facts of each slot, indexed like `slots`.
    package let slotFacts: [SlotFacts]
    /// Slots stored in the object's own row (stored attributes and to-ones), in slot order.
    package let rowColumnSlots: [Int]
    /// Stored to-many slots: their changes are written as memberships.
    package let storedToManySlots: [Int]
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
    package let toManySlots: [Int]
    /// Transient slots: not in the store, so a reload keeps their values.
    /// (Fetched properties are not among them: a refresh drops their results.)
    package let transientSlots: [Int]
    /// Fetched property slots: their results are the context's own objects, never part of a row.
    package let fetchedSlots: [Int]
    /// Derived attributes, recomputed on every save of an inserted or updated object.
    package let derivedAttributes: [NSDerivedAttributeDescription]

    package init(
        slots: [NSPropertyDescription], entityNumber: Int, root: NSEntityDescription,
        selfAndDescendants: [NSEntityDescription]
    ) {
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
            $0.isTransient && !(($0 as? NSRelationshipDescription)?.isToMany ?? false)
                && !($0 is NSFetchedPropertyDescription)
        }.map(\.slot)
        self.derivedAttributes = slots.compactMap { $0 as? NSDerivedAttributeDescription }
        self.fetchedSlots = slots.filter { $0 is NSFetchedPropertyDescription }.map(\.slot)
        self.hasExternalStorage = slots.contains {
            ($0 as? NSAttributeDescription)?.allowsExternalBinaryDataStorage == true
        }
    }
}
