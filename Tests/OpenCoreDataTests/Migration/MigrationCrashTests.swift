import Foundation
import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import StoreWorkerSupport
import OpenCoreDataTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A migration killed with SIGKILL at any moment: the store is then either the old
/// version, whole, which migrates at the next open, or the new one, whole; never a mix.
///
/// The migrating process is `opencoredata-store-worker migrate` (Tests/StoreWorker),
/// opening a large version 1 journal store with version 2 of `Fixtures/Journal.xcdatamodeld`.
@Suite(.serialized) struct MigrationCrashTests {
    static let extraEntries = 100_000

    private func version(_ name: String) throws -> URL {
        try ModelFixtures.url("Journal.xcdatamodeld/\(name).xcdatamodel")
    }

    /// A version 1 store with a few objects made through a context, then many entries
    /// added with SQL (as fast as SQLite goes), so a migration takes long enough to be
    /// interrupted at many points.
    private func makeLargeVersion1Store() throws -> (url: URL, entries: Int) {
        let url = temporaryStoreURL("Journal")
        let context = try makeContext(try NSManagedObjectModel.load(contentsOf: try version("Journal")), url: url)
        try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Ada", forKey: "name")
            let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
            place.setValue("Oslo", forKey: "name")
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            for index in 0..<5 {
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue("entry \(index)", forKey: "title")
                entry.setValue("body \(index)", forKey: "body")
                entry.setValue(author, forKey: "author")
                entry.setValue(place, forKey: "location")
                entry.setValue(Set([tag]), forKey: "tags")
            }
            try context.save()
        }
        try context.persistentStoreCoordinator?.persistentStores.forEach {
            try context.persistentStoreCoordinator?.remove($0)
        }
        let database = try DatabaseQueue(path: url.path)
        defer { try? database.close() }
        try database.write { db in
            let entity = try Int.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Entry'") ?? 0
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.extraEntries))
                    INSERT INTO ZENTRY (Z_PK, Z_ENT, Z_OPT, ZAUTHOR, ZLOCATION, ZBODY, ZTITLE)
                    SELECT i + 100, \(entity), 1, (SELECT Z_PK FROM ZAUTHOR), (SELECT Z_PK FROM ZPLACE), 'body ' || i, 'entry ' || i FROM n
                    """)
            try db.execute(
                sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM ZENTRY) WHERE Z_ENT = ?",
                arguments: [entity])
        }
        return (url, Self.extraEntries + 5)
    }

    private enum Outcome: Equatable { case old, migrated }

    /// Which whole version the store holds; any mix (half-copied tables, tables set
    /// aside, metadata of one version over tables of the other) fails the test.
    private func outcome(of url: URL, entries: Int) throws -> Outcome? {
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        let old = try NSManagedObjectModel.load(contentsOf: try version("Journal")).isConfiguration(
            withName: nil, compatibleWithStoreMetadata: metadata)
        let new = try NSManagedObjectModel.load(contentsOf: try version("Journal 2")).isConfiguration(
            withName: nil, compatibleWithStoreMetadata: metadata)
        let database = try DatabaseQueue(path: url.path)
        defer { try? database.close() }
        return try database.read { db -> Outcome? in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            #expect(
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'OCDMIG%'") == 0,
                "no table left aside")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZENTRY") == entries)
            if old, try db.tableExists("ZAUTHOR"), try !db.tableExists("ZWRITER") {
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZENTRY WHERE ZBODY IS NULL") == 0)
                return .old
            }
            if new, try db.tableExists("ZWRITER"), try !db.tableExists("ZAUTHOR") {
                #expect(
                    try Int.fetchOne(
                        db,
                        sql: "SELECT COUNT(*) FROM ZENTRY WHERE ZTEXT IS NULL OR ZWORDCOUNT IS NULL OR ZWRITER IS NULL")
                        == 0)
                return .migrated
            }
            return nil
        }
    }

    private func launchMigration(of store: URL) throws -> Process {
        let process = Process()
        process.executableURL = MultiProcessTests.worker
        process.arguments = ["migrate", store.path, try version("Journal 2").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func aMigrationKilledAtAnyMomentLeavesTheOldStoreOrTheNewOne() throws {
        let (original, entries) = try makeLargeVersion1Store()
        func freshCopy() throws -> URL {
            let copy = temporaryStoreURL("Journal")
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: original, to: copy)
            return copy
        }
        // How long a whole run takes (process start, open, migration), to spread the kills over it.
        let timed = try freshCopy()
        let start = Date()
        let complete = try launchMigration(of: timed)
        complete.waitUntilExit()
        let duration = Date().timeIntervalSince(start)
        #expect(complete.terminationStatus == 0)
        #expect(try outcome(of: timed, entries: entries) == .migrated)

        var random = SplitMix64(seed: 0x3161)
        var outcomes: [Outcome] = []
        for _ in 0..<24 {
            let store = try freshCopy()
            let process = try launchMigration(of: store)
            usleep(UInt32(Double(random.below(1_000)) / 1_000 * duration * 1.2 * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let result = try outcome(of: store, entries: entries)
            #expect(result != nil, "the store is neither version whole")
            if let result { outcomes.append(result) }
            // The next open migrates the old store, or opens the migrated one, with everything.
            let coordinator = NSPersistentStoreCoordinator(
                managedObjectModel: try NSManagedObjectModel.load(contentsOf: try version("Journal 2")))
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: store,
                options: [
                    NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                ])
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            #expect(
                try context.performAndWait {
                    try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Entry"))
                } == entries)
            try coordinator.persistentStores.forEach { try coordinator.remove($0) }
            try SQLiteStore.destroyFiles(at: store)
        }
        #expect(outcomes.count == 24)
        print(
            "migration crash test: a whole run took \(String(format: "%.2f", duration)) s; kills left \(outcomes.filter { $0 == .old }.count) old and \(outcomes.filter { $0 == .migrated }.count) migrated stores"
        )
    }
}
