import OpenCoreDataCore

/// What one batch request needs of its engine besides SQL: where new rows' keys come
/// from, how values are stored, and which translated statements it can run exactly.
/// ``SQLBatchRequests`` runs the request's algorithm and asks it; an engine makes one per
/// request, so it can keep the request's state (keys handed out, files written).
package protocol SQLBatchEngine: AnyObject {
    /// Whether other writers change the database while a request runs (PostgreSQL's
    /// connections), so the rows a batch update reads must be locked; SQLite's writer holds
    /// the file alone.
    var writersRunAtOnce: Bool { get }

    /// Whether values of external-storage attributes may live in files beside the store,
    /// named by their columns (SQLite), so that replaced and deleted ones must be found.
    var usesExternalFiles: Bool { get }

    /// A value as its column stores it.
    func encode(_ value: Any?, _ attribute: NSAttributeDescription) throws -> SQLScalar

    /// Notes the files named by a row of external-storage columns, to remove once the
    /// request commits.
    func collectObsolete(_ row: any SQLDatabaseRow)

    /// The key of a new row of `entity`; `remaining` rows, this one included, may still
    /// want one of the same table (an engine handing out keys in blocks reserves that many).
    func nextKey(for entity: NSEntityDescription, remaining: Int) throws -> Int64

    /// Records the keys handed out, inside the request's transaction.
    func finishKeys() throws

    /// Throws when the engine cannot run `statement`, made from the request's predicate,
    /// with the results memory would give (PostgreSQL cannot call Swift's folding).
    func check(_ statement: SQLFragment) throws

    /// Called before a batch insert matches its rows against stored ones on uniqueness
    /// constraints: an engine whose writers can check at once serializes them here.
    func willMatchUniqueValues() throws
}
