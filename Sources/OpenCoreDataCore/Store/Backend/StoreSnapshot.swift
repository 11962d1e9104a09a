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
