import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataStoreTestSupport
import OpenCoreDataTestSupport
import Testing

/// Query generations on PostgreSQL: a context pinned to a generation reads the database as
/// its first read found it (a `REPEATABLE READ` transaction on a connection of its own),
/// whatever other servers commit, until it lets go; a snapshot lost with its connection
/// fails clearly rather than read newer data.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct PostgreSQLQueryGenerationTests {
    static let engine = StoreUnderTest(type: NSPostgreSQLStoreType) { _ in try PostgreSQLTestServer.makeDatabase() }

    private func context(_ url: URL) throws -> NSManagedObjectContext {
        try Self.engine.context(url, model: FetchBehaviour.model(), options: nil)
    }

    private func cityNames(_ context: NSManagedObjectContext) throws -> [String] {
        try context.fetchAll("City", sortedBy: "name").compactMap { $0.value(forKey: "name") as? String }
    }

    private func addCity(_ name: String, to context: NSManagedObjectContext) throws {
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "City", into: context).setValue(name, forKey: "name")
            try context.save()
        }
    }

    /// A store holding Lyon, a writer on it, and a reader pinned to that moment (taken by a first read).
    private func pinnedReaderOfLyon() throws -> (writer: NSManagedObjectContext, reader: NSManagedObjectContext) {
        let url = try Self.engine.location()
        let writer = try context(url)
        try addCity("Lyon", to: writer)
        let reader = try context(url)
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            #expect(try cityNames(reader) == ["Lyon"])
        }
        return (writer, reader)
    }

    @Test func aPinnedContextReadsItsMomentWhateverOthersCommit() throws {
        let (writer, reader) = try pinnedReaderOfLyon()
        try addCity("Brest", to: writer)
        try writer.performAndWait {
            let lyon = try #require(try writer.fetchAll("City", sortedBy: "name").last)
            lyon.setValue("Lyons", forKey: "name")
            try writer.save()
        }
        try reader.performAndWait {
            reader.refreshAllObjects()
            #expect(try cityNames(reader) == ["Lyon"])
            #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "City")) == 1)
            let names = NSFetchRequest<NSDictionary>(entityName: "City")
            names.resultType = .dictionaryResultType
            names.propertiesToFetch = ["name"]
            #expect(try reader.fetch(names).compactMap { $0["name"] as? String } == ["Lyon"])
            // Letting go: the latest state.
            try reader.setQueryGenerationFrom(nil)
            reader.refreshAllObjects()
            #expect(try cityNames(reader) == ["Brest", "Lyons"])
        }
        // Another context of the same coordinator was never pinned.
        let sibling = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        sibling.persistentStoreCoordinator = reader.persistentStoreCoordinator
        #expect(try sibling.performAndWait { try cityNames(sibling) } == ["Brest", "Lyons"])
    }

    @Test func aSnapshotLostWithItsConnectionFailsClearly() throws {
        let (writer, reader) = try pinnedReaderOfLyon()
        let admin = try PostgreSQLConnection(
            url: try #require(reader.persistentStoreCoordinator?.persistentStores.first?.url))
        try admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        try addCity("Brest", to: writer)
        try reader.performAndWait {
            let error = try #require(throws: NSError.self) { try cityNames(reader) }
            #expect(error.code == NSPersistentStoreOperationError)
            #expect(error.localizedDescription.contains("snapshot"), "\(error.localizedDescription)")
            // A new generation reads again.
            try reader.setQueryGenerationFrom(.current)
            #expect(try cityNames(reader) == ["Brest", "Lyon"])
        }
    }
}
