import OpenCoreData

extension ModelContext {
    /// The name the context's saves record in the history (its transactions' ``HistoryTransaction/author``).
    public var author: String? {
        get { objectContext.transactionAuthor }
        set { objectContext.transactionAuthor = newValue }
    }

    /// The history transactions `descriptor` describes, oldest first unless it sorts them.
    ///
    /// - Throws: The store's error (a store without history tracking has none).
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        var found = try allHistoryTransactions(.transactionsAndChanges).compactMap { historyTransaction($0) as? T }
        if let predicate = descriptor.predicate {
            found = try found.filter { try predicate.evaluate($0) }
        }
        if !descriptor.sortBy.isEmpty {
            found.sort { lhs, rhs in
                for sort in descriptor.sortBy {
                    switch sort.compare(lhs, rhs) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: continue
                    }
                }
                return false
            }
        }
        if descriptor.fetchLimit > 0 { found = Array(found.prefix(descriptor.fetchLimit)) }
        return found
    }

    /// Deletes the history transactions `descriptor` describes.
    ///
    /// A store's history is deleted from its start: the transactions described must be the
    /// oldest ones (as a predicate `token < someToken` or `timestamp < someDate` gives).
    ///
    /// - Throws: ``SwiftDataError/invalidTransactionFetchRequest`` when the described
    ///   transactions are not the oldest ones; the store's error.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        let all = try allHistoryTransactions(.transactionsOnly)
        var matching: [NSPersistentHistoryTransaction] = []
        for transaction in all {
            guard let swift = historyTransaction(transaction) as? T else { continue }
            if try descriptor.predicate?.evaluate(swift) ?? true { matching.append(transaction) }
        }
        guard let last = matching.last else { return }
        guard Array(all.prefix(matching.count)).map(\.transactionNumber) == matching.map(\.transactionNumber) else {
            throw SwiftDataError.invalidTransactionFetchRequest.explained(
                "deleteHistory deletes a store's oldest transactions; the descriptor describes transactions after some it leaves"
            )
        }
        _ = try objectContext.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: last.token))
    }

    /// Every transaction of the stores' history, oldest first.
    private func allHistoryTransactions(
        _ resultType: NSPersistentHistoryResultType
    ) throws -> [NSPersistentHistoryTransaction] {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        request.resultType = resultType
        let result = try objectContext.execute(request) as? NSPersistentHistoryResult
        return (result?.result as? [NSPersistentHistoryTransaction]) ?? []
    }

    /// The SwiftData form of a Core Data history transaction.
    private func historyTransaction(_ transaction: NSPersistentHistoryTransaction) -> DefaultHistoryTransaction {
        let changes = (transaction.changes ?? []).compactMap { change -> HistoryChange? in
            guard let type = objectContext.modelTypes[change.changedObjectID.entity.name ?? ""] else { return nil }
            return Self.historyChange(change, of: type, transaction: transaction.transactionNumber)
        }
        return DefaultHistoryTransaction(
            changes: changes, transactionIdentifier: transaction.transactionNumber,
            author: transaction.author, bundleIdentifier: transaction.bundleID,
            processIdentifier: transaction.processID, storeIdentifier: transaction.storeID,
            timestamp: transaction.timestamp, token: DefaultHistoryToken(transaction.token))
    }

    private static func historyChange<Model: PersistentModel>(
        _ change: NSPersistentHistoryChange, of type: Model.Type, transaction: Int64
    ) -> HistoryChange {
        let id = PersistentIdentifier(change.changedObjectID)
        switch change.changeType {
        case .insert:
            return .insert(
                DefaultHistoryInsert<Model>(
                    changedPersistentIdentifier: id, changeIdentifier: change.changeID,
                    transactionIdentifier: transaction))
        case .update:
            let table = ModelTable.of(Model.self)
            let names = Set((change.updatedProperties ?? []).map(\.name))
            let keyPaths = table.properties.filter { names.contains($0.name) }.compactMap {
                $0.keyPath as? PartialKeyPath<Model>
            }
            return .update(
                DefaultHistoryUpdate<Model>(
                    changedPersistentIdentifier: id, changeIdentifier: change.changeID,
                    transactionIdentifier: transaction, updatedAttributes: keyPaths))
        case .delete:
            var values: [String: Any] = [:]
            for property in ModelTable.of(Model.self).properties {
                guard case .attribute(let codec) = property.kind, let stored = change.tombstone?[property.name],
                    !(stored is NSNull), let value = codec.decode(stored)
                else { continue }
                values[property.name] = value
            }
            return .delete(
                DefaultHistoryDelete<Model>(
                    changedPersistentIdentifier: id, changeIdentifier: change.changeID,
                    transactionIdentifier: transaction, tombstone: HistoryTombstone(values: values)))
        }
    }
}
