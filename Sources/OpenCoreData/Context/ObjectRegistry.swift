/// The objects a context knows, one per object ID.
///
/// As in Core Data (`retainsRegisteredObjects` false by default), the registry does
/// not keep objects alive: the app's references and the context's change sets do.
/// An object nobody references is released, and its entry is swept once the table
/// has quadrupled since the last sweep, so inserts stay amortized O(1).
struct ObjectRegistry {
    private struct Entry {
        weak var object: NSManagedObject?
        /// Set while the context retains its registered objects.
        var retained: NSManagedObject?
    }

    private var entries: [ObjectKey: Entry] = [:]
    /// Objects with temporary IDs, apart: a save gives them all permanent IDs at once,
    /// and dropping this table whole costs less than removing each entry.
    private var temporaries: [ObjectKey: Entry] = [:]
    private var sweepThreshold = 4096
    /// Whether entries hold their objects strongly.
    var retainsObjects = false {
        didSet {
            guard retainsObjects != oldValue else { return }
            let retains = retainsObjects
            for key in Array(entries.keys) {
                let object = entries[key]?.object
                entries[key]?.retained = retains ? object : nil
            }
            for key in Array(temporaries.keys) {
                let object = temporaries[key]?.object
                temporaries[key]?.retained = retains ? object : nil
            }
        }
    }

    subscript(objectID: NSManagedObjectID) -> NSManagedObject? {
        objectID.isTemporaryID ? temporaries[objectID.key]?.object : entries[objectID.key]?.object
    }

    /// Registers `object` under its current ID.
    mutating func insert(_ object: NSManagedObject) {
        let entry = Entry(object: object, retained: retainsObjects ? object : nil)
        let id = object.objectID
        if id.isTemporaryID {
            temporaries[id.key] = entry
            return
        }
        entries[id.key] = entry
        if entries.count > sweepThreshold {
            entries = entries.filter { $0.value.object != nil }
            sweepThreshold = max(4096, entries.count * 4)
        }
    }

    /// Unregisters the object under `objectID` when it is `object`.
    mutating func remove(_ objectID: NSManagedObjectID, ifIdenticalTo object: NSManagedObject) {
        if objectID.isTemporaryID {
            if temporaries[objectID.key]?.object === object { temporaries[objectID.key] = nil }
        } else if entries[objectID.key]?.object === object {
            entries[objectID.key] = nil
        }
    }

    /// Re-registers objects a save just gave permanent IDs (`oldIDs`: their temporary ones).
    ///
    /// Every object a save promotes was registered here when it was inserted, so when
    /// the counts match, the table holds exactly those objects and is dropped whole.
    mutating func promote(_ objects: [NSManagedObject], from oldIDs: [NSManagedObjectID]) {
        if temporaries.count == oldIDs.count {
            temporaries.removeAll()
        } else {
            for (object, id) in zip(objects, oldIDs) { remove(id, ifIdenticalTo: object) }
            temporaries = temporaries.filter { $0.value.object != nil }
        }
        for object in objects { insert(object) }
    }

    mutating func removeAll() {
        entries.removeAll()
        temporaries.removeAll()
    }

    /// The live objects.
    var objects: [NSManagedObject] { entries.values.compactMap(\.object) + temporaries.values.compactMap(\.object) }

    /// How many objects are alive.
    var count: Int { entries.values.count { $0.object != nil } + temporaries.values.count { $0.object != nil } }
}
