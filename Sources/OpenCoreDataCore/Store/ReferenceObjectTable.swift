/// The two-way map between a custom store's reference objects (what its subclass calls
/// an object: a string, a number, a UUID) and the primary keys of the object IDs the
/// store hands out, with the key counters of each inheritance tree: ``NSAtomicStore``'s
/// and ``NSIncrementalStore``'s.
///
/// Keys are the store's own, as `Z_PK`s are an SQLite store's: an atomic store's rows in
/// memory are filed under them, and every store's IDs carry them. A reference object that is a positive integer is its
/// own key when that key is free, so a store whose references are numbers (the Binary
/// store's are) gives its objects the same URIs on every launch.
final class ReferenceObjectTable: @unchecked Sendable {
    private struct Tree {
        var referenceByKey: [Int64: Any] = [:]
        var keyByReference: [ReferenceKey: Int64] = [:]
        var largestKey: Int64 = 0
    }

    /// Trees by their root entity; subclasses call in from any thread, hence the lock.
    private var trees: [ObjectIdentifier: Tree] = [:]
    private let lock = NSLock()

    /// Runs `body` on the trees under the lock.
    private func withTrees<T>(_ body: (inout [ObjectIdentifier: Tree]) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&trees)
    }

    /// The ID of `store` for the object called `reference` in `entity`.
    func objectID(for entity: NSEntityDescription, reference: Any, in store: NSPersistentStore) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, store: store, primaryKey: key(for: reference, in: entity))
    }

    /// The reference object of an ID made by ``objectID(for:reference:in:)``: the one
    /// recorded, else its key; a temporary ID answers its URI.
    func reference(of objectID: NSManagedObjectID) -> Any {
        guard let key = objectID.primaryKey else { return objectID.uriRepresentation().absoluteString }
        return reference(forKey: key, in: objectID.entity) ?? key
    }

    /// The key of `reference` in `entity`'s tree, given one when it has none.
    func key(for reference: Any, in entity: NSEntityDescription) -> Int64 {
        let root = ObjectIdentifier(entity.facts.root)
        let hashed = ReferenceKey(reference)
        return withTrees { trees in
            var tree = trees[root] ?? Tree()
            defer { trees[root] = tree }
            if let key = tree.keyByReference[hashed] { return key }
            let key: Int64
            if case let .integer(number) = hashed, number > 0, tree.referenceByKey[number] == nil {
                key = number
            } else {
                key = tree.largestKey &+ 1
            }
            tree.largestKey = max(tree.largestKey, key)
            tree.referenceByKey[key] = reference
            tree.keyByReference[hashed] = key
            return key
        }
    }

    /// Whether `reference` names an object of `entity`'s tree already.
    func isRecorded(_ reference: Any, in entity: NSEntityDescription) -> Bool {
        withTrees { $0[ObjectIdentifier(entity.facts.root)]?.keyByReference[ReferenceKey(reference)] != nil }
    }

    /// The reference object recorded for `key` in `entity`'s tree, if any.
    func reference(forKey key: Int64, in entity: NSEntityDescription) -> Any? {
        withTrees { $0[ObjectIdentifier(entity.facts.root)]?.referenceByKey[key] }
    }

    /// Records `reference` for a key handed out by ``nextKey(for:)`` (a new object's,
    /// once its subclass names it).
    func record(_ reference: Any, forKey key: Int64, in entity: NSEntityDescription) {
        let root = ObjectIdentifier(entity.facts.root)
        withTrees { trees in
            var tree = trees[root] ?? Tree()
            if let old = tree.referenceByKey[key] { tree.keyByReference[ReferenceKey(old)] = nil }
            tree.referenceByKey[key] = reference
            tree.keyByReference[ReferenceKey(reference)] = key
            tree.largestKey = max(tree.largestKey, key)
            trees[root] = tree
        }
    }

    /// A key no object of `entity`'s tree has, for a new object.
    func nextKey(for entity: NSEntityDescription) throws -> Int64 {
        let root = ObjectIdentifier(entity.facts.root)
        return try withTrees { trees in
            var tree = trees[root] ?? Tree()
            guard tree.largestKey < Int64.max else {
                throw CoreDataError.make(
                    NSPersistentStoreSaveError,
                    "The store has used up the keys of entity '\(entity.facts.root.name ?? "?")'")
            }
            tree.largestKey += 1
            trees[root] = tree
            return tree.largestKey
        }
    }

    /// Notes that `key` is taken in `entity`'s tree (a row copied from another store).
    func noteUsed(_ key: Int64, in entity: NSEntityDescription) {
        let root = ObjectIdentifier(entity.facts.root)
        withTrees { trees in
            var tree = trees[root] ?? Tree()
            tree.largestKey = max(tree.largestKey, key)
            trees[root] = tree
        }
    }
}

/// A reference object as a dictionary key: numbers compare by value whatever their
/// Swift or Foundation type, so a reference read back from a file finds its object.
enum ReferenceKey: Hashable {
    case integer(Int64)
    case double(Double)
    case string(String)
    case uuid(UUID)
    case other(AnyHashable)
    case described(String)

    init(_ reference: Any) {
        // A Bool only by its exact type: an NSNumber holding 1 casts to Bool too.
        if let flag = reference as? Bool, type(of: reference) == Bool.self {
            self = .other(AnyHashable(flag))
            return
        }
        switch reference {
        case let value as Int: self = .integer(Int64(value))
        case let value as Int64: self = .integer(value)
        case let value as Int32: self = .integer(Int64(value))
        case let value as Int16: self = .integer(Int64(value))
        case let value as UInt32: self = .integer(Int64(value))
        case let value as UInt64 where value <= UInt64(Int64.max): self = .integer(Int64(value))
        case let value as Double: self = Int64(exactly: value).map(ReferenceKey.integer) ?? .double(value)
        case let value as String: self = .string(value)
        case let value as NSString: self = .string(value as String)
        case let value as UUID: self = .uuid(value)
        case let value as NSNumber:
            let integer = value.int64Value
            self = Double(integer) == value.doubleValue ? .integer(integer) : .double(value.doubleValue)
        case let value as AnyHashable: self = .other(value)
        default: self = .described(String(describing: reference))
        }
    }
}
