import OrderedCollections

/// Managed objects in the order they were added, without duplicates, compared by
/// identity: the context's inserted, updated and deleted sets, and the members of
/// to-many relationships (their order is an ordered relationship's order).
///
/// Managed object equality is identity anyway, but hashing an object through
/// `NSObject`'s `Hashable` conformance makes a dynamic call for `hash` and boxes the
/// argument of every `isEqual(_:)`. Every new, changed or related object passes
/// through these sets, so they hash the object's address instead.
struct ManagedObjectSet: RandomAccessCollection, ExpressibleByArrayLiteral, Equatable {
    private struct Member: Hashable {
        let object: NSManagedObject
        static func == (lhs: Member, rhs: Member) -> Bool { lhs.object === rhs.object }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(object)) }
    }

    private var members = OrderedSet<Member>()

    init() {}

    init(_ objects: some Sequence<NSManagedObject>) {
        members.reserveCapacity(objects.underestimatedCount)
        for object in objects { append(object) }
    }

    init(arrayLiteral objects: NSManagedObject...) {
        self.init(objects)
    }

    /// Same members in the same order.
    static func == (lhs: ManagedObjectSet, rhs: ManagedObjectSet) -> Bool { lhs.members == rhs.members }

    /// Same members, in any order.
    func hasSameMembers(as other: ManagedObjectSet) -> Bool {
        count == other.count && allSatisfy(other.contains)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { members.count }
    subscript(position: Int) -> NSManagedObject { members[position].object }

    /// Adds `object` unless present; returns whether it was added and where it is.
    @discardableResult
    mutating func append(_ object: NSManagedObject) -> (inserted: Bool, index: Int) {
        members.append(Member(object: object))
    }

    /// Removes `object`; returns it when it was a member.
    @discardableResult
    mutating func remove(_ object: NSManagedObject) -> NSManagedObject? {
        members.remove(Member(object: object))?.object
    }

    /// Removes the member at `position`.
    @discardableResult
    mutating func remove(at position: Int) -> NSManagedObject {
        members.remove(at: position).object
    }

    /// Inserts `object` at `position` unless present; returns whether it was inserted and where it is.
    @discardableResult
    mutating func insert(_ object: NSManagedObject, at position: Int) -> (inserted: Bool, index: Int) {
        members.insert(Member(object: object), at: position)
    }

    /// The position of `object`, found by hashing (not by scanning).
    func firstIndex(of object: NSManagedObject) -> Int? {
        members.firstIndex(of: Member(object: object))
    }

    func contains(_ object: NSManagedObject) -> Bool {
        members.contains(Member(object: object))
    }

    mutating func removeAll() { members.removeAll() }

    /// This set followed by the members of `other` it lacks.
    func union(_ other: ManagedObjectSet) -> ManagedObjectSet {
        var result = self
        for object in other { result.append(object) }
        return result
    }
}
