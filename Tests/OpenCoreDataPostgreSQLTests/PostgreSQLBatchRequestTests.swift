import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import OpenCoreDataStoreTestSupport
import OpenCoreDataTestSupport
import Testing

/// Batch requests on PostgreSQL: the store-level suite SQLite runs, then what differs:
/// a predicate PostgreSQL cannot evaluate as memory does is refused (a batch request
/// loads no objects to evaluate it on), and other servers hear of the change.
@Suite(
    .enabled(
        if: PostgreSQLTestServer.testsAreEnabled,
        "PostgreSQL server binaries not found (install postgresql, or set OPENCOREDATA_POSTGRES_URL)"))
struct PostgreSQLBatchRequestTests {
    static let engine = StoreUnderTest(type: NSPostgreSQLStoreType) { _ in try PostgreSQLTestServer.makeDatabase() }

    @Test(arguments: BatchRequestBehaviour.allCases)
    func onPostgreSQL(_ behaviour: BatchRequestBehaviour) throws {
        try behaviour.run(on: Self.engine)
    }

    @Test func aPredicateOnlyMemoryEvaluatesIsRefusedAndNothingChanges() throws {
        let url = try Self.engine.location()
        let context = try Self.engine.context(url, model: BatchRequestBehaviour.model(), options: nil)
        try context.performAndWait {
            for name in ["Rex", "rexa"] {
                let animal = NSEntityDescription.insertNewObject(forEntityName: "Animal", into: context)
                animal.setValue(name, forKey: "name")
            }
            try context.save()
            let update = NSBatchUpdateRequest(entityName: "Animal")
            update.predicate = NSPredicate(format: "name BEGINSWITH[c] %@", "rex")
            update.propertiesToUpdate = ["age": 9]
            let delete = NSBatchDeleteRequest(
                fetchRequest: {
                    let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Animal")
                    fetch.predicate = NSPredicate(format: "name ==[c] %@", "REX")
                    return fetch
                }())
            for request in [update, delete] as [NSPersistentStoreRequest] {
                let error = try #require(throws: NSError.self) { try context.execute(request) }
                #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
                #expect(error.localizedDescription.contains("PostgreSQL cannot evaluate it as Core Data does"))
            }
            context.reset()
            let animals = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
            #expect(animals.count == 2)
            #expect(animals.allSatisfy { $0.value(forKey: "age") as? Int64 == 1 })
        }
    }

    /// A batch update computing from a row another writer is changing waits for that
    /// writer, then computes from what it committed: nothing it wrote is lost.
    @Test func aBatchUpdateComputesFromWhatAConcurrentWriterCommitted() throws {
        let url = try Self.engine.location()
        let context = try Self.engine.context(url, model: BatchRequestBehaviour.model(), options: nil)
        try context.performAndWait {
            let rex = NSEntityDescription.insertNewObject(forEntityName: "Animal", into: context)
            rex.setValue("Rex", forKey: "name")
            rex.setValue(Int64(1), forKey: "age")
            try context.save()
        }
        let admin = try PostgreSQLConnection(url: url)
        try admin.execute("BEGIN")
        try admin.execute("UPDATE ZANIMAL SET ZAGE = ZAGE + 100, Z_OPT = Z_OPT + 1")
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: (any Error)?
        context.perform {
            let update = NSBatchUpdateRequest(entityName: "Animal")
            update.propertiesToUpdate = ["age": NSExpression(format: "age + 1")]
            do { _ = try context.execute(update) } catch { failure = error }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 0.5) == .timedOut)
        try admin.execute("COMMIT")
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(failure == nil)
        #expect(try admin.execute("SELECT ZAGE FROM ZANIMAL").integer(0, 0) == 102)
    }

    /// A batch delete locks every row it gathers before it reads what points at it. A
    /// writer on another server linking a new animal to a shelter being deleted waits for
    /// the delete, then fails on the shelter's deletion, as a save meeting a deleted object
    /// does; without the lock its link would point at a row that is gone. The delete is held
    /// in its middle by a lock on the join row of the animal it cascades to.
    @Test func aSaveLinkingToARowABatchDeleteGatheredWaitsAndMeetsTheDeletion() throws {
        let url = try Self.engine.location()
        let model = BatchRequestBehaviour.model()
        let deleter = try Self.engine.context(url, model: model, options: nil)
        let linker = try Self.engine.context(url, model: model, options: nil)
        try deleter.performAndWait {
            let shelter = NSEntityDescription.insertNewObject(forEntityName: "Shelter", into: deleter)
            shelter.setValue("North", forKey: "name")
            let rex = NSEntityDescription.insertNewObject(forEntityName: "Animal", into: deleter)
            rex.setValue("Rex", forKey: "name")
            rex.setValue(shelter, forKey: "shelter")
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: deleter)
            tag.setValue("calm", forKey: "label")
            rex.setValue(Set([tag]), forKey: "tags")
            try deleter.save()
        }
        let admin = try PostgreSQLConnection(url: url)
        let joinTable = try #require(
            admin.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'z\\_%tags'"
            ).text(0, 0))
        try admin.execute("BEGIN")
        try admin.execute("SELECT * FROM \(joinTable) FOR UPDATE")

        let deleted = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var deleteFailure: (any Error)?
        deleter.perform {
            let request = NSBatchDeleteRequest(
                fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Shelter"))
            do { _ = try deleter.execute(request) } catch { deleteFailure = error }
            deleted.signal()
        }
        #expect(deleted.wait(timeout: .now() + 0.5) == .timedOut, "the delete waits for the join row")
        let linked = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var linkFailure: (any Error)?
        linker.perform {
            do {
                let shelter = try linker.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelter"))[0]
                let bella = NSEntityDescription.insertNewObject(forEntityName: "Animal", into: linker)
                bella.setValue("Bella", forKey: "name")
                bella.setValue(shelter, forKey: "shelter")
                try linker.save()
            } catch {
                linkFailure = error
            }
            linked.signal()
        }
        #expect(linked.wait(timeout: .now() + 0.5) == .timedOut, "the link waits for the delete")
        try admin.execute("COMMIT")
        #expect(deleted.wait(timeout: .now() + 10) == .success)
        #expect(linked.wait(timeout: .now() + 10) == .success)
        #expect(deleteFailure == nil)
        #expect((linkFailure as NSError?)?.code == NSManagedObjectMergeError, "\(String(describing: linkFailure))")
        let dangling = try admin.execute(
            "SELECT count(*) FROM ZANIMAL a WHERE a.ZSHELTER IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ZSHELTER s WHERE s.Z_PK = a.ZSHELTER)"
        ).integer(0, 0)
        #expect(dangling == 0)
        #expect(try admin.execute("SELECT count(*) FROM ZANIMAL").integer(0, 0) == 0)
    }

    @Test func anotherServerHearsABatchChange() throws {
        let url = try Self.engine.location()
        let model = BatchRequestBehaviour.model()
        let writer = try Self.engine.context(url, model: model, options: nil)
        let watcher = try Self.engine.context(
            url, model: model, options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true as NSNumber])
        let heard = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreRemoteChange, object: watcher.persistentStoreCoordinator, queue: nil
        ) { _ in heard.signal() }
        defer { NotificationCenter.default.removeObserver(observer) }
        try writer.performAndWait {
            _ = try writer.execute(NSBatchInsertRequest(entityName: "Tag", objects: [["label": "new"]]))
        }
        #expect(heard.wait(timeout: .now() + 10) == .success)
        #expect(
            try watcher.performAndWait { try watcher.count(for: NSFetchRequest<NSManagedObject>(entityName: "Tag")) }
                == 1)
    }
}
