/// One context save passing through an atomic store's node callbacks: the inserted
/// objects still waiting for their nodes, and what to put back if the save fails.
final class AtomicStoreSaving {
    /// The context whose objects the callbacks get.
    let context: NSManagedObjectContext
    /// Inserted objects whose nodes are not made yet, by ID.
    var pendingInserts: [NSManagedObjectID: NSManagedObject] = [:]
    /// Inserted objects in the order the save wrote them.
    var insertOrder: [NSManagedObjectID] = []
    /// The objects whose `newCacheNode(for:)` is running.
    var creating: Set<NSManagedObjectID> = []
    /// Whether a callback asked for the node of a new object whose node was still being
    /// made (two new objects naming each other): the new nodes are then filled again.
    var missedLookup = false
    /// The nodes made for inserted objects, with their objects.
    var created: [NSManagedObjectID: (node: NSAtomicStoreCacheNode, object: NSManagedObject)] = [:]
    /// Updated nodes with their values before the callbacks.
    var previousValues: [(node: NSAtomicStoreCacheNode, cache: NSMutableDictionary?)] = []
    /// Nodes the save removed.
    var removed: [NSAtomicStoreCacheNode] = []

    init(context: NSManagedObjectContext) {
        self.context = context
    }

    /// The node of an object this save inserts, made now if it is not yet (a callback
    /// filling one new object asks for another's node).
    func nodeForInsertedObject(_ objectID: NSManagedObjectID, in store: NSAtomicStore) -> NSAtomicStoreCacheNode? {
        if let made = created[objectID] { return made.node }
        guard let object = pendingInserts[objectID] else { return nil }
        guard !creating.contains(objectID) else {
            missedLookup = true
            return nil
        }
        return store.makeNode(for: object, in: self)
    }
}

extension NSAtomicStore {
    /// Brings the nodes up to date with a save the in-memory database just committed:
    /// ``willRemoveCacheNodes(_:)`` with the deleted objects' nodes, ``newCacheNode(for:)``
    /// for inserted objects (after ``newReferenceObject(for:)``), ``updateCacheNode(_:from:)``
    /// for updated ones. Throws, with every node as it was, when the request names
    /// objects its context no longer holds.
    func applyToCacheNodes(_ request: StoreSaveRequest) throws -> AtomicStoreSaving {
        guard let context = request.context else {
            throw CoreDataError.make(
                NSPersistentStoreSaveError, "An atomic store saves a context's objects; this save came from no context")
        }
        let saving = AtomicStoreSaving(context: context)
        lock.lock()
        savingChanges = saving
        defer {
            savingChanges = nil
            lock.unlock()
        }
        do {
            let deleted = request.deletes.map { objectID(for: $0.row) }
            let removed = deleted.compactMap { nodesByID[$0] }
            if !removed.isEmpty {
                willRemoveCacheNodes(Set(removed))
                for node in removed { nodesByID[node.objectID] = nil }
                saving.removed = removed
            }
            for write in request.inserts {
                let id = objectID(
                    for: StoreSaveRequest.RowReference(entity: write.entity, primaryKey: write.primaryKey))
                guard let object = context.registeredObject(for: id) else {
                    throw CoreDataError.make(
                        NSPersistentStoreSaveError,
                        "The inserted object \(id.uriRepresentation().absoluteString) is not registered with the saving context"
                    )
                }
                saving.pendingInserts[id] = object
                saving.insertOrder.append(id)
            }
            for id in saving.insertOrder where saving.pendingInserts[id] != nil {
                _ = makeNode(for: saving.pendingInserts[id]!, in: saving)
            }
            if saving.missedLookup {
                for id in saving.insertOrder {
                    if let made = saving.created[id] { updateCacheNode(made.node, from: made.object) }
                }
            }
            var seen = Set(saving.insertOrder).union(deleted)
            var updated: [NSManagedObjectID] = []
            for write in request.updates {
                let id = objectID(
                    for: StoreSaveRequest.RowReference(entity: write.entity, primaryKey: write.primaryKey))
                if seen.insert(id).inserted { updated.append(id) }
            }
            for change in request.memberships {
                let id = objectID(for: change.source)
                if seen.insert(id).inserted { updated.append(id) }
            }
            for id in updated {
                guard let object = context.registeredObject(for: id) else { continue }
                if let node = nodesByID[id] {
                    saving.previousValues.append((node, node.propertyCache?.mutableCopy() as? NSMutableDictionary))
                    updateCacheNode(node, from: object)
                } else {
                    saving.pendingInserts[id] = object
                    saving.insertOrder.append(id)
                    _ = makeNode(for: object, in: saving)
                }
            }
        } catch {
            restoreCacheNodes(after: saving)
            throw error
        }
        return saving
    }

    /// Puts the nodes back as they were before `saving`'s callbacks.
    func restoreCacheNodes(after saving: AtomicStoreSaving) {
        lock.withLock {
            for (node, cache) in saving.previousValues.reversed() { node.propertyCache = cache }
            for id in saving.created.keys { nodesByID[id] = nil }
            for node in saving.removed { nodesByID[node.objectID] = node }
        }
    }

    /// Makes and registers the node of an inserted object, naming the object first.
    func makeNode(for object: NSManagedObject, in saving: AtomicStoreSaving) -> NSAtomicStoreCacheNode {
        let id = object.objectID
        if let key = id.primaryKey, references.reference(forKey: key, in: id.entity) == nil {
            references.record(newReferenceObject(for: object), forKey: key, in: id.entity)
        }
        saving.creating.insert(id)
        let node = newCacheNode(for: object)
        saving.creating.remove(id)
        saving.pendingInserts[id] = nil
        saving.created[id] = (node, object)
        nodesByID[id] = node
        return node
    }

    /// The ID of a row of this store.
    func objectID(for row: StoreSaveRequest.RowReference) -> NSManagedObjectID {
        NSManagedObjectID(entity: row.entity, store: self, primaryKey: row.primaryKey)
    }
}
