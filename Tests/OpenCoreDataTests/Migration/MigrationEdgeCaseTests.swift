import Foundation
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// Lightweight migrations where a careless copy would lose or corrupt data: history key
/// counters, links to rows that go away, values that change storage form, required
/// attributes left empty. Models are built in code, so each migration runs as a staged
/// migration's step (the stage names both models).
@Suite struct MigrationEdgeCaseTests {
    /// `droppingData`: the migration may delete rows of entities `model` lacks
    /// (`OpenCoreDataMigrationAllowsDataLossOption`).
    private func open(
        _ url: URL, _ model: NSManagedObjectModel, from old: NSManagedObjectModel? = nil, history: Bool = false,
        droppingData: Bool = false
    ) throws -> NSManagedObjectContext {
        var options: [AnyHashable: Any] = history ? [NSPersistentHistoryTrackingKey: true] : [:]
        if droppingData { options[OpenCoreDataMigrationAllowsDataLossOption] = true }
        if let old {
            let stage = NSCustomMigrationStage(
                migratingFrom: NSManagedObjectModelReference(model: old, versionChecksum: old.versionChecksum),
                to: NSManagedObjectModelReference(model: model, versionChecksum: model.versionChecksum))
            options[NSPersistentStoreStagedMigrationManagerOptionKey] = NSStagedMigrationManager([stage])
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    private func close(_ context: NSManagedObjectContext) throws {
        let coordinator = try #require(context.persistentStoreCoordinator)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    @Test func historyKeepsCountingAfterAMigration() throws {
        func model(_ version: Int) -> NSManagedObjectModel {
            let note = ModelBuilder.entity("Note")
            note.properties =
                [ModelBuilder.attribute("text", .stringAttributeType)]
                + (version == 2 ? [ModelBuilder.attribute("pinned", .booleanAttributeType)] : [])
            // Version 1 also has Draft (removed in 2), numbered before Note: its changes must not turn into Note's.
            guard version == 1 else { return ModelBuilder.model(note) }
            let draft = ModelBuilder.entity("Draft")
            draft.properties = [ModelBuilder.attribute("text", .stringAttributeType)]
            return ModelBuilder.model(draft, note)
        }
        let (v1, v2) = (model(1), model(2))
        let url = temporaryStoreURL()
        let before = try open(url, v1, history: true)
        try before.performAndWait {
            for text in ["a", "b"] {
                NSEntityDescription.insertNewObject(forEntityName: "Note", into: before).setValue(text, forKey: "text")
                NSEntityDescription.insertNewObject(forEntityName: "Draft", into: before).setValue(text, forKey: "text")
                try before.save()
            }
        }
        try close(before)
        let after = try open(url, v2, from: v1, history: true, droppingData: true)
        try after.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: after).setValue("c", forKey: "text")
            try after.save()
            let result =
                try after.execute(
                    NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
                as? NSPersistentHistoryResult
            let transactions = try #require(result?.result as? [NSPersistentHistoryTransaction])
            #expect(transactions.count == 3)
            #expect(transactions.map(\.transactionNumber) == transactions.map(\.transactionNumber).sorted())
            #expect(Set(transactions.map(\.transactionNumber)).count == 3)
            let changes = transactions.flatMap { $0.changes ?? [] }
            #expect(changes.count == 3, "the two Draft inserts are gone with their entity")
            #expect(changes.allSatisfy { $0.changedObjectID.entity.name == "Note" })
        }
    }

    @Test func historyNamesTheSamePropertiesAfterAMigration() throws {
        // Version 2 removes `title`, adds `alpha` and renames `text` to `body`: every slot
        // moves, so an update's changed-property bits and a deletion's kept values must too.
        func model(_ version: Int) -> NSManagedObjectModel {
            let note = ModelBuilder.entity("Note")
            let kept = ModelBuilder.attribute(version == 1 ? "text" : "body", .stringAttributeType)
            kept.preservesValueInHistoryOnDeletion = true
            if version == 2 { kept.renamingIdentifier = "text" }
            let extra =
                version == 1
                ? ModelBuilder.attribute("title", .stringAttributeType)
                : ModelBuilder.attribute("alpha", .stringAttributeType)
            let rank = ModelBuilder.attribute("rank", .integer64AttributeType)
            rank.preservesValueInHistoryOnDeletion = true
            note.properties = [extra, kept, rank]
            return ModelBuilder.model(note)
        }
        let (v1, v2) = (model(1), model(2))
        let url = temporaryStoreURL()
        let before = try open(url, v1, history: true)
        try before.performAndWait {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: before)
            note.setValue("kept", forKey: "text")
            note.setValue("gone", forKey: "title")
            try before.save()
            note.setValue(7, forKey: "rank")
            try before.save()
            before.delete(note)
            try before.save()
        }
        try close(before)
        let after = try open(url, v2, from: v1, history: true)
        try after.performAndWait {
            let result =
                try after.execute(
                    NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
                as? NSPersistentHistoryResult
            let changes = try #require(result?.result as? [NSPersistentHistoryTransaction]).flatMap { $0.changes ?? [] }
            #expect(changes.map(\.changeType) == [.insert, .update, .delete])
            #expect(changes[1].updatedProperties?.map(\.name) == ["rank"])
            #expect(changes[2].tombstone?["body"] as? String == "kept")
            #expect((changes[2].tombstone?["rank"] as? NSNumber)?.intValue == 7)
            #expect(changes[2].tombstone?.count == 2)
        }
    }

    @Test func linksToRowsThatDisappearOrChangeEntityBecomeNil() throws {
        // Version 1: Owner.item → Base, with subentities Keep and Drop; version 2 removes Drop.
        func model(_ version: Int) -> NSManagedObjectModel {
            let base = ModelBuilder.entity("Base")
            base.properties = [ModelBuilder.attribute("label", .stringAttributeType)]
            let keep = ModelBuilder.entity("Keep")
            var subentities = [keep]
            if version == 1 { subentities.append(ModelBuilder.entity("Drop")) }
            base.subentities = subentities
            let owner = ModelBuilder.entity("Owner")
            let item = NSRelationshipDescription()
            item.name = "item"
            item.destinationEntity = base
            item.maxCount = 1
            let items = NSRelationshipDescription()
            items.name = "items"
            items.destinationEntity = base
            items.maxCount = 0
            owner.properties = [ModelBuilder.attribute("name", .stringAttributeType), item, items]
            let model = NSManagedObjectModel()
            model.entities = [base, owner] + subentities
            return model
        }
        let (v1, v2) = (model(1), model(2))
        let url = temporaryStoreURL()
        let before = try open(url, v1)
        try before.performAndWait {
            let kept = NSEntityDescription.insertNewObject(forEntityName: "Keep", into: before)
            kept.setValue("kept", forKey: "label")
            let dropped = NSEntityDescription.insertNewObject(forEntityName: "Drop", into: before)
            dropped.setValue("dropped", forKey: "label")
            for (name, target) in [("to kept", kept), ("to dropped", dropped)] {
                let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: before)
                owner.setValue(name, forKey: "name")
                owner.setValue(target, forKey: "item")
                owner.setValue(Set([kept, dropped]), forKey: "items")
            }
            try before.save()
        }
        try close(before)
        // The dropped row goes with its entity only when the migration is told it may.
        let after = try open(url, v2, from: v1, droppingData: true)
        try after.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Owner")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let owners = try after.fetch(request)
            // Sorted by name: "to dropped" first.
            #expect(
                owners.map { ($0.value(forKey: "item") as? NSManagedObject)?.value(forKey: "label") as? String } == [
                    nil, "kept",
                ])
            // A to-many without inverse keeps its owner in the destination's row, so the
            // last owner that took `kept` ("to dropped") has it.
            let held = owners.map {
                (($0.value(forKey: "items") as? Set<NSManagedObject>) ?? []).compactMap {
                    $0.value(forKey: "label") as? String
                }
            }
            #expect(held == [["kept"], []])
            #expect(try after.count(for: NSFetchRequest<NSManagedObject>(entityName: "Base")) == 1)
        }
    }

    @Test func aToManyMovedUpIntoItsSuperentityKeepsItsLinks() throws {
        // Version 1: Book (a Base) has `tags`, to-many without inverse; version 2 moves
        // `tags` up into Base. The links were kept under Book's relationship; they must
        // be found from Base's, for Base's subentities.
        func model(_ version: Int) -> NSManagedObjectModel {
            let base = ModelBuilder.entity("Base")
            let book = ModelBuilder.entity("Book")
            let tag = ModelBuilder.entity("Tag")
            tag.properties = [ModelBuilder.attribute("name", .stringAttributeType)]
            let tags = NSRelationshipDescription()
            tags.name = "tags"
            tags.destinationEntity = tag
            tags.maxCount = 0
            base.properties = [ModelBuilder.attribute("label", .stringAttributeType)] + (version == 2 ? [tags] : [])
            book.properties = version == 1 ? [tags] : []
            base.subentities = [book]
            let model = NSManagedObjectModel()
            model.entities = [base, book, tag]
            return model
        }
        let (v1, v2) = (model(1), model(2))
        let url = temporaryStoreURL()
        let before = try open(url, v1)
        try before.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: before)
            book.setValue("book", forKey: "label")
            let tags = ["a", "b"].map { name in
                let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: before)
                tag.setValue(name, forKey: "name")
                return tag
            }
            book.setValue(Set(tags), forKey: "tags")
            try before.save()
        }
        try close(before)
        let after = try open(url, v2, from: v1)
        try after.performAndWait {
            let book = try #require(try after.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).first)
            let names = ((book.value(forKey: "tags") as? Set<NSManagedObject>) ?? []).compactMap {
                $0.value(forKey: "name") as? String
            }
            #expect(Set(names) == ["a", "b"])
        }
    }

    @Test func valuesFollowAChangeOfExternalStorage() throws {
        func model(external: Bool) -> NSManagedObjectModel {
            let photo = ModelBuilder.entity("Photo")
            let data = ModelBuilder.attribute("data", .binaryDataAttributeType)
            data.allowsExternalBinaryDataStorage = external
            photo.properties = [ModelBuilder.attribute("name", .stringAttributeType), data]
            return ModelBuilder.model(photo)
        }
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let small = Data([0x01, 0x02, 0x00, 0x7F])  // starts like the inline marker on purpose
        let values = ["big": big, "small": small]
        func read(_ context: NSManagedObjectContext) throws -> [String: Data] {
            try context.performAndWait {
                var result: [String: Data] = [:]
                for photo in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")) {
                    result[photo.value(forKey: "name") as? String ?? "?"] = photo.value(forKey: "data") as? Data
                }
                return result
            }
        }
        for (from, to) in [(true, false), (false, true)] {
            let (old, new) = (model(external: from), model(external: to))
            let url = temporaryStoreURL()
            let before = try open(url, old)
            try before.performAndWait {
                for (name, data) in values {
                    let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: before)
                    photo.setValue(name, forKey: "name")
                    photo.setValue(data, forKey: "data")
                }
                try before.save()
            }
            try close(before)
            let after = try open(url, new, from: old)
            #expect(try read(after) == values, "external storage \(from) → \(to)")
        }
    }

    @Test func aRequiredAttributeWithoutAValueFailsTheMigrationAndChangesNothing() throws {
        func model(required: Bool) -> NSManagedObjectModel {
            let note = ModelBuilder.entity("Note")
            note.properties = [ModelBuilder.attribute("title", .stringAttributeType, optional: !required)]
            return ModelBuilder.model(note)
        }
        let (v1, v2) = (model(required: false), model(required: true))
        let url = temporaryStoreURL()
        let before = try open(url, v1)
        try before.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: before)
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: before).setValue("named", forKey: "title")
            try before.save()
        }
        try close(before)
        #expect {
            _ = try open(url, v2, from: v1)
        } throws: { error in
            let error = error as NSError
            return error.code == NSMigrationError && error.localizedDescription.contains("'title'")
                && error.localizedDescription.contains("NoteToNote")
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }
}
