import OpenCoreDataCore
import OpenCoreDataSQL
internal import GRDB
internal import Synchronization

/// Which SQL a store runs: Core Data's `-com.apple.CoreData.SQLDebug 1`, per store.
///
/// Set `OPENCOREDATA_SQL_DEBUG=1` to print every statement (with its arguments) to
/// standard error. Tests attach an observer to one store to check which queries a
/// fault, a fetch or a save issues; being per store, parallel tests don't see each
/// other's statements. Tracing is only installed when one of the two is wanted, so
/// a store that nobody watches pays nothing per statement.
final class SQLStatementLog: Sendable {
    private let observers = Mutex<[Int: @Sendable (String) -> Void]>([:])
    private let nextToken = Atomic<Int>(0)

    /// Installs the trace on a connection (from `prepareDatabase`) when printing is on, or
    /// when observers already watch the store (a query generation's connection opens late).
    func prepare(_ db: Database) {
        if StoreDebugLog.printsStatements || observers.withLock({ !$0.isEmpty }) { install(on: db) }
    }

    /// Starts reporting every statement (without arguments) to `observer`, installing
    /// the trace on the store's open connections; returns a token for `removeObserver`.
    /// `databases` is asked after the observer is registered: a connection opened from then
    /// on installs the trace itself (`prepare`), so none is missed in between.
    func addObserver(
        _ observer: @escaping @Sendable (String) -> Void, installingOn databases: () -> [DatabaseQueue]
    ) -> Int {
        let token = nextToken.add(1, ordering: .relaxed).newValue
        observers.withLock { $0[token] = observer }
        if !StoreDebugLog.printsStatements {
            for database in databases() { database.inDatabase { install(on: $0) } }
        }
        return token
    }

    func removeObserver(_ token: Int) {
        observers.withLock { $0[token] = nil }
    }

    private func install(on db: Database) {
        db.trace(options: .statement) { [self] event in
            guard case let .statement(statement) = event else { return }
            let sql = statement.sql
            for observer in observers.withLock({ Array($0.values) }) { observer(sql) }
            if StoreDebugLog.printsStatements {
                FileHandle.standardError.write(Data("OpenCoreData: sql: \(statement.expandedSQL)\n".utf8))
            }
        }
    }
}
