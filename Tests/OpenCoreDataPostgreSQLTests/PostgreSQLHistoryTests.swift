import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataStoreTestSupport
import OpenCoreDataTestSupport
import Testing

/// Persistent history on PostgreSQL: the store-level suite SQLite runs, then what only
/// many writers on one database bring: transaction numbers in commit order, and remote
/// change notifications that carry the history position and catch up after a lost
/// connection.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct PostgreSQLHistoryTests {
    static let engine = StoreUnderTest(type: NSPostgreSQLStoreType) { _ in try PostgreSQLTestServer.makeDatabase() }

    @Test(arguments: PersistentHistoryBehaviour.allCases)
    func onPostgreSQL(_ behaviour: PersistentHistoryBehaviour) throws {
        try behaviour.run(on: Self.engine)
    }

    private func context(
        _ url: URL, options: [AnyHashable: Any] = PersistentHistoryBehaviour.tracking
    ) throws
        -> NSManagedObjectContext
    {
        try Self.engine.context(url, model: PersistentHistoryBehaviour.model(), options: options)
    }

    private func save(_ name: String, in context: NSManagedObjectContext) throws {
        try context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue(name, forKey: "name")
            try context.save()
        }
    }

    private func transactions(
        after token: NSPersistentHistoryToken?, in context: NSManagedObjectContext
    ) throws -> [NSPersistentHistoryTransaction] {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
        return try context.performAndWait {
            try #require(
                (context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
        }
    }

    /// A save numbering its history waits for a save that numbered before it to commit, so
    /// a reader that read through a number never meets a smaller one later.
    @Test func transactionsAreNumberedInCommitOrder() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let context = try context(url)
        try save("first", in: context)
        let admin = try PostgreSQLConnection(url: url)
        // Another writer took the next number and has not committed yet.
        try admin.execute("BEGIN")
        let taken = try #require(
            try admin.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 16002 RETURNING Z_MAX")
                .integer(0, 0))
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: (any Error)?
        context.perform {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("second", forKey: "name")
            do { try context.save() } catch { failure = error }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 0.5) == .timedOut)
        try admin.execute(
            "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZTIMESTAMP) VALUES ($1, 16002, 0)", [.integer(taken)])
        try admin.execute("COMMIT")
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(failure == nil)
        let numbers = try transactions(after: nil, in: context).map(\.transactionNumber)
        #expect(numbers == [taken - 1, taken, taken + 1])
    }

    /// A remote change names the transaction it was about; after a lost connection the
    /// listener reports once it is back, and history after the last token read has what
    /// was saved meanwhile.
    @Test func remoteChangesCarryTheirTokenAndCatchUpAfterALostConnection() throws {
        let url = try PostgreSQLTestServer.makeDatabase()
        let writer = try context(url)
        var options = PersistentHistoryBehaviour.tracking
        options[NSPersistentStoreRemoteChangeNotificationPostOptionKey] = true as NSNumber
        let watcher = try context(url, options: options)
        let coordinator = try #require(watcher.persistentStoreCoordinator)
        let heard = NSCondition()
        nonisolated(unsafe) var tokens: [NSPersistentHistoryToken?] = []
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
        ) { note in
            heard.withLock {
                tokens.append(note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
                heard.broadcast()
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        func waitForToken(of transaction: NSPersistentHistoryTransaction) -> Bool {
            heard.withLock {
                let deadline = Date(timeIntervalSinceNow: 10)
                while !tokens.contains(where: { $0 == transaction.token }) {
                    if !heard.wait(until: deadline) { return false }
                }
                return true
            }
        }

        try save("one", in: writer)
        let first = try #require(try transactions(after: nil, in: watcher).last)
        #expect(waitForToken(of: first))
        let lastRead = try #require(coordinator.currentPersistentHistoryToken(fromStores: nil))
        #expect(lastRead == first.token)

        // Every session but the test's own ends, the listener's among them, as in a server restart.
        let admin = try PostgreSQLConnection(url: url)
        try admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        try save("two", in: writer)
        try save("three", in: writer)
        let missed = try transactions(after: lastRead, in: watcher)
        #expect(missed.count == 2)
        let latest = try #require(missed.last)
        // Heard through the payload, or from the store once the listener is back: the latest token arrives.
        #expect(waitForToken(of: latest))
        let names = missed.flatMap { $0.changes ?? [] }.compactMap { $0.changedObjectID.entity.name }
        #expect(names == ["Item", "Item"])
    }
}
