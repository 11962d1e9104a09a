import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

/// Persistent history: what saves and batch requests record, how requests read and
/// delete it, tokens, merging another writer's changes from it, and remote change
/// notifications.
@Suite struct PersistentHistoryTests {
    /// `Item` (name kept after deletion, count) ↔ `Tag`, many-to-many; `Box` ↔ `Item`,
    /// one-to-many (nullify).
    static func model() -> NSManagedObjectModel {
        let item = ModelBuilder.entity("Item", className: "NSManagedObject")
        let tag = ModelBuilder.entity("Tag", className: "NSManagedObject")
        let box = ModelBuilder.entity("Box", className: "NSManagedObject")
        let (tags, items) = ModelBuilder.pair("tags", from: item, toMany: true, "items", to: tag, toMany: true)
        let (contents, itemBox) = ModelBuilder.pair("contents", from: box, toMany: true, "box", to: item, toMany: false)
        let name = ModelBuilder.attribute("name", .stringAttributeType)
        name.preservesValueInHistoryOnDeletion = true
        item.properties = [
            name, ModelBuilder.attribute("count", .integer64AttributeType, defaultValue: 0), tags, itemBox,
        ]
        tag.properties = [ModelBuilder.attribute("label", .stringAttributeType), items]
        box.properties = [ModelBuilder.attribute("label", .stringAttributeType), contents]
        return ModelBuilder.model(item, tag, box)
    }

    static var tracking: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true as NSNumber] }

    private func context(
        _ url: URL, model: NSManagedObjectModel = model(), options: [AnyHashable: Any]? = tracking, name: String? = nil,
        author: String? = nil
    ) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        context.transactionAuthor = author
        return context
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

    @Test func eachSaveRecordsOneTransactionWithItsOriginAndChanges() throws {
        let context = try context(temporaryStoreURL("History"), name: "importer", author: "app")
        let (first, second) = try context.performAndWait {
            let first = insertItem("first", into: context)
            let second = insertItem("second", into: context)
            try context.save()
            first.setValue("renamed", forKey: "name")
            try context.save()
            context.delete(second)
            try context.save()
            return (first.objectID, second.objectID)
        }
        let all = try transactions(after: nil, in: context)
        #expect(all.count == 3)
        #expect(all.map(\.transactionNumber) == all.map(\.transactionNumber).sorted())
        #expect(Set(all.map(\.transactionNumber)).count == 3)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
        for transaction in all {
            #expect(transaction.author == "app")
            #expect(transaction.contextName == "importer")
            #expect(transaction.processID == String(ProcessInfo.processInfo.processIdentifier))
            #expect(transaction.bundleID == (Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName))
            #expect(transaction.storeID == context.persistentStoreCoordinator!.persistentStores[0].identifier)
            #expect(transaction.changes?.allSatisfy { $0.transaction === transaction } == true)
        }
        let inserted = try #require(all[0].changes)
        #expect(Set(inserted.map(\.changedObjectID)) == [first, second])
        #expect(inserted.allSatisfy { $0.changeType == .insert && $0.updatedProperties == nil && $0.tombstone == nil })

        let update = try #require(all[1].changes?.first)
        #expect(all[1].changes?.count == 1)
        #expect(update.changeType == .update)
        #expect(update.changedObjectID == first)
        #expect(update.updatedProperties?.map(\.name) == ["name"])

        let deletion = try #require(all[2].changes?.first)
        #expect(deletion.changeType == .delete)
        #expect(deletion.changedObjectID == second)
        // The many-to-many and count are not kept; the name was marked to be.
        #expect(deletion.tombstone?["name"] as? String == "second")
        #expect(deletion.tombstone?.count == 1)
        #expect(all[2].changes?.count == 1)
    }

    @Test func toManyChangesAreUpdatesOfTheirObjects() throws {
        let context = try context(temporaryStoreURL("History"))
        let (item, tag) = try context.performAndWait {
            let item = insertItem("a", into: context)
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            try context.save()
            item.mutableSetValue(forKey: "tags").add(tag)
            try context.save()
            return (item.objectID, tag.objectID)
        }
        let last = try #require(try transactions(after: nil, in: context).last?.changes)
        #expect(Set(last.map(\.changedObjectID)) == [item, tag])
        #expect(last.allSatisfy { $0.changeType == .update })
        #expect(last.first { $0.changedObjectID == item }?.updatedProperties?.map(\.name) == ["tags"])
        #expect(last.first { $0.changedObjectID == tag }?.updatedProperties?.map(\.name) == ["items"])
    }

    @Test func tokensBoundFetchesAndSurviveArchiving() throws {
        let context = try context(temporaryStoreURL("History"))
        let coordinator = context.persistentStoreCoordinator!
        try context.performAndWait {
            _ = insertItem("before", into: context)
            try context.save()
        }
        let token = try #require(coordinator.currentPersistentHistoryToken(fromStores: nil))
        #expect(try transactions(after: nil, in: context).last?.token == token)
        #expect(try transactions(after: token, in: context).isEmpty)
        try context.performAndWait {
            _ = insertItem("after", into: context)
            try context.save()
        }
        let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let restored = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: data))
        #expect(restored == token)
        #expect(restored.hash == token.hash)
        let later = try transactions(after: restored, in: context)
        #expect(later.count == 1)
        #expect(later[0].changes?.first?.changedObjectID.entity.name == "Item")
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == later[0].token)
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) != token)
        // After a transaction, and after a date.
        let all = try transactions(after: nil, in: context)
        let afterFirst = try #require(
            try history(.fetchHistory(after: all[0]), in: context) as? [NSPersistentHistoryTransaction])
        #expect(afterFirst.map(\.transactionNumber) == [all[1].transactionNumber])
        let afterDate = try #require(
            try history(.fetchHistory(after: all[1].timestamp.addingTimeInterval(-0.000001)), in: context)
                as? [NSPersistentHistoryTransaction])
        #expect(afterDate.map(\.transactionNumber).contains(all[1].transactionNumber))
        #expect(
            try #require(
                try history(.fetchHistory(after: Date.distantFuture), in: context) as? [NSPersistentHistoryTransaction]
            ).isEmpty)
        // A damaged archive is refused, not trapped on.
        #expect(throws: (any Error).self) {
            try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: Data("junk".utf8))
        }
    }

    @Test func resultTypesShapeTheResult() throws {
        let context = try context(temporaryStoreURL("History"))
        let ids = try context.performAndWait {
            let a = insertItem("a", into: context)
            let b = insertItem("b", into: context)
            try context.save()
            a.setValue(Int64(5), forKey: "count")
            try context.save()
            return [a.objectID, b.objectID]
        }
        func result(_ type: NSPersistentHistoryResultType) throws -> Any? {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            request.resultType = type
            #expect(request.token == nil)
            return try history(request, in: context)
        }
        #expect(
            NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?).resultType
                == .transactionsAndChanges)
        #expect(try result(.statusOnly) as? Bool == true)
        #expect(try result(.count) as? Int == 3)
        #expect(try result(.objectIDs) as? [NSManagedObjectID] == ids)
        let changes = try #require(try result(.changesOnly) as? [NSPersistentHistoryChange])
        #expect(changes.map(\.changeType) == [.insert, .insert, .update])
        #expect(changes.map(\.changeID) == changes.map(\.changeID).sorted())
        let bare = try #require(try result(.transactionsOnly) as? [NSPersistentHistoryTransaction])
        #expect(bare.count == 2)
        #expect(bare.allSatisfy { $0.changes == nil })
    }

    @Test func fetchRequestsFilterTransactionsAndChanges() throws {
        let url = temporaryStoreURL("History")
        let app = try context(url, author: "app")
        let sync = try context(url, author: "sync")
        let itemEntity = app.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Item"]!
        try app.performAndWait {
            _ = insertItem("from app", into: app)
            _ = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: app)
            try app.save()
        }
        try sync.performAndWait {
            _ = insertItem("from sync", into: sync)
            try sync.save()
        }
        let byAuthor = try #require(NSPersistentHistoryTransaction.fetchRequest)
        byAuthor.predicate = NSPredicate(format: "author != %@", "app")
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        request.fetchRequest = byAuthor
        let others = try #require(try history(request, in: app) as? [NSPersistentHistoryTransaction])
        #expect(others.map(\.author) == ["sync"])

        let itemsOnly = try #require(NSPersistentHistoryChange.fetchRequest)
        itemsOnly.predicate = NSPredicate(
            format: "changedEntity == %@ AND changeType == %d", itemEntity,
            NSPersistentHistoryChangeType.insert.rawValue)
        let filtered = try #require(
            try history(.fetchHistory(withFetch: itemsOnly), in: app) as? [NSPersistentHistoryTransaction])
        #expect(filtered.count == 2)
        #expect(filtered.allSatisfy { $0.changes?.count == 1 && $0.changes?[0].changedObjectID.entity.name == "Item" })

        let limited = try #require(NSPersistentHistoryTransaction.fetchRequest)
        limited.fetchLimit = 1
        #expect(
            try #require(try history(.fetchHistory(withFetch: limited), in: app) as? [NSPersistentHistoryTransaction])
                .map(\.author) == ["app"])

        let wrong = NSFetchRequest<NSManagedObject>(entityName: "Item")
        #expect(throws: (any Error).self) { try history(.fetchHistory(withFetch: wrong), in: app) }
    }

    @Test func deletingHistoryExpiresOlderTokens() throws {
        let context = try context(temporaryStoreURL("History"))
        let coordinator = context.persistentStoreCoordinator!
        var tokens: [NSPersistentHistoryToken] = []
        for name in ["a", "b", "c", "d"] {
            try context.performAndWait {
                _ = insertItem(name, into: context)
                try context.save()
            }
            tokens.append(try #require(coordinator.currentPersistentHistoryToken(fromStores: nil)))
        }
        let delete = NSPersistentHistoryChangeRequest.deleteHistory(before: tokens[1])
        delete.resultType = .count
        #expect(try history(delete, in: context) as? Int == 2)
        #expect(try transactions(after: nil, in: context).count == 2)
        // Still complete after the deleted part: the reader missed nothing.
        #expect(try transactions(after: tokens[1], in: context).count == 2)
        // History right after this token is gone: reading it would silently miss changes.
        let error = try #require(throws: NSError.self) { try transactions(after: tokens[0], in: context) }
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.code == NSPersistentHistoryTokenExpiredError)
        // Before a transaction keeps that transaction.
        let remaining = try transactions(after: nil, in: context)
        #expect(try history(.deleteHistory(before: remaining[1]), in: context) as? Bool == true)
        #expect(try transactions(after: nil, in: context).map(\.transactionNumber) == [remaining[1].transactionNumber])
        // Everything, by date; a later save numbers on without reusing numbers.
        _ = try history(.deleteHistory(before: Date.distantFuture), in: context)
        #expect(try transactions(after: nil, in: context).isEmpty)
        #expect(throws: NSError.self) { try transactions(after: tokens[2], in: context) }
        try context.performAndWait {
            _ = insertItem("e", into: context)
            try context.save()
        }
        let next = try transactions(after: tokens[3], in: context)
        #expect(next.count == 1)
        #expect(next[0].transactionNumber == remaining[1].transactionNumber + 1)
        // Unused strings went with their transactions.
        let db = try DatabaseQueue(path: context.persistentStoreCoordinator!.persistentStores[0].url!.path)
        #expect(try db.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ACHANGE") } == 1)
    }

    @Test func batchRequestsRecordTheirRows() throws {
        let context = try context(temporaryStoreURL("History"), author: "batch")
        try context.performAndWait {
            let insert = NSBatchInsertRequest(
                entityName: "Item", objects: [["name": "x", "count": 1], ["name": "y", "count": 2]])
            _ = try context.execute(insert)
            let update = NSBatchUpdateRequest(entityName: "Item")
            update.propertiesToUpdate = ["count": NSExpression(forConstantValue: 9)]
            _ = try context.execute(update)
            let fetch = NSFetchRequest<NSManagedObject>(entityName: "Item")
            fetch.predicate = NSPredicate(format: "name == %@", "x")
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: fetch))
            // Matching nothing changes nothing, and records nothing.
            let none = NSBatchUpdateRequest(entityName: "Item")
            none.predicate = NSPredicate(format: "name == %@", "nobody")
            none.propertiesToUpdate = ["count": NSExpression(forConstantValue: 1)]
            _ = try context.execute(none)
        }
        let all = try transactions(after: nil, in: context)
        #expect(all.count == 3)
        #expect(all.allSatisfy { $0.author == "batch" })
        #expect(all[0].changes?.map(\.changeType) == [.insert, .insert])
        #expect(all[1].changes?.map(\.changeType) == [.update, .update])
        #expect(all[1].changes?.allSatisfy { $0.updatedProperties?.map(\.name) == ["count"] } == true)
        let deletion = try #require(all[2].changes?.first)
        #expect(all[2].changes?.count == 1)
        #expect(deletion.changeType == .delete)
        #expect(deletion.tombstone?["name"] as? String == "x")
        #expect(deletion.changedObjectID == all[0].changes?.first?.changedObjectID)
    }

    /// A batch delete reports the rows whose to-one it cleared as updates of that to-one.
    @Test func batchDeletesReportTheRowsTheyNullified() throws {
        let context = try context(temporaryStoreURL("History"))
        let (kept, boxID) = try context.performAndWait {
            let box = NSEntityDescription.insertNewObject(forEntityName: "Box", into: context)
            let kept = insertItem("kept", into: context)
            kept.setValue(box, forKey: "box")
            try context.save()
            return (kept.objectID, box.objectID)
        }
        try context.performAndWait {
            _ = try context.execute(NSBatchDeleteRequest(objectIDs: [boxID]))
        }
        let last = try #require(try transactions(after: nil, in: context).last?.changes)
        #expect(last.count == 2)
        #expect(last.first { $0.changeType == .delete }?.changedObjectID == boxID)
        let cleared = try #require(last.first { $0.changeType == .update })
        #expect(cleared.changedObjectID == kept)
        #expect(cleared.updatedProperties?.map(\.name) == ["box"])
    }

    @Test func anotherWritersChangesMergeFromHistory() throws {
        let url = temporaryStoreURL("History")
        let reader = try context(url)
        let writer = try context(url, author: "writer")
        let (kept, doomed) = try writer.performAndWait {
            let kept = insertItem("kept", into: writer)
            let doomed = insertItem("doomed", into: writer)
            try writer.save()
            return (kept.objectID, doomed.objectID)
        }
        let token = try #require(reader.persistentStoreCoordinator!.currentPersistentHistoryToken(fromStores: nil))
        // The reader holds both objects, with their values.
        let readerObjects = try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let objects = try reader.fetch(request)
            #expect(objects.map { $0.value(forKey: "name") as? String } == ["doomed", "kept"])
            return objects
        }
        let added = try writer.performAndWait {
            let keptObject = try writer.existingObject(with: kept)
            keptObject.setValue(Int64(42), forKey: "count")
            writer.delete(try writer.existingObject(with: doomed))
            let added = insertItem("added", into: writer)
            try writer.save()
            return added.objectID
        }
        let news = try transactions(after: token, in: reader)
        #expect(news.count == 1)
        #expect(news[0].author == "writer")
        let merged = try reader.performAndWait {
            for transaction in news { reader.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
            // The reader's own objects changed in place (IDs of two coordinators are told apart, so compare URIs).
            let keptObject = try #require(
                readerObjects.first { $0.objectID.uriRepresentation() == kept.uriRepresentation() })
            #expect(keptObject.value(forKey: "count") as? Int64 == 42)
            let doomedObject = try #require(
                readerObjects.first { $0.objectID.uriRepresentation() == doomed.uriRepresentation() })
            #expect(doomedObject.managedObjectContext == nil || doomedObject.isDeleted)
            let addedID = try #require(
                reader.persistentStoreCoordinator!.managedObjectID(forURIRepresentation: added.uriRepresentation()))
            return try reader.existingObject(with: addedID).value(forKey: "name") as? String
        }
        #expect(merged == "added")
        let notification = news[0].objectIDNotification()
        let uris = { (key: String) in
            Set(((notification.userInfo?[key] as? Set<NSManagedObjectID>) ?? []).map { $0.uriRepresentation() })
        }
        #expect(uris(NSInsertedObjectsKey) == [added.uriRepresentation()])
        #expect(uris(NSUpdatedObjectsKey) == [kept.uriRepresentation()])
        #expect(uris(NSDeletedObjectsKey) == [doomed.uriRepresentation()])
    }

    @Test func aStoreWithHistoryOpenedWithoutTrackingIsReadOnly() throws {
        let url = temporaryStoreURL("History")
        let tracked = try context(url)
        try tracked.performAndWait {
            _ = insertItem("a", into: tracked)
            try tracked.save()
        }
        let untracked = try context(url, options: nil)
        let store = untracked.persistentStoreCoordinator!.persistentStores[0]
        #expect(store.isReadOnly)
        let error = try #require(throws: NSError.self) {
            try untracked.performAndWait {
                _ = insertItem("b", into: untracked)
                try untracked.save()
            }
        }
        #expect(error.code == NSPersistentStoreSaveError)
        #expect(error.localizedDescription.contains("NSPersistentHistoryTrackingKey"))
        // It still reads, and history requests need a tracking store.
        untracked.performAndWait { untracked.rollback() }
        #expect(
            try untracked.performAndWait {
                try untracked.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))
            } == 1)
        let refused = try #require(throws: NSError.self) { try transactions(after: nil, in: untracked) }
        #expect(refused.code == NSPersistentStoreOperationError)
        // A store that never tracked history stays writable.
        let plain = try context(temporaryStoreURL("Plain"), options: nil)
        #expect(plain.persistentStoreCoordinator!.persistentStores[0].isReadOnly == false)
        #expect(plain.persistentStoreCoordinator!.currentPersistentHistoryToken(fromStores: nil) == nil)
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
            #expect(SQLiteHistory.slots(inColumnBits: SQLiteHistory.columnBits(slots)) == slots.sorted())
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
