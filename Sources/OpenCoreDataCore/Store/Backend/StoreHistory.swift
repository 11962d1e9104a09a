/// Persistent history in the store's terms: who wrote a transaction, and which part of
/// the history a request reads or deletes. Every store engine that tracks history
/// records one transaction per save or batch request, in the same database
/// transaction as the change itself, so history and data can never disagree.

/// Who made a store transaction, as its history records it.
package struct StoreHistoryOrigin {
    /// The context's `transactionAuthor`.
    package var author: String?
    /// The context's `name`.
    package var contextName: String?

    package init(author: String? = nil, contextName: String? = nil) {
        self.author = author
        self.contextName = contextName
    }

    /// What identifies this process in history: its bundle identifier or, lacking one
    /// (command-line tools, servers), its executable's name.
    package static let bundleID: String = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    /// This process's identifier, as a string as Core Data records it.
    package static var processID: String { String(ProcessInfo.processInfo.processIdentifier) }
}

/// The part of a store's history a request reads or deletes, by transaction number or
/// commit date. Numbers increase with every transaction of the store.
package enum StoreHistoryRange {
    case all
    case afterNumber(Int64)
    case afterDate(Date)
    case throughNumber(Int64)
    case beforeNumber(Int64)
    case beforeDate(Date)
}

/// A change to record: the row, what happened to it and, for updates, which properties.
package struct StoreHistoryChange {
    package let entity: NSEntityDescription
    package let primaryKey: Int64
    package let type: NSPersistentHistoryChangeType
    /// For updates, the changed properties (slots of the entity).
    package var updatedSlots: [Int] = []

    package init(
        entity: NSEntityDescription, primaryKey: Int64, type: NSPersistentHistoryChangeType, updatedSlots: [Int] = []
    ) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.type = type
        self.updatedSlots = updatedSlots
    }
}

extension StoreSaveRequest {
    /// The history of this save: each inserted, updated and deleted row once, updates
    /// naming their changed columns and the to-many relationships whose members changed.
    package var historyChanges: [StoreHistoryChange] {
        var changes: [StoreHistoryChange] = []
        changes.reserveCapacity(inserts.count + updates.count + deletes.count)
        var position: [RowReference: Int] = [:]
        for row in inserts {
            position[RowReference(entity: row.entity, primaryKey: row.primaryKey)] = changes.count
            changes.append(StoreHistoryChange(entity: row.entity, primaryKey: row.primaryKey, type: .insert))
        }
        for row in updates {
            position[RowReference(entity: row.entity, primaryKey: row.primaryKey)] = changes.count
            changes.append(
                StoreHistoryChange(
                    entity: row.entity, primaryKey: row.primaryKey, type: .update, updatedSlots: row.slots))
        }
        for membership in memberships {
            let slot = membership.relationship.slot
            if let index = position[membership.source] {
                if changes[index].type == .update, !changes[index].updatedSlots.contains(slot) {
                    changes[index].updatedSlots.append(slot)
                }
            } else {
                position[membership.source] = changes.count
                changes.append(
                    StoreHistoryChange(
                        entity: membership.source.entity, primaryKey: membership.source.primaryKey, type: .update,
                        updatedSlots: [slot]))
            }
        }
        for (row, _) in deletes {
            changes.append(StoreHistoryChange(entity: row.entity, primaryKey: row.primaryKey, type: .delete))
        }
        return changes
    }
}
