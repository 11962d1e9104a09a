// The live collections returned by `mutableSetValue(forKey:)` and
// `mutableOrderedSetValue(forKey:)`: every read goes to the relationship's current
// members and every write goes through the owner, so inverses stay in step.

/// A mutable set that reads and writes one object's to-many relationship.
final class RelationshipMutableSet: NSMutableSet {
    private let owner: NSManagedObject
    private let relationship: NSRelationshipDescription

    init(owner: NSManagedObject, relationship: NSRelationshipDescription) {
        self.owner = owner
        self.relationship = relationship
        super.init(capacity: 0)
    }

    required convenience init(arrayLiteral elements: Any...) {
        preconditionFailure("A relationship set is only made by mutableSetValue(forKey:)")
    }

    required init?(coder: NSCoder) { nil }

    required convenience init(capacity numItems: Int) {
        preconditionFailure("A relationship set is only made by mutableSetValue(forKey:)")
    }

    private var members: [NSManagedObject] { Array(owner.toMany(relationship).members) }

    override var count: Int { owner.toMany(relationship).members.count }

    override func member(_ object: Any) -> Any? {
        guard let object = object as? NSManagedObject else { return nil }
        return owner.toMany(relationship).members.contains(object) ? object : nil
    }

    override func objectEnumerator() -> NSEnumerator { NSArray(array: members).objectEnumerator() }

    override var allObjects: [Any] { members }

    override func add(_ object: Any) {
        guard let object = object as? NSManagedObject else {
            preconditionFailure("Only managed objects can be added to relationship '\(relationship.name)'")
        }
        owner.addToMany(relationship, object)
    }

    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeFromToMany(relationship, object)
    }

    override func removeAllObjects() { owner.setToMany(relationship, []) }

    // Foundation's own implementations of these work on private storage the proxy
    // does not use, so each goes through `add`/`remove`.

    override func addObjects(from array: [Any]) {
        for object in array { add(object) }
    }

    override func setSet(_ otherSet: Set<AnyHashable>) {
        owner.setToMany(relationship, otherSet.compactMap { $0.base as? NSManagedObject })
    }

    override func union(_ otherSet: Set<AnyHashable>) {
        for object in otherSet { add(object.base) }
    }

    override func minus(_ otherSet: Set<AnyHashable>) {
        for object in otherSet { remove(object.base) }
    }

    override func intersect(_ otherSet: Set<AnyHashable>) {
        owner.setToMany(relationship, members.filter { otherSet.contains(AnyHashable($0)) })
    }
}

/// A mutable ordered set that reads and writes one object's ordered to-many relationship.
final class RelationshipMutableOrderedSet: NSMutableOrderedSet {
    private let owner: NSManagedObject
    private let relationship: NSRelationshipDescription

    init(owner: NSManagedObject, relationship: NSRelationshipDescription) {
        self.owner = owner
        self.relationship = relationship
        super.init(capacity: 0)
        mirror()
    }

    /// Linux Foundation iterates an ordered set (`for`, `Array(_:)`, `array`, `set`,
    /// `objectEnumerator()`) and answers `contains` from its own storage, which no subclass
    /// can redirect; so the proxy copies the relationship's members into that storage when
    /// it is made and after each change it makes. (A change made another way while the proxy
    /// is held shows in its count and subscripts at once, in its iteration after its next change.)
    private func mirror() {
        super.removeAllObjects()
        super.addObjects(from: members)
    }

    required convenience init(arrayLiteral elements: Any...) {
        preconditionFailure("A relationship ordered set is only made by mutableOrderedSetValue(forKey:)")
    }

    required init?(coder aDecoder: NSCoder) { nil }

    private var members: [NSManagedObject] { Array(owner.toMany(relationship).members) }

    override var count: Int { owner.toMany(relationship).members.count }

    override func object(at idx: Int) -> Any { owner.toMany(relationship).members[idx] }

    override func index(of object: Any) -> Int {
        guard let object = object as? NSManagedObject else { return NSNotFound }
        return owner.toMany(relationship).members.firstIndex(of: object) ?? NSNotFound
    }

    override func insert(_ object: Any, at idx: Int) {
        guard let object = object as? NSManagedObject else {
            preconditionFailure("Only managed objects can be inserted into relationship '\(relationship.name)'")
        }
        owner.addToMany(relationship, object, at: idx)
        // Appending one member, the common case, mirrors in O(1).
        if super.count + 1 == count, idx <= super.count, !super.contains(object) {
            super.insert(object, at: idx)
        } else {
            mirror()
        }
    }

    override func removeObject(at idx: Int) {
        owner.removeFromToMany(relationship, owner.toMany(relationship).members[idx])
        mirror()
    }

    override func replaceObject(at idx: Int, with object: Any) {
        guard let object = object as? NSManagedObject else { return }
        var objects = members
        objects[idx] = object
        owner.setToMany(relationship, objects)
        mirror()
    }

    override func add(_ object: Any) { insert(object, at: count) }

    // Foundation's own implementations of these work on private storage the proxy
    // does not use, so each is rebuilt from the relationship's member list.

    override func exchangeObject(at idx1: Int, withObjectAt idx2: Int) {
        var objects = members
        objects.swapAt(idx1, idx2)
        owner.setToMany(relationship, objects)
        mirror()
    }

    override func moveObjects(at indexes: IndexSet, to idx: Int) {
        var objects = members
        let moving = indexes.map { objects[$0] }
        for index in indexes.reversed() { objects.remove(at: index) }
        objects.insert(contentsOf: moving, at: Swift.min(idx, objects.count))
        owner.setToMany(relationship, objects)
        mirror()
    }

    override func insert(_ objects: [Any], at indexes: IndexSet) {
        var current = members
        for (object, index) in zip(objects, indexes) {
            guard let object = object as? NSManagedObject else { continue }
            current.removeAll { $0 === object }
            current.insert(object, at: Swift.min(index, current.count))
        }
        owner.setToMany(relationship, current)
        mirror()
    }

    override func setObject(_ obj: Any, at idx: Int) {
        idx == count ? add(obj) : replaceObject(at: idx, with: obj)
    }

    override func removeObjects(at indexes: IndexSet) {
        let objects = members
        owner.setToMany(relationship, objects.enumerated().filter { !indexes.contains($0.offset) }.map(\.element))
        mirror()
    }

    override func removeObjects(in range: NSRange) {
        removeObjects(at: IndexSet(integersIn: range.location..<(range.location + range.length)))
    }

    override func addObjects(from array: [Any]) {
        for object in array { add(object) }
    }

    override func removeObjects(in array: [Any]) {
        for object in array { remove(object) }
    }

    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeFromToMany(relationship, object)
        mirror()
    }

    override func removeAllObjects() {
        owner.setToMany(relationship, [])
        mirror()
    }
}
