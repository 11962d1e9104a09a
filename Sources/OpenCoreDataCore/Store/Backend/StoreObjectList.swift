/// The objects a fetch matched, as compact keys: what a batched result holds.
///
/// Eight bytes per object (plus two when several entities can match), so a
/// million-row result costs megabytes, not a million `NSManagedObjectID`s.
package struct StoreObjectList {
    /// The entities rows can belong to; `entityIndexes` points into it.
    package let entities: [NSEntityDescription]
    private(set) var keys: [Int64] = []
    /// Per row, its entity's index in `entities`; empty when there is only one entity.
    private(set) var entityIndexes: [UInt16] = []

    package init(entities: [NSEntityDescription]) {
        self.entities = entities
    }

    /// A list read back from a cache: `entityIndexes` is empty with one entity.
    package init(entities: [NSEntityDescription], keys: [Int64], entityIndexes: [UInt16]) {
        self.entities = entities
        self.keys = keys
        self.entityIndexes = entityIndexes
    }

    package var count: Int { keys.count }

    package mutating func append(key: Int64, entityIndex: Int) {
        keys.append(key)
        if entities.count > 1 { entityIndexes.append(UInt16(entityIndex)) }
    }

    /// The ID of row `index`, in `store`.
    package func objectID(at index: Int, store: NSPersistentStore) -> NSManagedObjectID {
        let entity = entities.count > 1 ? entities[Int(entityIndexes[index])] : entities[0]
        return NSManagedObjectID(entity: entity, store: store, primaryKey: keys[index])
    }
}
