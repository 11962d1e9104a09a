import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataStoreTestSupport
import OpenCoreDataTestSupport
import Synchronization
import Testing

/// Lightweight migration on PostgreSQL: the store-level suite SQLite runs, then what only a
/// shared database brings: servers opening the store at once (one migrates, the others
/// find it migrated), and the transactional DDL that leaves a failed migration no trace.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct PostgreSQLMigrationTests {
    static let engine = StoreUnderTest(type: NSPostgreSQLStoreType) { _ in try PostgreSQLTestServer.makeDatabase() }

    @Test(arguments: MigrationBehaviour.allCases)
    func onPostgreSQL(_ behaviour: MigrationBehaviour) throws {
        try behaviour.run(on: Self.engine)
    }

    /// The tables of the store's schema, sorted.
    private func tables(_ url: URL) throws -> [String] {
        let result = try PostgreSQLConnection(url: url).execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
        return (0..<result.rowCount).compactMap { result.text($0, 0) }
    }

    @Test func aFailedMigrationLeavesNoTableBehind() throws {
        let url = try Self.engine.location()
        let old = try Self.engine.context(url, model: MigrationBehaviour.library(), options: [:])
        try old.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Author", into: old).setValue("Colette", forKey: "name")
            try old.save()
        }
        let before = try tables(url)
        #expect(throws: NSError.self) {
            _ = try Self.engine.context(
                url, model: MigrationBehaviour.library([.bornRequired, .nicknameAndShelf]),
                options: MigrationBehaviour.migrating)
        }
        #expect(try tables(url) == before)
        #expect(!before.contains("zshelf"))
    }

    /// A source table that lacks a column of the model its metadata names (altered by hand)
    /// is refused before anything moves, naming the column, not halfway with a SQL error.
    @Test func aSourceTableMissingAColumnIsRefusedByName() throws {
        let url = try Self.engine.location()
        _ = try Self.engine.context(url, model: MigrationBehaviour.library(), options: [:])
        try PostgreSQLConnection(url: url).execute("ALTER TABLE ZAUTHOR DROP COLUMN ZNAME")
        let before = try tables(url)
        let error = try #require(throws: NSError.self) {
            _ = try Self.engine.context(
                url, model: MigrationBehaviour.library([.nicknameAndShelf]), options: MigrationBehaviour.migrating)
        }
        #expect(error.code == NSMigrationError)
        #expect(
            error.localizedDescription.contains("ZAUTHOR lacks the column(s) ZNAME"), "\(error.localizedDescription)")
        #expect(try tables(url) == before)
    }

    /// A table whose set-aside name would pass PostgreSQL's 63 bytes is refused by name,
    /// not cut into another table's name.
    @Test func aTableNameTooLongToSetAsideIsRefusedByName() throws {
        let name = "Observation" + String(repeating: "Detail", count: 8)
        func model(extra: Bool) -> NSManagedObjectModel {
            let entity = ModelBuilder.entity(name, className: "NSManagedObject")
            entity.properties =
                [ModelBuilder.attribute("value", .doubleAttributeType)]
                + (extra ? [ModelBuilder.attribute("unit", .stringAttributeType)] : [])
            return ModelBuilder.model(entity)
        }
        let url = try Self.engine.location()
        _ = try Self.engine.context(url, model: model(extra: false), options: [:])
        let error = try #require(throws: NSError.self) {
            _ = try Self.engine.context(url, model: model(extra: true), options: MigrationBehaviour.migrating)
        }
        #expect(error.code == NSMigrationError)
        #expect(error.localizedDescription.contains("too long"), "\(error.localizedDescription)")
    }

    @Test func serversOpeningTogetherMigrateOnce() throws {
        let url = try Self.engine.location()
        let old = try Self.engine.context(url, model: MigrationBehaviour.library(), options: [:])
        try old.performAndWait {
            for name in ["Zola", "Colette", "Proust"] {
                NSEntityDescription.insertNewObject(forEntityName: "Author", into: old).setValue(name, forKey: "name")
            }
            try old.save()
        }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            do {
                let context = try Self.engine.context(
                    url, model: MigrationBehaviour.library([.nicknameAndShelf]), options: MigrationBehaviour.migrating)
                let count = try context.performAndWait {
                    try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author"))
                }
                if count != 3 { failures.withLock { $0.append("counted \(count)") } }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(try tables(url).contains("zshelf"))
        #expect(!(try tables(url)).contains { $0.hasPrefix("ocdmig_") })
    }

    /// During a rolling deploy an old server opens the store the new ones migrated: it is
    /// refused, not migrated back (which would drop every nickname); on purpose, with
    /// `NSPostgreSQLAllowsMigratingBackOption`, it goes back, and forward again after.
    @Test func aServerWithTheModelTheStoreLeftIsRefusedUnlessItMayMigrateBack() throws {
        let url = try Self.engine.location()
        let old = MigrationBehaviour.library()
        let new = MigrationBehaviour.library([.nicknameAndShelf])
        _ = try Self.engine.context(url, model: old, options: [:])
        let updated = try Self.engine.context(url, model: new, options: MigrationBehaviour.migrating)
        try updated.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: updated)
            author.setValue("Colette", forKey: "name")
            author.setValue("Sidonie", forKey: "nickname")
            try updated.save()
        }
        let error = try #require(throws: NSError.self) {
            _ = try Self.engine.context(url, model: old, options: MigrationBehaviour.migrating)
        }
        #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error.localizedDescription.contains("NSPostgreSQLAllowsMigratingBackOption"))
        func nicknames() throws -> [String] {
            let reader = try Self.engine.context(url, model: new, options: MigrationBehaviour.migrating)
            return try reader.performAndWait {
                try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).compactMap {
                    $0.value(forKey: "nickname") as? String
                }
            }
        }
        #expect(try nicknames() == ["Sidonie"])

        var back = MigrationBehaviour.migrating
        back[NSPostgreSQLAllowsMigratingBackOption] = true as NSNumber
        let oldAgain = try Self.engine.context(url, model: old, options: back)
        #expect(
            try oldAgain.performAndWait {
                try oldAgain.count(for: NSFetchRequest<NSManagedObject>(entityName: "Author"))
            } == 1)
        // Migrated back on purpose, the store forgot the newer version: it may go forward again.
        #expect(try nicknames() == ["none"])
    }
}
