import Foundation
import OpenCoreData
import Testing

/// Persistent history as a store of any engine must keep it: what saves record, how
/// requests read and delete it, tokens, merging another writer's changes from it, and a
/// store with history opened without tracking. Each engine's test target runs every
/// case on its stores (`@Test(arguments: PersistentHistoryBehaviour.allCases)`).
public enum PersistentHistoryBehaviour: String, CaseIterable, Sendable {
    case eachSaveRecordsOneTransactionWithItsOriginAndChanges
    case toManyChangesAreUpdatesOfTheirObjects
    case deletionsKeepTheValuesOfTheirOwnEntity
    case tokensBoundFetchesAndSurviveArchiving
    case resultTypesShapeTheResult
    case fetchRequestsFilterTransactionsAndChanges
    case deletingHistoryExpiresOlderTokens
    case anotherWritersChangesMergeFromHistory
    case aStoreWithHistoryOpenedWithoutTrackingIsReadOnly
    case batchRequestsRecordTheirRows
    case batchDeletesReportTheRowsTheyNullified

    /// Runs the case on stores of `engine`.
    public func run(on engine: StoreUnderTest) throws {
        let suite = Suite(engine: engine)
        switch self {
        case .eachSaveRecordsOneTransactionWithItsOriginAndChanges: try suite.eachSaveRecordsOneTransaction()
        case .toManyChangesAreUpdatesOfTheirObjects: try suite.toManyChangesAreUpdates()
        case .deletionsKeepTheValuesOfTheirOwnEntity: try suite.deletionsKeepTheValuesOfTheirOwnEntity()
        case .tokensBoundFetchesAndSurviveArchiving: try suite.tokensBoundFetches()
        case .resultTypesShapeTheResult: try suite.resultTypesShapeTheResult()
        case .fetchRequestsFilterTransactionsAndChanges: try suite.fetchRequestsFilter()
        case .deletingHistoryExpiresOlderTokens: try suite.deletingHistoryExpiresOlderTokens()
        case .anotherWritersChangesMergeFromHistory: try suite.anotherWritersChangesMerge()
        case .aStoreWithHistoryOpenedWithoutTrackingIsReadOnly: try suite.untrackedStoreIsReadOnly()
        case .batchRequestsRecordTheirRows: try suite.batchRequestsRecordTheirRows()
        case .batchDeletesReportTheRowsTheyNullified: try suite.batchDeletesReportTheRowsTheyNullified()
        }
    }

    /// `Item` (name kept after deletion, count) ↔ `Tag`, many-to-many; `Box` (label kept
    /// after deletion) ↔ `Item`, one-to-many (nullify).
    public static func model() -> NSManagedObjectModel {
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
        let label = ModelBuilder.attribute("label", .stringAttributeType)
        label.preservesValueInHistoryOnDeletion = true
        let weight = ModelBuilder.attribute("weight", .doubleAttributeType)
        weight.preservesValueInHistoryOnDeletion = true
        box.properties = [label, weight, contents]
        return ModelBuilder.model(item, tag, box)
    }

    /// The options of a store that tracks history.
    public static var tracking: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true as NSNumber] }
}

extension PersistentHistoryBehaviour {
    private struct Suite {
        let engine: StoreUnderTest

        func context(
            _ url: URL, options: [AnyHashable: Any]? = PersistentHistoryBehaviour.tracking, name: String? = nil,
            author: String? = nil
        ) throws -> NSManagedObjectContext {
            try engine.context(
                url, model: PersistentHistoryBehaviour.model(), options: options, name: name, author: author)
        }

        func insertItem(_ name: String, count: Int64 = 0, into context: NSManagedObjectContext) -> NSManagedObject {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue(name, forKey: "name")
            item.setValue(count, forKey: "count")
            return item
        }

        func history(_ request: NSPersistentHistoryChangeRequest, in context: NSManagedObjectContext) throws -> Any? {
            try context.performAndWait { try (context.execute(request) as? NSPersistentHistoryResult)?.result }
        }

        func transactions(
            after token: NSPersistentHistoryToken?, in context: NSManagedObjectContext
        ) throws -> [NSPersistentHistoryTransaction] {
            try #require(try history(.fetchHistory(after: token), in: context) as? [NSPersistentHistoryTransaction])
        }

        func eachSaveRecordsOneTransaction() throws {
            let context = try context(try engine.location("History"), name: "importer", author: "app")
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
                // Seconds since 2001, as Core Data stores dates, on a clock near this one.
                #expect(abs(transaction.timestamp.timeIntervalSinceNow) < 60)
            }
            let inserted = try #require(all[0].changes)
            #expect(Set(inserted.map(\.changedObjectID)) == [first, second])
            #expect(
                inserted.allSatisfy { $0.changeType == .insert && $0.updatedProperties == nil && $0.tombstone == nil })

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

        func toManyChangesAreUpdates() throws {
            let context = try context(try engine.location("History"))
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

        /// Rows of two entities (two tables) may have the same key; each deletion keeps its
        /// own row's values, of every type, exactly.
        func deletionsKeepTheValuesOfTheirOwnEntity() throws {
            let context = try context(try engine.location("History"))
            let (item, box) = try context.performAndWait {
                let item = insertItem("kept name ' \" é", into: context)
                let box = NSEntityDescription.insertNewObject(forEntityName: "Box", into: context)
                box.setValue("crate", forKey: "label")
                box.setValue(0.1 + 0.2, forKey: "weight")
                try context.save()
                context.delete(item)
                context.delete(box)
                try context.save()
                return (item.objectID, box.objectID)
            }
            // The first row of each table: the same key.
            #expect(item.uriRepresentation().lastPathComponent == box.uriRepresentation().lastPathComponent)
            let changes = try #require(try transactions(after: nil, in: context).last?.changes)
            #expect(changes.count == 2)
            let itemTombstone = try #require(changes.first { $0.changedObjectID == item }?.tombstone)
            #expect(itemTombstone.count == 1)
            #expect(itemTombstone["name"] as? String == "kept name ' \" é")
            let boxTombstone = try #require(changes.first { $0.changedObjectID == box }?.tombstone)
            #expect(boxTombstone.count == 2)
            #expect(boxTombstone["label"] as? String == "crate")
            #expect(boxTombstone["weight"] as? Double == 0.1 + 0.2)
        }

        func tokensBoundFetches() throws {
            let context = try context(try engine.location("History"))
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
                    try history(.fetchHistory(after: Date.distantFuture), in: context)
                        as? [NSPersistentHistoryTransaction]
                ).isEmpty)
            // A damaged archive is refused, not trapped on.
            #expect(throws: (any Error).self) {
                try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: Data("junk".utf8))
            }
        }

        func resultTypesShapeTheResult() throws {
            let context = try context(try engine.location("History"))
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

        func fetchRequestsFilter() throws {
            let url = try engine.location("History")
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
            #expect(
                filtered.allSatisfy { $0.changes?.count == 1 && $0.changes?[0].changedObjectID.entity.name == "Item" })

            let limited = try #require(NSPersistentHistoryTransaction.fetchRequest)
            limited.fetchLimit = 1
            #expect(
                try #require(
                    try history(.fetchHistory(withFetch: limited), in: app) as? [NSPersistentHistoryTransaction]
                ).map(\.author) == ["app"])

            let wrong = NSFetchRequest<NSManagedObject>(entityName: "Item")
            #expect(throws: (any Error).self) { try history(.fetchHistory(withFetch: wrong), in: app) }
        }

        func deletingHistoryExpiresOlderTokens() throws {
            let context = try context(try engine.location("History"))
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
            #expect(
                try transactions(after: nil, in: context).map(\.transactionNumber) == [remaining[1].transactionNumber])
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
            // The deleted transactions' changes went with them.
            let changes = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            changes.resultType = .changesOnly
            #expect((try history(changes, in: context) as? [NSPersistentHistoryChange])?.count == 1)
        }

        func anotherWritersChangesMerge() throws {
            let url = try engine.location("History")
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
                return try reader.fetch(request)
            }
            #expect(readerObjects.map { $0.value(forKey: "name") as? String } == ["doomed", "kept"])
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
            #expect(news.first?.author == "writer")
            let merged = try reader.performAndWait { () throws -> String? in
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
            let notification = try #require(news.first).objectIDNotification()
            let uris = { (key: String) in
                Set(((notification.userInfo?[key] as? Set<NSManagedObjectID>) ?? []).map { $0.uriRepresentation() })
            }
            #expect(uris(NSInsertedObjectsKey) == [added.uriRepresentation()])
            #expect(uris(NSUpdatedObjectsKey) == [kept.uriRepresentation()])
            #expect(uris(NSDeletedObjectsKey) == [doomed.uriRepresentation()])
        }

        func untrackedStoreIsReadOnly() throws {
            let url = try engine.location("History")
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
            let count = try untracked.performAndWait {
                try untracked.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))
            }
            #expect(count == 1)
            let refused = try #require(throws: NSError.self) { try transactions(after: nil, in: untracked) }
            #expect(refused.code == NSPersistentStoreOperationError)
            // A store that never tracked history stays writable.
            let plain = try context(try engine.location("Plain"), options: nil)
            #expect(plain.persistentStoreCoordinator!.persistentStores[0].isReadOnly == false)
            #expect(plain.persistentStoreCoordinator!.currentPersistentHistoryToken(fromStores: nil) == nil)
        }

        func batchRequestsRecordTheirRows() throws {
            let context = try context(try engine.location("History"), author: "batch")
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
        func batchDeletesReportTheRowsTheyNullified() throws {
            let context = try context(try engine.location("History"))
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
    }
}
