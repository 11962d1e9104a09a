import GRDB
@testable import OpenCoreDataCore
import Testing

/// Query generations: a pinned context reads the store as it was at its first read while
/// other contexts (on its coordinator, or on another coordinator of the same file, as
/// another process) save; it moves on when told to, when it saves, merges or resets.
@Suite struct QueryGenerationTests {
    let model = ConflictFixture.accountsModel()

    /// The IDs of the seeded objects: ledger "L" holding accounts a1 (10) and a2 (20).
    struct Seed {
        let ledger: NSManagedObjectID
        let a1: NSManagedObjectID
        let a2: NSManagedObjectID
    }

    /// Seeds the store through `context`, then resets it, so nothing it reads later comes
    /// from objects it already holds.
    private func seed(_ context: NSManagedObjectContext) throws -> Seed {
        try context.performAndWait {
            let ledger = NSEntityDescription.insertNewObject(forEntityName: "Ledger", into: context)
            ledger.setValue("L", forKey: "title")
            let a1 = account(context, "a1", 10, ledger)
            let a2 = account(context, "a2", 20, ledger)
            try context.save()
            let seed = Seed(ledger: ledger.objectID, a1: a1.objectID, a2: a2.objectID)
            context.reset()
            return seed
        }
    }

    @discardableResult
    private func account(
        _ context: NSManagedObjectContext, _ name: String, _ balance: Int64, _ ledger: NSManagedObject?
    ) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: "Account", into: context)
        object.setValue(name, forKey: "name")
        object.setValue(balance, forKey: "balance")
        object.setValue(ledger, forKey: "ledger")
        return object
    }

    /// The writer's save: a1 renamed "changed" (balance 11), a2 deleted, a3 added to the
    /// ledger, the ledger retitled "M". Returns the save's notification.
    @discardableResult
    private func change(_ writer: NSManagedObjectContext, _ seed: Seed) throws -> Notification {
        let saves = NotificationLog(.NSManagedObjectContextDidSave, writer)
        try writer.performAndWait {
            let a1 = try ConflictFixture.load(seed.a1, in: writer)
            a1.setValue("changed", forKey: "name")
            a1.setValue(Int64(11), forKey: "balance")
            writer.delete(try ConflictFixture.load(seed.a2, in: writer))
            let ledger = try ConflictFixture.load(seed.ledger, in: writer)
            ledger.setValue("M", forKey: "title")
            account(writer, "a3", 30, ledger)
            try writer.save()
        }
        let info: [AnyHashable: Any] = try #require(saves.last)
        return Notification(name: .NSManagedObjectContextDidSave, object: writer, userInfo: info)
    }

    private func accounts(_ predicate: NSPredicate? = nil, sorted: Bool = true) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Account")
        request.predicate = predicate
        if sorted { request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)] }
        return request
    }

    private func names(_ objects: some Sequence<NSManagedObject>) -> [String] {
        objects.compactMap { $0.value(forKey: "name") as? String }.sorted()
    }

    /// The accounts a ledger holds.
    private func members(_ ledger: NSManagedObject) -> [NSManagedObject] {
        (ledger.value(forKey: "accounts") as? NSSet)?.allObjects.compactMap { $0 as? NSManagedObject } ?? []
    }

    /// Pins `context` to the current generation and takes its moment with a first read.
    private func pin(_ context: NSManagedObjectContext) throws {
        try context.performAndWait {
            try context.setQueryGenerationFrom(.current)
            _ = try context.count(for: accounts())
        }
    }

    /// The usual scene: a seeded store, `reader` pinned to that state (and its moment
    /// taken), then the writer's change saved. Returns the change's notification too.
    private func pinnedReader(
        separateCoordinators: Bool = false, url: URL = temporaryStoreURL()
    )
        throws -> (reader: NSManagedObjectContext, writer: NSManagedObjectContext, seed: Seed, note: Notification)
    {
        let (reader, writer) = try ConflictFixture.contexts(model, url: url, separateCoordinators: separateCoordinators)
        let seed = try seed(reader)
        try pin(reader)
        return (reader, writer, seed, try change(writer, seed))
    }

    /// What an unpinned context on `context`'s coordinator sees: the account names.
    private func latestNames(besides context: NSManagedObjectContext) throws -> [String] {
        let fresh = siblingContext(of: context)
        return try fresh.performAndWait { names(try fresh.fetch(accounts())) }
    }

    // MARK: Reading a snapshot

    @Test(arguments: [false, true])
    func fetchesOfEveryKindSeeThePinnedData(separateCoordinators: Bool) throws {
        let (reader, _, seed, _) = try pinnedReader(separateCoordinators: separateCoordinators)
        #expect(try latestNames(besides: reader) == ["a3", "changed"], "the store did change")
        try reader.performAndWait {
            #expect(names(try reader.fetch(accounts())) == ["a1", "a2"])
            #expect(try reader.count(for: accounts()) == 2)
            #expect(try reader.fetch(accounts(NSPredicate(format: "name == 'a1' AND balance == 10"))).count == 1)
            #expect(try reader.fetch(accounts(NSPredicate(format: "name == 'changed'"))).isEmpty)

            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Account")
            ids.resultType = .managedObjectIDResultType
            #expect(Set(try reader.fetch(ids)) == [seed.a1, seed.a2])

            let counted = NSFetchRequest<NSNumber>(entityName: "Account")
            counted.resultType = .countResultType
            #expect(try reader.fetch(counted).first?.intValue == 2)

            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Account")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["name", "balance"]
            dictionaries.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let rows = try reader.fetch(dictionaries)
            #expect(rows.map { $0["name"] as? String } == ["a1", "a2"])
            #expect(rows.map { ($0["balance"] as? NSNumber)?.int64Value } == [10, 20])

            let batched = accounts()
            batched.fetchBatchSize = 1
            #expect(names(try reader.fetchBatched(batched)) == ["a1", "a2"])

            // The deleted account is still there for the pinned context.
            let deleted = try reader.existingObject(with: seed.a2)
            #expect(deleted.value(forKey: "name") as? String == "a2")
        }
    }

    @Test(arguments: [false, true])
    func relationshipsLoadAsTheyWere(separateCoordinators: Bool) throws {
        let (reader, _, seed, _) = try pinnedReader(separateCoordinators: separateCoordinators)
        try reader.performAndWait {
            // Prefetched with the fetch.
            let ledgers = NSFetchRequest<NSManagedObject>(entityName: "Ledger")
            ledgers.relationshipKeyPathsForPrefetching = ["accounts"]
            let ledger = try #require(try reader.fetch(ledgers).first)
            #expect(ledger.value(forKey: "title") as? String == "L")
            #expect(names(members(ledger)) == ["a1", "a2"])
            // Loaded on first use.
            reader.refresh(ledger, mergeChanges: false)
            #expect(names(members(ledger)) == ["a1", "a2"])
            // A to-one, through a fault.
            let a1 = reader.object(with: seed.a1)
            #expect((a1.value(forKey: "ledger") as? NSManagedObject)?.value(forKey: "title") as? String == "L")
        }
    }

    @Test(arguments: [false, true])
    func faultsFiredAfterAnotherSaveGiveThePinnedValues(separateCoordinators: Bool) throws {
        let (reader, writer) = try ConflictFixture.contexts(
            model, url: temporaryStoreURL(), separateCoordinators: separateCoordinators)
        let seed = try seed(reader)
        try reader.performAndWait { try reader.setQueryGenerationFrom(.current) }
        // Fetched as faults holding their rows; they fire only after the writer's save,
        // which (on one coordinator) leaves newer rows in the shared row cache.
        let fetched = try reader.performAndWait {
            let objects = try reader.fetch(accounts())
            #expect(objects.allSatisfy { $0.isFault })
            return objects
        }
        try change(writer, seed)
        try reader.performAndWait { () throws -> Void in
            #expect(fetched.map { $0.value(forKey: "name") as? String } == ["a1", "a2"])
            #expect(fetched.map { ($0.value(forKey: "balance") as? NSNumber)?.int64Value } == [10, 20])
            // A fault made after the save, with no row yet.
            let ledger = reader.object(with: seed.ledger)
            #expect(ledger.value(forKey: "title") as? String == "L")
        }
    }

    @Test func unpinnedContextsOnTheSameCoordinatorSeeTheLatestData() throws {
        let (reader, _, seed, _) = try pinnedReader()
        let unpinned = siblingContext(of: reader)
        // The pinned context reads old rows, on the coordinator the others share, and keeps
        // them alive (a row leaves a row cache when its last object lets go of it).
        let held = try reader.performAndWait {
            let fetched = try reader.fetch(accounts())
            #expect(fetched.map { $0.value(forKey: "name") as? String } == ["a1", "a2"])
            let ledger = reader.object(with: seed.ledger)
            #expect(ledger.value(forKey: "title") as? String == "L")
            return fetched + [ledger]
        }
        defer { withExtendedLifetime(held) {} }
        try unpinned.performAndWait { () throws -> Void in
            #expect(unpinned.queryGenerationToken == nil)
            #expect(unpinned.object(with: seed.a1).value(forKey: "name") as? String == "changed")
            #expect(unpinned.object(with: seed.ledger).value(forKey: "title") as? String == "M")
            #expect(names(try unpinned.fetch(accounts())) == ["a3", "changed"])
            #expect(throws: NSError.self) { try unpinned.existingObject(with: seed.a2) }
        }
    }

    // MARK: Moving on

    enum Advance: String, CaseIterable, Sendable {
        case setCurrent, save, merge, reset, unpin
    }

    @Test(arguments: Advance.allCases)
    func aPinnedContextMovesOn(_ advance: Advance) throws {
        let (reader, writer, seed, note) = try pinnedReader()
        let before = try #require(reader.performAndWait { reader.queryGenerationToken })
        try reader.performAndWait {
            #expect(try reader.count(for: accounts()) == 2, "still pinned")
            switch advance {
            case .setCurrent: try reader.setQueryGenerationFrom(.current)
            case .save:
                account(reader, "mine", 1, nil)
                try reader.save()
            case .merge: reader.mergeChanges(fromContextDidSave: note)
            case .reset: reader.reset()
            case .unpin: try reader.setQueryGenerationFrom(nil)
            }
            let after = reader.queryGenerationToken
            if advance == .unpin {
                #expect(after == nil)
            } else {
                #expect(after != nil && after != before, "pinned to a new generation")
            }
            let expected = advance == .save ? ["a3", "changed", "mine"] : ["a3", "changed"]
            #expect(names(try reader.fetch(accounts())) == expected)
            #expect(reader.object(with: seed.ledger).value(forKey: "title") as? String == "M")
        }
        guard advance != .unpin else { return }
        // Pinned again, at the new moment: a later save is not seen.
        try writer.performAndWait {
            account(writer, "later", 5, nil)
            try writer.save()
        }
        try reader.performAndWait { () throws -> Void in
            #expect(!names(try reader.fetch(accounts())).contains("later"))
        }
    }

    @Test func batchRequestsDoNotMoveAPinnedContext() throws {
        let (reader, _, _, _) = try pinnedReader()
        try reader.performAndWait { () throws -> Void in
            let token = reader.queryGenerationToken
            let update = NSBatchUpdateRequest(entityName: "Account")
            update.propertiesToUpdate = ["memo": "batched"]
            _ = try reader.execute(update)
            #expect(reader.queryGenerationToken == token)
            let memos = NSFetchRequest<NSDictionary>(entityName: "Account")
            memos.resultType = .dictionaryResultType
            memos.propertiesToFetch = ["name", "memo"]
            let rows = try reader.fetch(memos)
            #expect(Set(rows.compactMap { $0["name"] as? String }) == ["a1", "a2"])
            #expect(rows.allSatisfy { $0["memo"] == nil }, "the batch wrote after the generation's moment")
        }
    }

    @Test func existingObjectAndFaultsReadTheSnapshotEvenWithAZeroStalenessInterval() throws {
        let (reader, _, seed, _) = try pinnedReader()
        try reader.performAndWait { () throws -> Void in
            reader.stalenessInterval = 0
            // Deleted by the writer: still there at the generation.
            #expect(try reader.existingObject(with: seed.a2).value(forKey: "name") as? String == "a2")
            #expect(reader.object(with: seed.a1).value(forKey: "name") as? String == "a1")
        }
    }

    // MARK: Sharing a generation

    @Test func contextsSharingATokenSeeTheSameSnapshot() throws {
        let first = try pinnedReader(separateCoordinators: true).reader
        let second = siblingContext(of: first)
        let token = try #require(first.performAndWait { first.queryGenerationToken })
        try second.performAndWait {
            try second.setQueryGenerationFrom(token)
            #expect(second.queryGenerationToken == token)
            #expect(names(try second.fetch(accounts())) == ["a1", "a2"])
        }
    }

    @Test func aSharedGenerationTakesItsMomentAtTheFirstReadOfAnyOfItsContexts() throws {
        let (first, writer) = try ConflictFixture.contexts(model, url: temporaryStoreURL(), separateCoordinators: false)
        let seed = try seed(first)
        let second = siblingContext(of: first)
        try first.performAndWait { try first.setQueryGenerationFrom(.current) }
        let token = try #require(first.performAndWait { first.queryGenerationToken })
        try second.performAndWait { try second.setQueryGenerationFrom(token) }
        #expect(token.generation?.isTaken == false, "pinning alone reads nothing")
        // Saved before either context read: part of the generation.
        try change(writer, seed)
        #expect(try second.performAndWait { names(try second.fetch(accounts())) } == ["a3", "changed"])
        try writer.performAndWait {
            account(writer, "later", 5, nil)
            try writer.save()
        }
        #expect(try first.performAndWait { names(try first.fetch(accounts())) } == ["a3", "changed"])
    }

    // MARK: Child contexts

    @Test func childContextsReadAtTheirRootsGeneration() throws {
        let (reader, _, seed, _) = try pinnedReader()
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = reader
        try child.performAndWait {
            #expect(names(try child.fetch(accounts())) == ["a1", "a2"])
            #expect(try child.count(for: accounts()) == 2)
            #expect(child.object(with: seed.ledger).value(forKey: "title") as? String == "L")
            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Account")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["name"]
            #expect(Set(try child.fetch(dictionaries).compactMap { $0["name"] as? String }) == ["a1", "a2"])
            #expect(child.queryGenerationToken == nil, "a child is never pinned itself")
            let error = #expect(throws: NSError.self) { try child.setQueryGenerationFrom(.current) }
            #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSCoreDataError)
            try child.setQueryGenerationFrom(nil)
        }
    }

    // MARK: Refusals

    /// Where no older state can be kept, Core Data leaves the context unpinned, quietly.
    @Test func anInMemoryStoreStaysUnpinned() throws {
        let context = try makeContext(model, url: nil, type: NSInMemoryStoreType)
        let writer = siblingContext(of: context)
        try context.performAndWait {
            try context.setQueryGenerationFrom(.current)
            #expect(context.queryGenerationToken == nil, "unpinned")
            #expect(try context.count(for: accounts()) == 0)
        }
        try writer.performAndWait {
            account(writer, "new", 1, nil)
            try writer.save()
        }
        try context.performAndWait {
            #expect(try context.count(for: accounts()) == 1, "reads the latest data")
            try context.setQueryGenerationFrom(nil)
        }
    }

    @Test func anSQLiteStoreOutsideWALModeStaysUnpinned() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: temporaryStoreURL(),
            options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { () throws -> Void in
            try context.setQueryGenerationFrom(.current)
            #expect(context.queryGenerationToken == nil)
        }
    }

    @Test func aTokenPinsOnlyContextsOfItsCoordinator() throws {
        let (first, other) = try ConflictFixture.contexts(model, url: temporaryStoreURL(), separateCoordinators: true)
        try pin(first)
        let token = try #require(first.performAndWait { first.queryGenerationToken })
        try other.performAndWait { () throws -> Void in
            let error = #expect(throws: NSError.self) { try other.setQueryGenerationFrom(token) }
            #expect(error?.code == NSCoreDataError)
            #expect(other.queryGenerationToken == nil)
        }
        let loose = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        try loose.performAndWait { () throws -> Void in
            #expect(throws: NSError.self) { try loose.setQueryGenerationFrom(.current) }
        }
    }

    // MARK: Tokens

    @Test func tokensAreEqualWhenTheyNameTheSameGeneration() throws {
        let (first, second) = try ConflictFixture.contexts(model, url: temporaryStoreURL(), separateCoordinators: false)
        #expect(NSQueryGenerationToken.current === NSQueryGenerationToken.current)
        #expect(NSQueryGenerationToken.current == .current)
        #expect(NSQueryGenerationToken.current.copy() as? NSQueryGenerationToken === NSQueryGenerationToken.current)
        #expect(first.performAndWait { first.queryGenerationToken } == nil, "unpinned by default")
        try pin(first)
        try pin(second)
        let (one, again) = try #require(
            first.performAndWait { (first.queryGenerationToken, first.queryGenerationToken) }
                as? (NSQueryGenerationToken, NSQueryGenerationToken))
        #expect(one == again)
        #expect(one.hash == again.hash)
        #expect(Set([one, again]).count == 1)
        #expect(one.copy() as? NSQueryGenerationToken == one)
        #expect(one != .current)
        #expect(second.performAndWait { second.queryGenerationToken } != one, "pinned on their own: two generations")
        try second.performAndWait { try second.setQueryGenerationFrom(one) }
        #expect(second.performAndWait { second.queryGenerationToken } == one)
        try first.performAndWait { try first.setQueryGenerationFrom(.current) }
        #expect(first.performAndWait { first.queryGenerationToken } != one, "moved on")
        #expect(one.description.contains("NSQueryGenerationToken"))
    }

    // MARK: Lifetime

    /// A snapshot holds back SQLite's checkpoints; it must end with the last context or
    /// token that uses its generation.
    @Test func lettingGoOfTheGenerationEndsItsSnapshot() throws {
        let url = temporaryStoreURL()
        let reader = try pinnedReader(url: url).reader
        func checkpointIsBlocked() throws -> Bool {
            let connection = try DatabaseQueue(path: url.path)
            defer { try? connection.close() }
            return try connection.inDatabase { db in
                try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")?[0] as Int?
            } == 1
        }
        #expect(try checkpointIsBlocked(), "the pinned generation still reads older pages")
        try reader.performAndWait { try reader.setQueryGenerationFrom(nil) }
        #expect(try !checkpointIsBlocked())
        #expect(try reader.performAndWait { names(try reader.fetch(accounts())) } == ["a3", "changed"])
    }

    // MARK: Concurrency

    /// A writer on its own thread keeps moving balance from a1 to a2 and saving, while the
    /// pinned reader reads again and again: it sees one state throughout.
    @Test(arguments: [false, true])
    func pinnedReadsStayPutWhileAWriterSaves(separateCoordinators: Bool) throws {
        let (reader, writer) = try ConflictFixture.contexts(
            model, url: temporaryStoreURL(), separateCoordinators: separateCoordinators)
        let seed = try seed(reader)
        try pin(reader)
        let saves = 40
        let done = DispatchSemaphore(value: 0)
        let failure = LockedBox<String?>(nil)
        Thread {
            defer { done.signal() }
            for _ in 0..<saves {
                do {
                    try writer.performAndWait {
                        let a1 = try ConflictFixture.load(seed.a1, in: writer)
                        let a2 = try ConflictFixture.load(seed.a2, in: writer)
                        a1.setValue(
                            ((a1.value(forKey: "balance") as? NSNumber)?.int64Value ?? 0) - 1, forKey: "balance")
                        a2.setValue(
                            ((a2.value(forKey: "balance") as? NSNumber)?.int64Value ?? 0) + 1, forKey: "balance")
                        try writer.save()
                    }
                } catch {
                    failure.value = "\(error)"
                    return
                }
            }
        }.start()
        var reads = 0
        var writerFinished = false
        while !writerFinished {
            writerFinished = done.wait(timeout: .now()) == .success
            try reader.performAndWait {
                let fetched = try reader.fetch(accounts())
                #expect(fetched.map { ($0.value(forKey: "balance") as? NSNumber)?.int64Value } == [10, 20])
                for object in fetched { reader.refresh(object, mergeChanges: false) }
                let fault = reader.object(with: seed.a1)
                #expect((fault.value(forKey: "balance") as? NSNumber)?.int64Value == 10)
                #expect(try reader.count(for: accounts(NSPredicate(format: "balance == 10"))) == 1)
            }
            reads += 1
        }
        #expect(failure.value == nil)
        #expect(reads > 1)
        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)
            reader.refreshAllObjects()
            let balances = try reader.fetch(accounts()).map { ($0.value(forKey: "balance") as? NSNumber)?.int64Value }
            #expect(balances == [10 - Int64(saves), 20 + Int64(saves)])
        }
    }
}

/// A value shared between test threads.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A store that cannot keep an older state, added after a context was pinned.
@Suite struct QueryGenerationLateStoreTests {
    /// A context on a WAL SQLite store holding one saved account, pinned to `.current`
    /// before its first read (so its generation's moment is not taken yet); then an
    /// in-memory store joins the coordinator. Returns the context and the account's ID.
    private func pinnedThenInMemoryStoreAdded() throws -> (NSManagedObjectContext, NSManagedObjectID) {
        let context = try makeContext(ConflictFixture.accountsModel())
        let id = try context.performAndWait {
            let account = NSEntityDescription.insertNewObject(forEntityName: "Account", into: context)
            account.setValue("a", forKey: "name")
            try context.save()
            context.reset()
            try context.setQueryGenerationFrom(.current)
            return account.objectID
        }
        #expect(context.performAndWait { context.queryGenerationToken } != nil)
        let coordinator = try #require(context.persistentStoreCoordinator)
        _ = try coordinator.addPersistentStore(
            ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        return (context, id)
    }

    /// The in-memory store joined after pinning cannot give a snapshot; the first read still
    /// freezes the SQLite store and reads the new one as it is.
    @Test func aPinnedContextStillFetchesAfterAnInMemoryStoreIsAdded() throws {
        let (context, _) = try pinnedThenInMemoryStoreAdded()
        let result: Result<Int, Error> = context.performAndWait {
            Result { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account")).count }
        }
        switch result {
        case let .success(count): #expect(count == 1)
        case let .failure(error): Issue.record("the pinned context's fetch failed: \(error)")
        }
    }

    /// A fault fires too (a failed read would make it an inaccessible fault, deleted and empty).
    @Test func aPinnedContextsFaultStillFiresAfterAnInMemoryStoreIsAdded() throws {
        let (context, id) = try pinnedThenInMemoryStoreAdded()
        let (name, deleted) = context.performAndWait {
            let object = context.object(with: id)
            return (object.value(forKey: "name") as? String, object.isDeleted)
        }
        #expect(name == "a")
        #expect(!deleted)
    }
}
