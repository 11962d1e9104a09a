/// A store frozen at one moment for a query generation: for SQLite a read transaction
/// held open on a connection of its own (WAL keeps the pages it sees); for a server
/// database a REPEATABLE READ transaction.
///
/// Used under the coordinator's lock; closed by the generation that owns it, on
/// whatever thread lets the generation go.
package protocol StoreSnapshot: AnyObject, Sendable {
    /// Ends the snapshot and releases its connection; reads at it fail afterwards.
    func close()
}

extension PersistentStoreBackend {
    /// Runs `body` with the engine's current snapshot (`slot`) set to `snapshot`, which must
    /// be one of its own (`S`, taken by this store as `owner` says): the engine's reads meanwhile
    /// see the snapshot's moment. Restores the slot afterwards, so snapshot reads nest.
    package func reading<S: StoreSnapshot, T>(
        at snapshot: any StoreSnapshot, as type: S.Type, owner: (S) -> AnyObject?,
        slot: ReferenceWritableKeyPath<Self, S?>, _ body: () throws -> T
    ) throws -> T {
        guard let snapshot = snapshot as? S, owner(snapshot) === self else {
            throw CoreDataError.make(
                NSPersistentStoreOperationError,
                "A query generation's snapshot was used with a store that did not take it")
        }
        let outer = self[keyPath: slot]
        self[keyPath: slot] = snapshot
        defer { self[keyPath: slot] = outer }
        return try body()
    }
}
