/// Conversions between an atomic store's cache nodes and the rows of the in-memory
/// database that answers its fetches: nodes become a save request when a store loads,
/// and rows become nodes when a store of another type is copied into an atomic one.
enum AtomicStoreRows {
    /// The request that inserts `nodes` as rows, with their relationships.
    ///
    /// A relationship set on one side only (a subclass that writes a department's
    /// employees but not each employee's department) is completed on the other side, as
    /// a context keeps inverses in step, so fetches through either side agree.
    ///
    /// - Parameters:
    ///   - nodes: The nodes to insert.
    ///   - registered: Every node of the store by ID; relationships may name any of them.
    ///   - store: The store whose IDs the nodes carry.
    static func insertRequest(
        for nodes: [NSAtomicStoreCacheNode], registered: [NSManagedObjectID: NSAtomicStoreCacheNode],
        store: NSAtomicStore
    ) throws -> StoreSaveRequest {
        var graph = try NodeGraph(nodes: nodes, registered: registered, store: store)
        graph.completeInverses()
        var request = StoreSaveRequest()
        request.inserts.reserveCapacity(nodes.count)
        for (index, node) in graph.nodes.enumerated() {
            let entity = node.objectID.entity
            let facts = entity.facts
            var values = SlotValues(layout: facts.slotLayout)
            for slot in facts.rowColumnSlots {
                let slotFacts = facts.slotFacts[slot]
                switch slotFacts.kind {
                case .toOne:
                    values[slot] = graph.toOnes[index][slot]
                case .attribute:
                    guard let attribute = slotFacts.property as? NSAttributeDescription,
                        let value = node.value(forKey: attribute.name)
                    else { continue }
                    values[slot] = try SubclassStoreValues.stored(
                        value, for: attribute,
                        heldBy: "The cache node of \(node.objectID.uriRepresentation().absoluteString)")
                case .toMany:
                    break
                }
            }
            guard let key = node.objectID.primaryKey else { continue }
            request.inserts.append(
                StoreSaveRequest.RowWrite(
                    entity: entity, primaryKey: key, values: values, slots: facts.rowColumnSlots, expectedVersion: 0))
            for slot in facts.storedToManySlots {
                guard let relationship = facts.slots[slot] as? NSRelationshipDescription,
                    let members = graph.toManys[index][slot], !members.isEmpty
                else { continue }
                request.memberships.append(
                    StoreSaveRequest.MembershipChange(
                        relationship: relationship,
                        source: StoreSaveRequest.RowReference(entity: entity, primaryKey: key),
                        added: members,
                        removed: [],
                        orderedMembers: relationship.isOrdered ? members : nil
                    ))
            }
        }
        return request
    }

    /// Nodes for every row of `backend` (a store of `entities`), with IDs of `store`.
    static func nodes(
        from backend: any PersistentStoreBackend, entities: [NSEntityDescription], store: NSAtomicStore
    ) throws -> [NSAtomicStoreCacheNode] {
        var nodes: [NSAtomicStoreCacheNode] = []
        var byKey: [StoreSaveRequest.RowReference: NSAtomicStoreCacheNode] = [:]
        var pending: [(node: NSAtomicStoreCacheNode, row: StoreRow)] = []
        for root in entities where root.facts.root === root {
            let fetch = StoreFetch(
                entity: root, predicate: nil, sortDescriptors: [], limit: 0, offset: 0, includesSubentities: true,
                restrictedToKeys: nil)
            for row in try backend.fetch(fetch) {
                guard let key = row.objectID.primaryKey else { continue }
                let entity = row.objectID.entity
                let node = NSAtomicStoreCacheNode(
                    objectID: NSManagedObjectID(entity: entity, store: store, primaryKey: key))
                store.references.noteUsed(key, in: entity)
                store.references.record(key, forKey: key, in: entity)
                let cache = NSMutableDictionary()
                let facts = entity.facts
                for slot in facts.rowColumnSlots where facts.slotFacts[slot].kind == .attribute {
                    if let value = row.values[slot] { cache[facts.slots[slot].name] = value }
                }
                node.propertyCache = cache
                nodes.append(node)
                byKey[StoreSaveRequest.RowReference(entity: entity.facts.root, primaryKey: key)] = node
                pending.append((node, row))
            }
        }
        func node(for id: NSManagedObjectID) -> NSAtomicStoreCacheNode? {
            id.primaryKey.flatMap { byKey[StoreSaveRequest.RowReference(entity: id.entity.facts.root, primaryKey: $0)] }
        }
        for (node, row) in pending {
            let facts = node.objectID.entity.facts
            for (slot, property) in facts.slots.enumerated() where property.isStored {
                guard let relationship = property as? NSRelationshipDescription else { continue }
                if relationship.isToMany {
                    let members = try backend.relatedObjectIDs(of: row.objectID, relationship: relationship).compactMap(
                        node(for:))
                    node.propertyCache?[relationship.name] =
                        relationship.isOrdered ? NSOrderedSet(array: members) as Any : Set(members) as Any
                } else if let destination = (row.values[slot] as? NSManagedObjectID).flatMap(node(for:)) {
                    node.propertyCache?[relationship.name] = destination
                }
            }
        }
        return nodes
    }

    /// The nodes a relationship value names: one node, or a collection of nodes (set,
    /// ordered set, array); `nil` when the value is none of these.
    static func nodes(in value: Any) -> [NSAtomicStoreCacheNode]? {
        switch value {
        case let node as NSAtomicStoreCacheNode: [node]
        case let nodes as [NSAtomicStoreCacheNode]: nodes
        case let nodes as Set<NSAtomicStoreCacheNode>: Array(nodes)
        case let ordered as NSOrderedSet: ordered.array.compactMap { $0 as? NSAtomicStoreCacheNode }
        case let set as NSSet: set.allObjects.compactMap { $0 as? NSAtomicStoreCacheNode }
        case let array as NSArray: array.compactMap { $0 as? NSAtomicStoreCacheNode }
        default: nil
        }
    }
}

/// The relationships of nodes being loaded, resolved to rows: to-ones and to-manys by
/// node and slot, so inverses can be completed before anything is written.
private struct NodeGraph {
    let nodes: [NSAtomicStoreCacheNode]
    /// Per node (indexed like `nodes`), to-one slot → destination row.
    var toOnes: [[Int: StoreSaveRequest.RowReference]]
    /// Per node, to-many slot → member rows in order.
    var toManys: [[Int: [StoreSaveRequest.RowReference]]]
    /// Node index by row, for the nodes being loaded.
    private var indexByRow: [StoreSaveRequest.RowReference: Int] = [:]

    init(
        nodes: [NSAtomicStoreCacheNode], registered: [NSManagedObjectID: NSAtomicStoreCacheNode], store: NSAtomicStore
    ) throws {
        self.nodes = nodes
        toOnes = Array(repeating: [:], count: nodes.count)
        toManys = Array(repeating: [:], count: nodes.count)
        for (index, node) in nodes.enumerated() {
            let id = node.objectID
            guard id.persistentStore === store, let key = id.primaryKey else {
                throw CoreDataError.make(
                    NSPersistentStoreOperationError,
                    "A cache node's objectID must come from this store's objectID(for:referenceObject:): \(id.uriRepresentation().absoluteString)"
                )
            }
            guard !id.entity.isAbstract else {
                throw CoreDataError.make(
                    NSPersistentStoreOperationError,
                    "A cache node names an object of the abstract entity '\(id.entity.name ?? "?")'")
            }
            indexByRow[Self.row(id.entity, key)] = index
        }
        for (index, node) in nodes.enumerated() {
            let facts = node.objectID.entity.facts
            for (slot, property) in facts.slots.enumerated() where property.isStored {
                guard let relationship = property as? NSRelationshipDescription,
                    let value = node.value(forKey: relationship.name)
                else { continue }
                guard let members = AtomicStoreRows.nodes(in: value) else {
                    throw CoreDataError.make(
                        NSManagedObjectValidationError,
                        "The cache node of \(node.objectID.uriRepresentation().absoluteString) holds a \(type(of: value)) for the relationship '\(relationship.name)', not cache nodes"
                    )
                }
                var rows: [StoreSaveRequest.RowReference] = []
                for member in members {
                    guard registered[member.objectID] != nil, let key = member.objectID.primaryKey else {
                        throw CoreDataError.make(
                            NSManagedObjectReferentialIntegrityError,
                            "The relationship '\(relationship.name)' of \(node.objectID.uriRepresentation().absoluteString) names a cache node that is not registered with the store (\(member.objectID.uriRepresentation().absoluteString))"
                        )
                    }
                    rows.append(StoreSaveRequest.RowReference(entity: member.objectID.entity, primaryKey: key))
                }
                if relationship.isToMany {
                    toManys[index][slot] = rows
                } else {
                    toOnes[index][slot] = rows.first
                }
            }
        }
    }

    private static func row(_ entity: NSEntityDescription, _ key: Int64) -> StoreSaveRequest.RowReference {
        StoreSaveRequest.RowReference(entity: entity.facts.root, primaryKey: key)
    }

    /// Sets the other side of each relationship whose inverse a node leaves unset.
    mutating func completeInverses() {
        for index in nodes.indices {
            let entity = nodes[index].objectID.entity
            let source = StoreSaveRequest.RowReference(
                entity: entity, primaryKey: nodes[index].objectID.primaryKey ?? 0)
            for (slot, property) in entity.facts.slots.enumerated() {
                guard let relationship = property as? NSRelationshipDescription,
                    let inverse = relationship.inverseRelationship, inverse.isStored
                else { continue }
                let targets =
                    relationship.isToMany ? toManys[index][slot] ?? [] : toOnes[index][slot].map { [$0] } ?? []
                for target in targets {
                    guard let other = indexByRow[Self.row(target.entity, target.primaryKey)] else { continue }
                    let inverseSlot = inverse.slot
                    if inverse.isToMany {
                        var members = toManys[other][inverseSlot] ?? []
                        if !members.contains(where: {
                            $0.primaryKey == source.primaryKey && $0.entity.facts.root === entity.facts.root
                        }) {
                            members.append(source)
                            toManys[other][inverseSlot] = members
                        }
                    } else if toOnes[other][inverseSlot] == nil {
                        toOnes[other][inverseSlot] = source
                    }
                }
            }
        }
    }
}
