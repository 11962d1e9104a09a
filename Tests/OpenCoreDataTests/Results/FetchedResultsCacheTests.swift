import Foundation
@testable import OpenCoreDataCore
import Testing

/// The section cache named by `cacheName`: written by a batched fetch, read back by the
/// next launch's fetch of the same request on an unchanged store, computed again when the
/// request or the store changed.
@Suite struct FetchedResultsCacheTests {
    typealias Photos = FetchedResultsControllerTests

    /// A store of 60 photos in 3 groups, closed again, as a previous launch leaves it.
    static func store() throws -> URL {
        let url = temporaryStoreURL("SectionCache")
        let context = try makeContext(Photos.model(), url: url)
        try context.performAndWait {
            for index in 0..<60 { Photos.insert("p\(index)", group: "g\(index % 3)", rank: 60 - index, into: context) }
            try context.save()
        }
        try close(context)
        // A store changed in the last 50 ms is not cached (a change within one tick of the
        // file system's clock could go unseen).
        Thread.sleep(forTimeInterval: 0.1)
        return url
    }

    /// Closes the store of `context` now (not whenever the context is released), as a program
    /// that ends does: its log is checkpointed into the store file and deleted.
    static func close(_ context: NSManagedObjectContext) throws {
        let coordinator = try #require(context.persistentStoreCoordinator)
        try coordinator.persistentStores.forEach { try coordinator.remove($0) }
    }

    /// One launch: a new coordinator on `url` and a batched controller fetched on it.
    final class Launch {
        let context: NSManagedObjectContext
        let controller: NSFetchedResultsController<NSManagedObject>
        let sql: SQLRecorder

        init(
            _ url: URL, cacheName: String?, predicate: OpenCoreDataCore.NSPredicate? = NSPredicate(format: "rank >= 0")
        ) throws {
            context = try makeContext(Photos.model(), url: url)
            controller = FetchedResultsCacheTests.batchedController(
                in: context, cacheName: cacheName, predicate: predicate)
            sql = SQLRecorder(context)
            try context.performAndWait { try controller.performFetch() }
        }

        /// Ends the launch: its store is closed.
        func close() throws { try FetchedResultsCacheTests.close(context) }

        /// Whether the fetch queried the store (a cache that was used does not).
        var queried: Bool { sql.selects.contains { $0.contains("ORDER BY") } }

        /// Section names with their objects' titles.
        var table: [String: [String]] {
            context.performAndWait {
                Dictionary(
                    uniqueKeysWithValues: (controller.sections ?? []).map { section in
                        (
                            section.name,
                            (section.objects ?? []).map { ($0 as! NSManagedObject).value(forKey: "title") as! String }
                        )
                    })
            }
        }
    }

    /// Runs `body` with a store and the name of a cache that a first launch wrote (and that
    /// is deleted afterwards).
    static func withWrittenCache(_ body: (URL, String) throws -> Void) throws {
        let url = try store()
        let name = cacheName()
        defer { NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name) }
        try Launch(url, cacheName: name).close()
        try body(url, name)
    }

    /// Photos in sections by group, fetched 10 at a time.
    static func batchedController(
        in context: NSManagedObjectContext, cacheName: String?,
        predicate: OpenCoreDataCore.NSPredicate? = NSPredicate(format: "rank >= 0")
    ) -> NSFetchedResultsController<NSManagedObject> {
        let request = Photos.request(predicate: predicate)
        request.fetchBatchSize = 10
        return NSFetchedResultsController(
            fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "group", cacheName: cacheName)
    }

    static func cacheName() -> String { "Photos-\(UUID().uuidString)" }

    static func cacheFile(_ name: String) -> URL {
        SectionInfoCache.directory.appendingPathComponent(SectionInfoCache.fileName(name))
    }

    @Test func aSecondLaunchReadsTheCacheInsteadOfQuerying() throws {
        let url = try Self.store()
        let name = Self.cacheName()
        defer { NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name) }
        let first = try Launch(url, cacheName: name)
        #expect(first.queried)
        #expect(FileManager.default.fileExists(atPath: Self.cacheFile(name).path))
        let firstTable = first.table
        try first.close()

        let second = try Launch(url, cacheName: name)
        #expect(!second.queried, "\(second.sql.selects)")
        #expect(second.table == firstTable)
        #expect(second.table["g1"]?.first == "p58", "sorted by rank within the section")
        #expect(second.controller.sections?.map(\.indexTitle) == ["G", "G", "G"])
        let path = IndexPath(row: 4, section: 2)
        try second.context.performAndWait {
            let object = second.controller.object(at: path)
            #expect(second.controller.indexPath(forObject: object) == path)
            #expect(object.value(forKey: "group") as? String == "g2")
            let existing = try second.context.existingObject(with: object.objectID)
            #expect(existing === object)
        }
    }

    @Test func aChangedStoreIsFetchedAgain() throws {
        try Self.withWrittenCache { url, name in
            // Saved by this library in another launch…
            let writer = try makeContext(Photos.model(), url: url)
            try writer.performAndWait {
                Photos.insert("new", group: "g0", rank: -1, into: writer)
                Photos.insert("late", group: "g9", rank: 5, into: writer)
                try writer.save()
            }
            try Self.close(writer)
            let second = try Launch(url, cacheName: name)
            #expect(second.queried)
            #expect(second.table["g9"] == ["late"])
            #expect(second.table["g0"]?.contains("new") == false, "rank -1 does not match the predicate")

            // …and by another program behind its back.
            try alterStore(url, "UPDATE ZPHOTO SET ZGROUP = 'g1' WHERE ZTITLE = 'late'")
            let third = try Launch(url, cacheName: name)
            #expect(third.queried)
            #expect(third.table["g9"] == nil)
            #expect(third.table["g1"]?.contains("late") == true)
        }
    }

    @Test func aChangedRequestIsFetchedAgain() throws {
        try Self.withWrittenCache { url, name in
            let narrower = try Launch(url, cacheName: name, predicate: NSPredicate(format: "rank > 50"))
            #expect(narrower.queried)
            #expect(narrower.table.values.map(\.count).reduce(0, +) == 10)

            // The same controller, its request changed and fetched again.
            try narrower.context.performAndWait {
                narrower.controller.fetchRequest.predicate = NSPredicate(format: "rank > 57")
                try narrower.controller.performFetch()
                #expect(narrower.controller.fetchedObjects?.count == 3)
            }
        }
    }

    @Test func unsavedChangesAreNotHiddenByTheCache() throws {
        try Self.withWrittenCache { url, name in
            let context = try makeContext(Photos.model(), url: url)
            let controller = Self.batchedController(in: context, cacheName: name)
            try context.performAndWait {
                Photos.insert("unsaved", group: "g5", rank: 1, into: context)
                try controller.performFetch()
                #expect(controller.sections?.map(\.name) == ["g0", "g1", "g2", "g5"])
                #expect(controller.fetchedObjects?.count == 61)
            }
        }
    }

    @Test func aDamagedCacheIsComputedAgain() throws {
        let url = try Self.store()
        let name = Self.cacheName()
        defer { NSFetchedResultsController<NSManagedObject>.deleteCache(withName: name) }
        let first = try Launch(url, cacheName: name)
        let table = first.table
        try first.close()
        let file = Self.cacheFile(name)
        let data = try Data(contentsOf: file)
        for damaged in [Data(), data.prefix(data.count - 3), data.prefix(40), Data(repeating: 7, count: data.count)] {
            try damaged.write(to: file)
            let next = try Launch(url, cacheName: name)
            #expect(next.queried)
            #expect(next.table == table)
            try next.close()
        }
        #expect(try Data(contentsOf: file) == data, "written again")
        #expect(!(try Launch(url, cacheName: name).queried), "and used")
    }

    @Test func deleteCacheRemovesOneOrEveryCache() throws {
        let url = try Self.store()
        let (one, other) = (Self.cacheName(), Self.cacheName())
        _ = try Launch(url, cacheName: one)
        _ = try Launch(url, cacheName: other)
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: one)
        #expect(!FileManager.default.fileExists(atPath: Self.cacheFile(one).path))
        #expect(FileManager.default.fileExists(atPath: Self.cacheFile(other).path))
        #expect(try Launch(url, cacheName: one).queried)
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: other)
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: one)
    }

    @Test func namesBecomeSafeFileNames() {
        #expect(SectionInfoCache.fileName("Photos") == "Photos")
        #expect(!SectionInfoCache.fileName("../../etc/passwd").contains("/"))
        #expect(!SectionInfoCache.fileName(".hidden").hasPrefix("."))
        #expect(SectionInfoCache.fileName("a b") != SectionInfoCache.fileName("a_b"))
    }

    @Test func storesThatCannotBeFingerprintedAreNotCached() throws {
        let name = Self.cacheName()
        for url in [URL(fileURLWithPath: "/dev/null"), nil] {
            let context = try makeContext(
                Photos.model(), url: url, type: url == nil ? NSInMemoryStoreType : NSSQLiteStoreType)
            let controller = Self.batchedController(in: context, cacheName: name)
            try context.performAndWait {
                Photos.insert("a", group: "g", rank: 1, into: context)
                try context.save()
                try controller.performFetch()
                #expect(controller.fetchedObjects?.count == 1)
            }
            #expect(!FileManager.default.fileExists(atPath: Self.cacheFile(name).path))
        }
    }
}
