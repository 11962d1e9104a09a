import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import OpenCoreDataSQL
import Testing
import OpenCoreDataStoreTestSupport

/// Persistent history: what saves and batch requests record, how requests read and
/// delete it, tokens, merging another writer's changes from it, and remote change
/// notifications.
@Suite struct PersistentHistoryTests {
    /// The shared suite's model (`Item`, `Tag`, `Box`).
    static func model() -> NSManagedObjectModel { PersistentHistoryBehaviour.model() }

    static var tracking: [AnyHashable: Any] { PersistentHistoryBehaviour.tracking }

    private func context(
        _ url: URL, model: NSManagedObjectModel = model(), options: [AnyHashable: Any]? = tracking, name: String? = nil,
        author: String? = nil
    ) throws -> NSManagedObjectContext {
        try StoreUnderTest.sqlite.context(url, model: model, options: options, name: name, author: author)
    }

    private func insertItem(_ name: String, count: Int64 = 0, into context: NSManagedObjectContext) -> NSManagedObject {
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        item.setValue(name, forKey: "name")
        item.setValue(count, forKey: "count")
        return item
    }

    private func history(_ request: NSPersistentHistoryChangeRequest, in context: NSManagedObjectContext) throws -> Any?
    {
        try context.performAndWait { try (context.execute(request) as? NSPersistentHistoryResult)?.result }
    }

    private func transactions(
        after token: NSPersistentHistoryToken?, in context: NSManagedObjectContext
    ) throws -> [NSPersistentHistoryTransaction] {
        try #require(try history(.fetchHistory(after: token), in: context) as? [NSPersistentHistoryTransaction])
    }

    /// Every store-level case, as the PostgreSQL engine runs them too.
    @Test(arguments: PersistentHistoryBehaviour.allCases)
    func onSQLite(_ behaviour: PersistentHistoryBehaviour) throws {
        try behaviour.run(on: .sqlite)
    }

    /// A store whose history counters went missing (a tool that edited `Z_PRIMARYKEY`) gets
    /// them back starting past the keys its history tables hold, so later saves record
    /// history without reusing a key.
    @Test func missingHistoryCountersComeBackPastTheKeysInUse() throws {
        let url = temporaryStoreURL("Counters")
        do {
            let context = try context(url, author: "first")
            try context.performAndWait {
                _ = insertItem("a", into: context)
                try context.save()
                _ = insertItem("b", into: context)
                try context.save()
            }
            try closeStores(of: context)
        }
        let db = try DatabaseQueue(path: url.path)
        try db.write { try $0.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT IN (16001, 16002, 16003)") }
        try db.close()
        let context = try context(url, author: "second")
        try context.performAndWait {
            _ = insertItem("c", into: context)
            try context.save()
        }
        let all = try transactions(after: nil, in: context)
        #expect(all.count == 3)
        #expect(all.last?.author == "second")
        #expect(Set(all.map(\.transactionNumber)).count == 3, "no transaction number reused")
    }

    /// Deleting history deletes its rows, and the strings no transaction names any more.
    @Test func deletingHistoryDeletesItsRows() throws {
        let url = temporaryStoreURL("History")
        let context = try context(url, author: "gone")
        try context.performAndWait {
            _ = insertItem("a", into: context)
            try context.save()
            context.transactionAuthor = "stays"
            _ = insertItem("b", into: context)
            try context.save()
        }
        let all = try transactions(after: nil, in: context)
        #expect(all.count == 2)
        _ = try history(.deleteHistory(before: try #require(all.last)), in: context)
        let db = try DatabaseQueue(path: url.path)
        let (changes, transactionRows, strings) = try db.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ATRANSACTION"),
                try String.fetchAll(db, sql: "SELECT ZNAME FROM ATRANSACTIONSTRING")
            )
        }
        #expect(changes == 1)
        #expect(transactionRows == 1)
        #expect(!strings.contains("gone"))
        #expect(strings.contains("stays"))
    }

    /// A row of no entity of the model among a batch delete's rows (another program wrote
    /// it) takes a history key too: the next save's changes must not collide with it.
    @Test func aBatchDeleteOverARowOfNoEntityLeavesLaterSavesWorking() throws {
        let parent = ModelBuilder.entity("Parent", className: "NSManagedObject")
        let child = ModelBuilder.entity("Child", className: "NSManagedObject")
        let (children, owner) = ModelBuilder.pair(
            "children", from: parent, toMany: true, rule: .cascadeDeleteRule, "parent", to: child, toMany: false)
        parent.properties = [ModelBuilder.attribute("name", .stringAttributeType), children]
        child.properties = [ModelBuilder.attribute("name", .stringAttributeType), owner]
        let url = temporaryStoreURL("History")
        let context = try context(url, model: ModelBuilder.model(parent, child))
        try context.performAndWait {
            let mother = NSEntityDescription.insertNewObject(forEntityName: "Parent", into: context)
            NSEntityDescription.insertNewObject(forEntityName: "Child", into: context).setValue(
                mother, forKey: "parent")
            try context.save()
        }
        // A child row of no entity of the model, whose parent the delete cascades from.
        let db = try DatabaseQueue(path: url.path)
        try db.write { db in
            try db.execute(sql: "INSERT INTO ZCHILD (Z_PK, Z_ENT, Z_OPT, ZPARENT) VALUES (1000, 99, 1, 1)")
        }
        try db.close()
        try context.performAndWait {
            _ = try context.execute(
                NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Parent")))
            NSEntityDescription.insertNewObject(forEntityName: "Parent", into: context).setValue(
                "after", forKey: "name")
            try context.save()
        }
        let last = try #require(try transactions(after: nil, in: context).last)
        #expect(last.changes?.map(\.changeType) == [.insert])
    }

    /// History recorded before stores named their layout (properties numbered in declared
    /// order) keeps being read, and written, that way; a new store numbers them by name and
    /// says so in its metadata.
    @Test func historyWrittenInDeclaredOrderStaysReadAsWritten() throws {
        let url = temporaryStoreURL("History")
        let first = try context(url)
        try first.performAndWait {
            let item = insertItem("a", into: first)
            try first.save()
            item.setValue("renamed", forKey: "name")
            try first.save()
        }
        let store = try #require(first.persistentStoreCoordinator?.persistentStores.first)
        #expect(store.metadata[SQLHistory.layoutMetadataKey] as? Int == 2)
        #expect(
            try transactions(after: nil, in: first).last?.changes?.first?.updatedProperties?.map(\.name) == ["name"])
        try closeStores(of: first)
        // As a store written before layouts were named: `name` is the first declared property
        // (bit 0; by name it is bit 2), and the metadata names no layout.
        let db = try DatabaseQueue(path: url.path)
        try db.write { db in
            try db.execute(sql: "UPDATE ACHANGE SET ZCOLUMNS = X'01' WHERE ZCHANGETYPE = 1")
            let plist = try #require(try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"))
            var metadata = try #require(
                try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
            metadata[SQLHistory.layoutMetadataKey] = nil
            let data = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
            try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [data])
        }
        try db.close()
        let reopened = try context(url)
        #expect(
            try transactions(after: nil, in: reopened).last?.changes?.first?.updatedProperties?.map(\.name) == ["name"])
        try reopened.performAndWait {
            let item = try #require(try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first)
            item.setValue(Int64(7), forKey: "count")
            try reopened.save()
        }
        #expect(
            try transactions(after: nil, in: reopened).last?.changes?.first?.updatedProperties?.map(\.name) == ["count"]
        )
        let legacy = try #require(reopened.persistentStoreCoordinator?.persistentStores.first)
        #expect(legacy.metadata[SQLHistory.layoutMetadataKey] == nil)
        let bits = try DatabaseQueue(path: url.path).read {
            try Data.fetchOne($0, sql: "SELECT ZCOLUMNS FROM ACHANGE WHERE ZCHANGETYPE = 1 ORDER BY Z_PK DESC LIMIT 1")
        }
        #expect(bits == Data([0x02]), "count is the second declared property")
    }

    @Test func historyTablesFollowCoreDataLayout() throws {
        let url = temporaryStoreURL("History")
        let context = try context(url)
        try context.performAndWait {
            _ = insertItem("a", into: context)
            try context.save()
        }
        let db = try DatabaseQueue(path: url.path)
        try db.read { db in
            let keys = try Row.fetchAll(
                db, sql: "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT >= 16000 ORDER BY Z_ENT"
            ).map { "\($0[0] as Int) \($0[1] as String)" }
            #expect(keys == ["16001 CHANGE", "16002 TRANSACTION", "16003 TRANSACTIONSTRING"])
            let change = try #require(
                try Row.fetchOne(
                    db, sql: "SELECT Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZTOMBSTONE0 FROM ACHANGE"))
            #expect(change[0] as Int == 16001)
            #expect(change[1] as Int == 0)
            #expect(
                change[2] as Int
                    == context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Item"]!.facts.entityNumber
            )
            #expect(change[4] as Int64 == 1)
            let transaction = try #require(
                try Row.fetchOne(db, sql: "SELECT Z_ENT, ZTIMESTAMP, ZPROCESSIDTS FROM ATRANSACTION"))
            #expect(transaction[0] as Int == 16002)
            // As in stores Core Data writes: no versions, strings only through ATRANSACTIONSTRING.
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE WHERE Z_OPT IS NOT NULL") == 0)
            #expect(
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT COUNT(*) FROM ATRANSACTION WHERE Z_OPT IS NOT NULL OR ZAUTHOR IS NOT NULL OR ZBUNDLEID IS NOT NULL OR ZPROCESSID IS NOT NULL"
                ) == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ATRANSACTIONSTRING WHERE Z_OPT IS NOT NULL") == 0)
            #expect(
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ACHANGE WHERE ZCOLUMNS IS NOT NULL") == 0,
                "inserts name no columns")
            // Seconds since 2001, as Core Data stores dates.
            #expect(abs((transaction[1] as Double) - Date().timeIntervalSinceReferenceDate) < 60)
            #expect(
                try String.fetchOne(
                    db, sql: "SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = ?", arguments: [transaction[2] as Int64]
                ) == String(ProcessInfo.processInfo.processIdentifier))
        }
        // Tools reading the store see the model's entities only.
        let inferred = try NSManagedObjectModel.inferred(fromStoreAt: url)
        #expect(Set(inferred.entitiesByName.keys) == ["Item", "Tag", "Box"])
    }

    @Test func columnBitsRoundTrip() {
        for slots in [[0], [7], [8], [1, 9, 17, 63], [0, 1, 2, 3, 4, 5, 6, 7, 8]] {
            #expect(SQLHistory.slots(inColumnBits: SQLHistory.columnBits(slots)) == slots.sorted())
        }
    }
}

/// Remote change notifications, from this process's other coordinators and from
/// another process.
@Suite(.serialized) struct RemoteChangeNotificationTests {
    /// Collects the remote change notifications one coordinator posts.
    private final class Listener: @unchecked Sendable {
        private let condition = NSCondition()
        private var received: [Notification] = []
        private var observer: NSObjectProtocol?

        init(_ coordinator: NSPersistentStoreCoordinator) {
            observer = NotificationCenter.default.addObserver(
                forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
            ) { [weak self] note in
                guard let self else { return }
                condition.lock()
                received.append(note)
                condition.broadcast()
                condition.unlock()
            }
        }

        deinit { if let observer { NotificationCenter.default.removeObserver(observer) } }

        /// Waits until `predicate` holds for some notification, for up to 10 seconds.
        func wait(for predicate: (Notification) -> Bool) -> Notification? {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: 10)
            while true {
                if let found = received.first(where: predicate) { return found }
                if !condition.wait(until: deadline) { return nil }
            }
        }

        var count: Int { condition.withLock { received.count } }
    }

    private func coordinator(
        _ url: URL, _ model: NSManagedObjectModel, _ options: [AnyHashable: Any]?
    ) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        return coordinator
    }

    @Test func anotherCoordinatorsSavePostsWithTheHistoryToken() throws {
        let url = temporaryStoreURL("Remote")
        let model = PersistentHistoryTests.model()
        let options: [AnyHashable: Any] = [
            NSPersistentHistoryTrackingKey: true,
            NSPersistentStoreRemoteChangeNotificationPostOptionKey: true as NSNumber,
        ]
        let watched = try coordinator(url, model, options)
        let listener = Listener(watched)
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = try coordinator(url, model, [NSPersistentHistoryTrackingKey: true])
        try writer.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Item", into: writer)
            try writer.save()
        }
        let expected = writer.persistentStoreCoordinator!.currentPersistentHistoryToken(fromStores: nil)
        let note = try #require(
            listener.wait { ($0.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken) == expected })
        let store = watched.persistentStores[0]
        #expect(note.object as? NSPersistentStoreCoordinator === watched)
        #expect(note.userInfo?[NSStoreUUIDKey] as? String == store.identifier)
        #expect((note.userInfo?[NSPersistentStoreURLKey] as? URL)?.standardizedFileURL == url.standardizedFileURL)
        // Removing the store stops the notifications.
        try watched.remove(store)
        let seen = listener.count
        try writer.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Item", into: writer)
            try writer.save()
        }
        Thread.sleep(forTimeInterval: SQLiteChangeWatcher.interval * 6)
        #expect(listener.count == seen)
    }

    @Test func anotherProcessesSavesPostAndMergeFromHistory() throws {
        let url = temporaryStoreURL("Remote")
        let model = MultiProcessTests.workerModel()
        let options: [AnyHashable: Any] = [
            NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true,
        ]
        let watched = try coordinator(url, model, options)
        let listener = Listener(watched)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = watched
        let start = watched.currentPersistentHistoryToken(fromStores: nil)

        let process = Process()
        process.executableURL = MultiProcessTests.worker
        process.arguments = [url.path, "other-process", "0", "3", "4"]
        process.environment = ProcessInfo.processInfo.environment.merging(["OPENCOREDATA_WORKER_HISTORY": "1"]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        // The worker's last save reached this process as a notification carrying its token.
        let note = try #require(
            listener.wait { note in
                guard let token = note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken else {
                    return false
                }
                return token.transactionNumber(inStore: watched.persistentStores[0].identifier) >= 3
            })
        let token = note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken
        let transactions = try context.performAndWait {
            try #require(
                (context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: start))
                    as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
        }
        #expect(transactions.count == 3)
        #expect(
            transactions.allSatisfy {
                $0.author == "other-process" && $0.processID != String(ProcessInfo.processInfo.processIdentifier)
            })
        #expect(transactions.last?.token == token)
        let rows = try context.performAndWait {
            for transaction in transactions {
                context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            }
            return try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Entry"))
        }
        #expect(rows == 12)
    }
}

extension PersistentHistoryTests {
    /// A store opened read-only with tracking cannot create the tables; it reads no history
    /// instead of failing on a missing table.
    @Test func aReadOnlyStoreWithoutHistoryTablesReadsNone() throws {
        let url = temporaryStoreURL("History")
        let plain = try context(url, options: nil)
        try plain.performAndWait {
            _ = insertItem("a", into: plain)
            try plain.save()
        }
        let reader = try context(
            url, options: [NSPersistentHistoryTrackingKey: true, NSReadOnlyPersistentStoreOption: true])
        #expect(try transactions(after: nil, in: reader).isEmpty)
        #expect(
            reader.persistentStoreCoordinator!.currentPersistentHistoryToken(fromStores: nil)
                == NSPersistentHistoryToken(transactionNumbers: [
                    reader.persistentStoreCoordinator!.persistentStores[0].identifier: 0
                ]))
    }
}

/// The values a deletion keeps, as PostgreSQL's text tombstone columns hold them: every kind
/// reads back exactly, text starting with a combining mark included.
@Suite struct HistoryTombstoneEncodingTests {
    @Test(arguments: [
        SQLScalar.integer(Int64.min), .integer(0), .real(0.1 + 0.2), .real(-0.0), .real(.infinity),
        .real(-.infinity), .real(Date(timeIntervalSinceReferenceDate: -1_234.5).timeIntervalSinceReferenceDate),
        .text(""), .text("\u{301}accent first"), .text("t"), .text("i42"), .blob(Data()), .blob(Data([0, 0xFF, 0x27])),
        .null,
    ])
    func everyValueReadsBackOnPostgreSQL(_ value: SQLScalar) {
        let stored = SQLHistoryTombstone.stored(value, .postgreSQL)
        if case .text = stored {} else { #expect(value == .null) }
        #expect(SQLHistoryTombstone.value(stored, .postgreSQL) == value)
        #expect(SQLHistoryTombstone.stored(value, .sqlite) == value)
    }

    @Test func notANumberReadsBackAsNotANumber() {
        let stored = SQLHistoryTombstone.stored(.real(.nan), .postgreSQL)
        guard case .real(let value) = SQLHistoryTombstone.value(stored, .postgreSQL) else {
            Issue.record("not a real")
            return
        }
        #expect(value.isNaN)
    }

    @Test func textThatIsNoEncodingReadsAsNothing() {
        #expect(SQLHistoryTombstone.value(.text("x?"), .postgreSQL) == .null)
        #expect(SQLHistoryTombstone.value(.text("inot a number"), .postgreSQL) == .null)
    }
}
