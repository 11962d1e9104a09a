/// The backend of a store an app's subclass implements (``NSAtomicStore``,
/// ``NSIncrementalStore``): what such stores lack, as on Apple platforms, answered once.
/// Batch requests are refused; there is no persistent history, no change watching and no
/// query generation snapshot.
protocol SubclassStoreBackend: PersistentStoreBackend {
    /// The store the subclass implements, for errors.
    var subclassStore: NSPersistentStore { get }
}

extension SubclassStoreBackend {
    func batchInsert(_ request: StoreBatchInsert) throws -> StoreBatchOutcome {
        throw unsupportedBatch("NSBatchInsertRequest")
    }
    func batchUpdate(_ request: StoreBatchUpdate) throws -> StoreBatchOutcome {
        throw unsupportedBatch("NSBatchUpdateRequest")
    }
    func batchDelete(_ request: StoreBatchDelete) throws -> StoreBatchOutcome {
        throw unsupportedBatch("NSBatchDeleteRequest")
    }

    /// Batch requests run in SQLite (and PostgreSQL) stores only, as in Core Data.
    private func unsupportedBatch(_ name: String) -> NSError {
        let store = subclassStore
        return CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError,
            "\(name) runs only on SQLite and PostgreSQL stores, not on the \(store.type) store at \(store.url?.absoluteString ?? "?")",
            [NSAffectedStoresErrorKey: [store]])
    }

    var tracksHistory: Bool { false }
    func historyTransactions(in range: StoreHistoryRange, withChanges: Bool) throws -> [NSPersistentHistoryTransaction]
    { [] }
    func deleteHistory(in range: StoreHistoryRange) throws -> Int { 0 }
    func historyBounds() throws -> (last: Int64, deletedThrough: Int64) { (0, 0) }
    func observeChanges(_ changed: @escaping @Sendable (_ lastTransaction: Int64?) -> Void) throws {}
    func supportsSnapshots() throws -> Bool { false }
    func openSnapshot() throws -> (any StoreSnapshot)? { nil }
    func reading<T>(at snapshot: any StoreSnapshot, _ body: () throws -> T) throws -> T { try body() }
    func serve(as store: NSPersistentStore) {}
}

/// Values a store's subclass hands over (atomic store cache nodes, incremental store
/// nodes), in the form rows keep them.
enum SubclassStoreValues {
    /// `value` as `attribute` stores it (an undefined attribute keeps any value); throws
    /// naming `holder` ("The cache node of …") when the value does not fit the type.
    static func stored(
        _ value: Any, for attribute: NSAttributeDescription, heldBy holder: @autoclosure () -> String
    )
        throws -> Any
    {
        if attribute.attributeType == .undefinedAttributeType { return value }
        guard let stored = AttributeValue.coerce(value, to: attribute) else {
            throw CoreDataError.make(
                NSManagedObjectValidationError,
                "\(holder()) holds a \(type(of: value)) for the \(attribute.attributeType.displayName) attribute '\(attribute.name)'",
                [NSValidationKeyErrorKey: attribute.name])
        }
        return stored
    }
}
