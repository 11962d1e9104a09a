/// What the model knows about an entity once it is frozen: its slots (every property,
/// inherited first), its entity number and its place in the inheritance tree.
///
/// The core adds what objects need (storage layout, defaults, the entity's class, the
/// per-slot facts hot paths read) in facts of its own, built from this when it freezes the model.
package final class EntityStructure {
    /// Every property, inherited first; a property's `slot` is its index here.
    package let slots: [NSPropertyDescription]
    /// Properties by name, inherited ones included (the first of a name in slot order).
    package let propertiesByName: [String: NSPropertyDescription]
    /// Core Data's entity number (`Z_ENT`).
    package let entityNumber: Int
    /// The top of the inheritance tree: the entity whose table holds this one's rows.
    package unowned let root: NSEntityDescription
    /// This entity and every entity below it.
    package let selfAndDescendants: [NSEntityDescription]

    init(
        slots: [NSPropertyDescription], entityNumber: Int, root: NSEntityDescription,
        selfAndDescendants: [NSEntityDescription]
    ) {
        self.slots = slots
        self.propertiesByName = Dictionary(slots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.entityNumber = entityNumber
        self.root = root
        self.selfAndDescendants = selfAndDescendants
    }
}
