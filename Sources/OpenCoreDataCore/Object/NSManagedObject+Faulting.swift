internal import OrderedCollections

extension NSManagedObject {
    /// Fills the object from a snapshot (firing a fault, or refreshing after a refresh).
    ///
    /// To-manys loaded while the object was a fault (prefetched, or read first) stay
    /// loaded, as do changed ones; a reload of a loaded object drops the others, which
    /// then load afresh on first use. Transient values survive, as they are not in the store.
    func load(_ row: StoreRow) {
        var values = row.values
        for slot in entityFacts.toManySlots
        where storage[slot] != nil && (isFaultStorage || changedSlots.contains(slot)) {
            values[slot] = storage[slot]
        }
        // Transient values live only here: kept across a reload, else the attribute's default
        // (a fetched or refreshed object starts with it, as a new one does).
        for slot in entityFacts.transientSlots {
            values[slot] = storage[slot] ?? entityFacts.defaultStorage[slot]
        }
        snapshot = row
        committed = row.values
        storage = values
        storedVersion = row.version
        changedSlots.removeAll()
        rejectedAssignments.removeAll()
        isFaultStorage = false
    }

    /// Discards loaded values (and unsaved changes); the next access reloads them.
    func turnIntoFault() {
        managedObjectContext?.forgetFaultFailure(of: self)
        // A fault may hold the row its fetch read; a refresh must not fire from it.
        guard !isFaultStorage else {
            snapshot = nil
            // A fault its store could not fill may hold changes made since: discarded too.
            if !changedSlots.isEmpty {
                storage = entityFacts.emptyStorage
                changedSlots.removeAll()
                rejectedAssignments.removeAll()
            }
            return
        }
        willTurnIntoFault()
        storage = entityFacts.emptyStorage
        committed = nil
        snapshot = nil
        changedSlots.removeAll()
        rejectedAssignments.removeAll()
        // In a child context a temporary ID may name the parent's unsaved object, which reloads from it.
        isFaultStorage = !objectID.isTemporaryID || managedObjectContext?.parent != nil
        didTurnIntoFault()
    }

    /// Reloads the saved values (row cache within the context's staleness interval,
    /// else the store) and applies the unsaved changes on top again: `refresh(_:mergeChanges: true)`.
    ///
    /// When the store cannot be read the object keeps the values it has: they were read
    /// before, so nothing made up is shown or saved, and saving it stays allowed.
    func reloadKeepingChanges() {
        guard let context = managedObjectContext, let row = (try? context.sourceRow(for: objectID)) ?? nil else {
            return
        }
        loadKeepingChanges(row)
        context.noteRead(self)
    }

    /// Loads `row` and applies the unsaved changes on top again.
    func loadKeepingChanges(_ row: StoreRow) {
        let pending = changedSlots.map { ($0, storage[$0]) }
        let rejected = rejectedAssignments
        load(row)
        for (slot, value) in pending {
            storage[slot] = value
            changedSlots.insert(slot)
        }
        rejectedAssignments = rejected
    }

    /// Clears the values of a fault its store could not fill: a fault starts from the
    /// model's defaults, which must not pass for stored values. Changes made here and
    /// transient values (never stored) are kept.
    func clearUnreadValues() {
        let facts = entityFacts
        var values = facts.emptyStorage
        for slot in changedSlots { values[slot] = storage[slot] }
        for slot in facts.transientSlots { values[slot] = storage[slot] }
        storage = values
    }

    /// After a successful save: the current values become the committed ones, and the
    /// returned snapshot (transient values left out) goes to the row cache.
    func commitSavedState(version: Int64, timestamp: TimeInterval) -> StoreRow {
        let values = rowValues()
        let facts = entityFacts
        for slot in facts.toManySlots {
            if let loaded = storage[slot] as? ToManyRelationship { loaded.committed = loaded.members }
        }
        let transientSlots = facts.transientSlots.filter { storage[$0] != nil }
        // Other contexts must not see this context's transient values.
        var shared = values
        for slot in transientSlots { shared[slot] = nil }
        let row = StoreRow.make(objectID: objectID, version: version, values: shared, timestamp: timestamp)
        snapshot = row
        // The row's buffer is a copy of the values; where they are the same, the object
        // reads the row's and lets its own go (one buffer per saved object, not two).
        committed = transientSlots.isEmpty ? row.values : values
        if transientSlots.isEmpty, !facts.hasRelationships, facts.fetchedSlots.isEmpty { storage = row.values }
        storedVersion = version
        changedSlots.removeAll()
        return row
    }

    /// The object's values as a row holds them: to-ones as object IDs, to-manys left out
    /// (they load from their own source), fetched properties' results left out, transient values kept.
    func rowValues() -> SlotValues {
        var values = storage
        let facts = entityFacts
        // A fetched property's results (this context's objects) would reach other contexts.
        for slot in facts.fetchedSlots where values[slot] != nil { values[slot] = nil }
        guard facts.hasRelationships else { return values }
        for slot in facts.slotFacts.indices {
            switch facts.slotFacts[slot].kind {
            case .attribute: continue
            case .toMany: values[slot] = nil
            case .toOne: values[slot] = Self.objectID(of: storage[slot])
            }
        }
        return values
    }
}
