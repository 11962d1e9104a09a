import Foundation
import OpenCoreDataCore
import OpenCoreDataSQL

/// Batch requests on the PostgreSQL store: each runs in one transaction with the
/// engine-neutral algorithm of ``SQLBatchRequests`` (temporary tables in `pg_temp`), and
/// notifies the store's listeners when it commits, as a save does.
extension PostgreSQLStore: SQLBatchRunning {
    /// Runs `body` in one transaction, retried whole after a connection lost before its commit.
    func runBatch(
        _ body: (SQLBatchRequests<PostgreSQLDatabaseAdapter, PostgreSQLBatchEngine>) throws -> StoreBatchOutcome
    ) throws -> StoreBatchOutcome {
        guard let store else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store was removed from its coordinator")
        }
        return try writing {
            let database = PostgreSQLDatabaseAdapter(connection: connection)
            let outcome = try body(
                SQLBatchRequests(
                    db: database, schema: schema, history: history, store: store,
                    engine: PostgreSQLBatchEngine(store: self)))
            let transaction = try history.map { _ in try SQLHistory.lastTransactionNumber(database) }
            try connection.notify(channel: changeChannel, payload: transaction.map(String.init) ?? "")
            return outcome
        }
    }
}

/// The PostgreSQL engine's side of one batch request: keys from the tables' sequences,
/// reserved as many at a time as the request may still need; every value in its row.
final class PostgreSQLBatchEngine: SQLBatchEngine {
    private let store: PostgreSQLStore
    /// Keys reserved and not yet handed out, by table.
    private var reserved: [String: ArraySlice<Int64>] = [:]

    init(store: PostgreSQLStore) { self.store = store }

    var writersRunAtOnce: Bool { true }

    var usesExternalFiles: Bool { false }

    func encode(_ value: Any?, _ attribute: NSAttributeDescription) throws -> SQLScalar {
        try SQLValueCoding.scalar(value, type: attribute.attributeType, transformerName: attribute.valueTransformerName)
    }

    func collectObsolete(_ row: any SQLDatabaseRow) {}

    func nextKey(for entity: NSEntityDescription, remaining: Int) throws -> Int64 {
        let table = try store.schema.table(for: entity).name
        if reserved[table, default: []].isEmpty {
            let result = try store.connection.run(PostgreSQLStatements.nextKeys(of: table, count: max(remaining, 1)))
            reserved[table] = ArraySlice((0..<result.rowCount).compactMap { result.integer($0, 0) })
        }
        guard let key = reserved[table]?.popFirst() else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The key sequence of \(table) gave no key")
        }
        return key
    }

    /// Sequences keep their own count.
    func finishKeys() throws {}

    func check(_ statement: SQLFragment) throws {
        guard let feature = PostgreSQLTranslationCheck.feature(neededBy: statement) else { return }
        // A batch request changes rows without loading them, so nothing can be evaluated in memory.
        throw CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError,
            "A batch request on the PostgreSQL store cannot use \(feature): PostgreSQL cannot evaluate it as Core Data does. Fetch the objects and change them in a context instead"
        )
    }

    /// Writers on other connections could check at once: they take turns on the store's lock.
    func willMatchUniqueValues() throws {
        try store.connection.run(PostgreSQLStatements.lockStore)
    }
}
