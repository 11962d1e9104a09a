extension NSPersistentStoreCoordinator {
    /// A token marking the latest history transaction of `stores` (all stores for
    /// `nil`) that track history; `nil` when none does.
    ///
    /// Fetching the history after it later returns exactly what was committed since.
    ///
    /// - Parameter stores: The stores to cover (``NSPersistentStore`` values), or `nil` for all.
    /// - Returns: The token, or `nil` when none of the stores tracks history.
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        let chosen = stores.map { $0.compactMap { $0 as? NSPersistentStore } } ?? persistentStores
        var numbers: [String: Int64] = [:]
        performAndWait {
            for store in chosen where store.backend?.tracksHistory == true {
                numbers[store.identifier] = (try? store.backend?.historyBounds().last) ?? 0
            }
        }
        return numbers.isEmpty ? nil : NSPersistentHistoryToken(transactionNumbers: numbers)
    }

    /// Runs a history fetch or delete on every affected store that tracks history.
    func execute(_ request: NSPersistentHistoryChangeRequest) throws -> NSPersistentHistoryResult {
        let stores = try performAndWait { () throws -> [(NSPersistentStore, any PersistentStoreBackend)] in
            let stores = (request.affectedStores ?? persistentStores).compactMap { store in
                store.backend.map { (store, $0) }
            }.filter { $0.1.tracksHistory }
            guard !stores.isEmpty else {
                throw CoreDataError.make(
                    NSPersistentStoreOperationError,
                    "No store of this coordinator tracks persistent history: add the store with the option NSPersistentHistoryTrackingKey set to true"
                )
            }
            return stores
        }
        if request.boundary.deletes {
            var deleted = 0
            for (store, backend) in stores {
                deleted += try performAndWait { try backend.deleteHistory(in: range(of: request.boundary, in: store)) }
            }
            return NSPersistentHistoryResult(
                resultType: request.resultType, result: request.resultType == .count ? deleted : true)
        }
        let filter = try HistoryFilter(request.fetchRequest)
        let needsChanges =
            filter.onChanges
            || [.objectIDs, .count, .changesOnly, .transactionsAndChanges].contains(request.resultType)
        var transactions: [NSPersistentHistoryTransaction] = []
        for (store, backend) in stores {
            transactions += try performAndWait {
                let range = range(of: request.boundary, in: store)
                try checkNotExpired(range, request.boundary, backend, store)
                return try backend.historyTransactions(in: range, withChanges: needsChanges)
            }
        }
        if stores.count > 1 { transactions.sort { $0.timestamp < $1.timestamp } }
        transactions = filter.apply(to: transactions)
        let changes = transactions.flatMap { $0.changes ?? [] }
        let result: Any
        switch request.resultType {
        case .statusOnly: result = true
        case .count: result = changes.count
        case .objectIDs:
            var seen = Set<NSManagedObjectID>()
            result = changes.map(\.changedObjectID).filter { seen.insert($0).inserted }
        case .changesOnly: result = changes
        case .transactionsOnly:
            for transaction in transactions { transaction.changes = nil }
            result = transactions
        case .transactionsAndChanges: result = transactions
        }
        return NSPersistentHistoryResult(resultType: request.resultType, result: result)
    }

    /// The transactions of `store` that a request's boundary selects.
    private func range(
        of boundary: NSPersistentHistoryChangeRequest.Boundary, in store: NSPersistentStore
    ) -> StoreHistoryRange {
        // A transaction of another store bounds nothing here.
        func number(_ transaction: NSPersistentHistoryTransaction) -> Int64? {
            transaction.storeID == store.identifier ? transaction.transactionNumber : nil
        }
        switch boundary {
        case .everything, .afterToken(nil), .afterTransaction(nil), .throughToken(nil), .beforeTransaction(nil):
            return .all
        // A token that does not cover this store (a transaction's token names its own store
        // only) asks for all of its history, which no deletion can have made incomplete.
        case let .afterToken(token?):
            return token.transactionNumbers[store.identifier].map(StoreHistoryRange.afterNumber) ?? .all
        case let .afterTransaction(transaction?): return number(transaction).map(StoreHistoryRange.afterNumber) ?? .all
        case let .afterDate(date): return .afterDate(date)
        case let .throughToken(token?): return .throughNumber(token.transactionNumber(inStore: store.identifier))
        case let .beforeTransaction(transaction?):
            return number(transaction).map(StoreHistoryRange.beforeNumber) ?? .beforeNumber(0)
        case let .beforeDate(date): return .beforeDate(date)
        }
    }

    /// Throws `NSPersistentHistoryTokenExpiredError` when history right after the
    /// request's token or transaction was deleted: its reader would miss changes silently.
    private func checkNotExpired(
        _ range: StoreHistoryRange, _ boundary: NSPersistentHistoryChangeRequest.Boundary,
        _ backend: any PersistentStoreBackend, _ store: NSPersistentStore
    ) throws {
        guard case let .afterNumber(number) = range else { return }
        let deletedThrough = try backend.historyBounds().deletedThrough
        guard number < deletedThrough else { return }
        throw CoreDataError.make(
            NSPersistentHistoryTokenExpiredError,
            "The persistent history after transaction \(number) of store \(store.identifier ?? "?") was deleted (through transaction \(deletedThrough)); fetch from the current token instead, and refresh or reset the contexts that relied on it",
            [NSAffectedStoresErrorKey: [store]])
    }
}

/// The part of a history fetch that a fetch request on the transaction or change
/// entity selects: its predicate, and its limit and offset on that entity.
private struct HistoryFilter {
    let request: NSFetchRequest<NSFetchRequestResult>?
    let onChanges: Bool

    init(_ request: NSFetchRequest<NSFetchRequestResult>?) throws {
        self.request = request
        switch request?.entityName ?? request?.entity?.name {
        case nil:
            onChanges = false
        case PersistentHistoryEntities.transaction.name:
            onChanges = false
        case PersistentHistoryEntities.change.name:
            onChanges = true
        case let other?:
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "A history request's fetchRequest must fetch NSPersistentHistoryTransaction.entityDescription or NSPersistentHistoryChange.entityDescription, not '\(other)'"
            )
        }
    }

    func apply(to transactions: [NSPersistentHistoryTransaction]) -> [NSPersistentHistoryTransaction] {
        guard let request else { return transactions }
        if !onChanges {
            return window(transactions.filter { request.predicate?.evaluate(with: $0) ?? true })
        }
        let kept = Set(
            window(transactions.flatMap { $0.changes ?? [] }.filter { request.predicate?.evaluate(with: $0) ?? true })
                .map(ObjectIdentifier.init))
        return transactions.filter { transaction in
            transaction.changes = transaction.changes?.filter { kept.contains(ObjectIdentifier($0)) }
            return transaction.changes?.isEmpty == false
        }
    }

    /// The request's offset and limit applied to `items`.
    private func window<T>(_ items: [T]) -> [T] {
        guard let request else { return items }
        let start = min(max(request.fetchOffset, 0), items.count)
        let end = request.fetchLimit > 0 ? min(items.count, start + request.fetchLimit) : items.count
        return Array(items[start..<end])
    }
}

extension NSPersistentStoreCoordinator {
    /// Posts `NSPersistentStoreRemoteChange` for `store` with its UUID, URL and, when it
    /// tracks history, the token of the last transaction heard of (`lastTransaction`, when
    /// the engine heard it) or else its current history token.
    func postRemoteChange(of store: NSPersistentStore, lastTransaction: Int64?) {
        // The watcher reports from its own queue; the store list changes under the lock.
        guard performAndWait({ persistentStores.contains(where: { $0 === store }) }) else { return }
        var info: [AnyHashable: Any] = [NSStoreUUIDKey: store.identifier as Any]
        if let url = store.url { info[NSPersistentStoreURLKey] = url }
        if let lastTransaction, store.backend?.tracksHistory == true {
            info[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(
                transactionNumbers: [store.identifier: lastTransaction])
        } else if let token = currentPersistentHistoryToken(fromStores: [store]) {
            info[NSPersistentHistoryTokenKey] = token
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: self, userInfo: info)
    }
}
