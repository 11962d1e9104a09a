@testable import OpenCoreDataCore
import Foundation
import Testing
import OpenCoreDataStoreTestSupport

/// The Binary store: every attribute type and relationship kind through its file, its
/// errors for damaged files, its migrations.
@Suite struct BinaryStoreTests {
    /// Item (every attribute type; a subentity SpecialItem), Folder (an ordered to-many of
    /// items, a to-many of tags without inverse), Tag (many-to-many with items), and a
    /// one-to-one between items.
    static func model() -> NSManagedObjectModel {
        let item = ModelBuilder.entity("Item", className: "NSManagedObject")
        let special = ModelBuilder.entity("SpecialItem", className: "NSManagedObject")
        let folder = ModelBuilder.entity("Folder", className: "NSManagedObject")
        let tag = ModelBuilder.entity("Tag", className: "NSManagedObject")
        let (items, itemFolder) = ModelBuilder.pair(
            "items", from: folder, toMany: true, "folder", to: item, toMany: false, ordered: true)
        let (tags, tagItems) = ModelBuilder.pair("tags", from: item, toMany: true, "items", to: tag, toMany: true)
        let (left, right) = ModelBuilder.pair("left", from: item, toMany: false, "right", to: item, toMany: false)
        let pinned = NSRelationshipDescription()
        pinned.name = "pinned"
        pinned.destinationEntity = tag
        pinned.maxCount = 0
        let list = ModelBuilder.attribute("list", .transformableAttributeType)
        item.properties = [
            ModelBuilder.attribute("i16", .integer16AttributeType),
            ModelBuilder.attribute("i32", .integer32AttributeType),
            ModelBuilder.attribute("i64", .integer64AttributeType),
            ModelBuilder.attribute("dec", .decimalAttributeType),
            ModelBuilder.attribute("dbl", .doubleAttributeType), ModelBuilder.attribute("flt", .floatAttributeType),
            ModelBuilder.attribute("str", .stringAttributeType), ModelBuilder.attribute("flag", .booleanAttributeType),
            ModelBuilder.attribute("when", .dateAttributeType),
            ModelBuilder.attribute("blob", .binaryDataAttributeType),
            ModelBuilder.attribute("uid", .UUIDAttributeType), ModelBuilder.attribute("link", .URIAttributeType), list,
            itemFolder, tags, left, right,
        ]
        special.properties = [ModelBuilder.attribute("note", .stringAttributeType)]
        item.subentities = [special]
        folder.properties = [ModelBuilder.attribute("name", .stringAttributeType), items, pinned]
        tag.properties = [ModelBuilder.attribute("name", .stringAttributeType), tagItems]
        return ModelBuilder.model(item, special, folder, tag)
    }

    static func binaryURL(_ name: String = "Store") -> URL {
        temporaryStoreURL(name).deletingPathExtension().appendingPathExtension("binary")
    }

    static func context(
        _ model: NSManagedObjectModel, at url: URL, type: String = NSBinaryStoreType, options: [AnyHashable: Any]? = nil
    ) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    static func fetch(
        _ entity: String, in context: NSManagedObjectContext, sortedBy key: String? = nil
    ) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = key.map { [NSSortDescriptor(key: $0, ascending: true)] } ?? []
        return try context.fetch(request)
    }

    @Test func everyAttributeTypeSurvivesTheFile() throws {
        let model = Self.model()
        let url = Self.binaryURL()
        let context = try Self.context(model, at: url)
        let item = NSEntityDescription.insertNewObject(forEntityName: "SpecialItem", into: context)
        let when = Date(timeIntervalSinceReferenceDate: 123_456.789)
        let uid = UUID()
        let blob = Data((0..<300).map { UInt8($0 % 256) })
        item.setValue(Int16(-12), forKey: "i16")
        item.setValue(Int32(1_000_000), forKey: "i32")
        item.setValue(Int64.max, forKey: "i64")
        item.setValue(Decimal(string: "12345678901234567890.123456789"), forKey: "dec")
        item.setValue(Double.pi, forKey: "dbl")
        item.setValue(Float(2.5), forKey: "flt")
        item.setValue("naïve café ☕︎", forKey: "str")
        item.setValue(true, forKey: "flag")
        item.setValue(when, forKey: "when")
        item.setValue(blob, forKey: "blob")
        item.setValue(uid, forKey: "uid")
        item.setValue(URL(string: "https://example.com/a?b=c"), forKey: "link")
        item.setValue(["one", "two"] as NSArray, forKey: "list")
        item.setValue("special", forKey: "note")
        NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        try context.save()

        let reopened = try Self.context(model, at: url)
        let items = try Self.fetch("Item", in: reopened)
        #expect(items.count == 2)
        let loaded = try #require(items.first { $0.entity.name == "SpecialItem" })
        #expect(loaded.value(forKey: "i16") as? Int16 == -12)
        #expect(loaded.value(forKey: "i32") as? Int32 == 1_000_000)
        #expect(loaded.value(forKey: "i64") as? Int64 == Int64.max)
        #expect(loaded.value(forKey: "dbl") as? Double == Double.pi)
        #expect(loaded.value(forKey: "flt") as? Float == 2.5)
        #expect(loaded.value(forKey: "str") as? String == "naïve café ☕︎")
        #expect(loaded.value(forKey: "flag") as? Bool == true)
        #expect(loaded.value(forKey: "when") as? Date == when)
        #expect(loaded.value(forKey: "blob") as? Data == blob)
        #expect(loaded.value(forKey: "uid") as? UUID == uid)
        #expect(loaded.value(forKey: "link") as? URL == URL(string: "https://example.com/a?b=c"))
        #expect(loaded.value(forKey: "list") as? [String] == ["one", "two"])
        #expect(loaded.value(forKey: "note") as? String == "special")
        let plain = try #require(items.first { $0.entity.name == "Item" })
        #expect(plain.value(forKey: "str") == nil, "unset values stay unset")

        // The file holds the decimal exactly (the in-memory database keeps a double, as
        // SQLite stores do, so read the file itself).
        let contents = try BinaryStoreFile.read(at: url, model: model)
        let record = try #require(contents.records.first { $0.entityName == "SpecialItem" })
        #expect(record.attributes["dec"] as? Decimal == Decimal(string: "12345678901234567890.123456789"))
    }

    @Test func everyRelationshipKindSurvivesTheFile() throws {
        let model = Self.model()
        let url = Self.binaryURL()
        let context = try Self.context(model, at: url)
        func insert(_ entity: String, _ key: String, _ name: String) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            object.setValue(name, forKey: key)
            return object
        }
        let folder = insert("Folder", "name", "Inbox")
        let items = ["c", "a", "b"].map { insert("Item", "str", $0) }
        folder.mutableOrderedSetValue(forKey: "items").addObjects(from: items)
        let red = insert("Tag", "name", "red"), blue = insert("Tag", "name", "blue")
        items[0].mutableSetValue(forKey: "tags").addObjects(from: [red, blue])
        items[1].mutableSetValue(forKey: "tags").add(red)
        folder.mutableSetValue(forKey: "pinned").add(blue)
        items[0].setValue(items[2], forKey: "left")
        try context.save()

        var reopened = try Self.context(model, at: url)
        var loadedFolder = try #require(try Self.fetch("Folder", in: reopened).first)
        #expect(
            (loadedFolder.value(forKey: "items") as? NSOrderedSet)?.array.compactMap {
                ($0 as? NSManagedObject)?.value(forKey: "str") as? String
            } == ["c", "a", "b"],
            "an ordered to-many keeps its order")
        #expect(
            (loadedFolder.value(forKey: "pinned") as? NSSet)?.allObjects.compactMap {
                ($0 as? NSManagedObject)?.value(forKey: "name") as? String
            } == ["blue"],
            "a to-many without inverse")
        let loadedTags = try Self.fetch("Tag", in: reopened, sortedBy: "name")
        #expect(
            loadedTags.map { ($0.value(forKey: "items") as? NSSet)?.count } == [1, 2],
            "many-to-many, read from the other side")
        let c = try #require(try Self.fetch("Item", in: reopened).first { $0.value(forKey: "str") as? String == "c" })
        #expect((c.value(forKey: "left") as? NSManagedObject)?.value(forKey: "str") as? String == "b")
        #expect(
            ((c.value(forKey: "left") as? NSManagedObject)?.value(forKey: "right") as? NSManagedObject) === c,
            "one-to-one, both sides")
        #expect((c.value(forKey: "folder") as? NSManagedObject)?.value(forKey: "name") as? String == "Inbox")

        // Reordering and removing survive too.
        let ordered = loadedFolder.mutableOrderedSetValue(forKey: "items")
        ordered.moveObjects(at: IndexSet(integer: 2), to: 0)
        ordered.removeObject(at: 2)
        try reopened.save()
        reopened = try Self.context(model, at: url)
        loadedFolder = try #require(try Self.fetch("Folder", in: reopened).first)
        #expect(
            (loadedFolder.value(forKey: "items") as? NSOrderedSet)?.array.compactMap {
                ($0 as? NSManagedObject)?.value(forKey: "str") as? String
            } == ["b", "c"])
        #expect(try Self.fetch("Item", in: reopened).count == 3, "removed from the relationship, not deleted")
    }

    /// Each save rewrites the whole file, so a value the store cannot read back must stop
    /// the load rather than be skipped (and erased by the next save).
    @Test func aValueNoTransformerReadsStopsTheLoad() throws {
        final class Reversing: ValueTransformer, @unchecked Sendable {
            override class func allowsReverseTransformation() -> Bool { true }
            override func transformedValue(_ value: Any?) -> Any? {
                (value as? String).map { Data(String($0.reversed()).utf8) }
            }
            override func reverseTransformedValue(_ value: Any?) -> Any? {
                (value as? Data).map { String(String(decoding: $0, as: UTF8.self).reversed()) }
            }
        }
        let name = NSValueTransformerName("BinaryStoreTestsReversing")
        let model = NSManagedObjectModel()
        let note = ModelBuilder.entity("Note", className: "NSManagedObject")
        let text = ModelBuilder.attribute("text", .transformableAttributeType)
        text.valueTransformerName = name.rawValue
        note.properties = [text]
        model.entities = [note]
        let url = Self.binaryURL("Transformed")
        ValueTransformer.setValueTransformer(Reversing(), forName: name)
        let context = try Self.context(model, at: url)
        NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("hello", forKey: "text")
        try context.save()
        let before = try Data(contentsOf: url)
        let reopened = try Self.context(model, at: url)
        #expect(try Self.fetch("Note", in: reopened).first?.value(forKey: "text") as? String == "hello")
        ValueTransformer.setValueTransformer(nil, forName: name)
        defer { ValueTransformer.setValueTransformer(Reversing(), forName: name) }
        let error = #expect(throws: NSError.self) { try Self.context(model, at: url) }
        #expect(error?.code == NSPersistentStoreInvalidTypeError)
        #expect(try Data(contentsOf: url) == before, "the file is left as it was")
    }

    @Test func objectsKeepTheirKeysAsReferenceObjects() throws {
        let model = Self.model()
        let url = Self.binaryURL()
        let context = try Self.context(model, at: url)
        let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        try context.save()
        let reopened = try Self.context(model, at: url)
        let store = try #require(reopened.persistentStoreCoordinator?.persistentStores.first as? NSAtomicStore)
        let loaded = try #require(try Self.fetch("Tag", in: reopened).first)
        #expect(loaded.objectID.uriRepresentation() == tag.objectID.uriRepresentation())
        #expect(store.referenceObject(for: loaded.objectID) as? Int64 == loaded.objectID.primaryKey)
    }

    @Test func damagedFilesThrowInvalidTypeErrorsNamingTheFault() throws {
        let model = Self.model()
        let url = Self.binaryURL()
        let context = try Self.context(model, at: url)
        for name in ["a", "b", "c"] {
            NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context).setValue(name, forKey: "name")
        }
        try context.save()
        let good = try Data(contentsOf: url)
        var flipped = good
        flipped[flipped.count - 5] ^= 0xFF
        var newer = good
        newer[8] = 9
        let cases: [(Data, String)] = [
            (Data(), "not a Binary store"),
            (good.prefix(20), "shorter than"),
            (good.dropLast(7), "truncated"),
            (flipped, "checksum"),
            (newer, "newer"),
            (Data("SQLite format 3\0".utf8) + good.dropFirst(16), "not a Binary store"),
        ]
        for (bytes, expected) in cases {
            try bytes.write(to: url)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let error = try #require(throws: NSError.self) {
                try coordinator.addPersistentStore(
                    ofType: NSBinaryStoreType, configurationName: nil, at: url, options: nil)
            }
            #expect(error.code == NSPersistentStoreInvalidTypeError, "\(expected): \(error)")
            #expect(error.localizedDescription.contains(expected), "\(error.localizedDescription)")
            #expect(error.localizedDescription.contains(url.path))
            #expect(throws: NSError.self) {
                try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSBinaryStoreType, at: url)
            }
            #expect(try Data(contentsOf: url) == bytes, "a damaged file is left as it was")
        }
    }

    @Test func decoderRefusesCountsLargerThanTheFile() throws {
        var encoder = BinaryStoreEncoder()
        encoder.append(UInt64.max)
        var decoder = BinaryStoreDecoder(encoder.data)
        #expect(throws: BinaryStoreDamage.self) { try decoder.count(minimumSize: 8) }
        decoder = BinaryStoreDecoder(encoder.data)
        #expect(throws: BinaryStoreDamage.self) { try decoder.bytes() }
    }

    @Test func lightweightMigrationOnOpen() throws {
        let v1 = ModelBuilder.model(
            {
                let author = ModelBuilder.entity("Author", className: "NSManagedObject")
                author.properties = [ModelBuilder.attribute("name", .stringAttributeType)]
                return author
            }())
        let v2 = ModelBuilder.model(
            {
                let author = ModelBuilder.entity("Author", className: "NSManagedObject")
                author.properties = [
                    ModelBuilder.attribute("name", .stringAttributeType),
                    ModelBuilder.attribute("nationality", .stringAttributeType),
                ]
                return author
            }())
        let url = Self.binaryURL()
        let context = try Self.context(v1, at: url)
        NSEntityDescription.insertNewObject(forEntityName: "Author", into: context).setValue("Austen", forKey: "name")
        try context.save()
        let uuid = context.persistentStoreCoordinator?.persistentStores.first?.identifier

        let refused = try #require(throws: NSError.self) { try Self.context(v2, at: url) }
        #expect(refused.code == NSPersistentStoreIncompatibleVersionHashError)

        let migrated = try Self.context(
            v2, at: url,
            options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let author = try #require(try Self.fetch("Author", in: migrated).first)
        #expect(author.value(forKey: "name") as? String == "Austen")
        #expect(author.value(forKey: "nationality") == nil)
        #expect(
            migrated.persistentStoreCoordinator?.persistentStores.first?.identifier == uuid, "the store keeps its UUID")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSBinaryStoreType, at: url)
        #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(leftovers == [url.lastPathComponent], "no temporary files remain")
    }

    @Test func migrationToBinaryKeepsEveryObjectAndItsURI() throws {
        let model = Self.model()
        let sqliteURL = temporaryStoreURL()
        let context = try Self.context(model, at: sqliteURL, type: NSSQLiteStoreType)
        let folder = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
        let items = (0..<3).map { index -> NSManagedObject in
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("\(index)", forKey: "str")
            return item
        }
        folder.mutableOrderedSetValue(forKey: "items").addObjects(from: items.reversed())
        try context.save()
        let uri = folder.objectID.uriRepresentation()
        let coordinator = try #require(context.persistentStoreCoordinator)
        let binaryURL = sqliteURL.deletingPathExtension().appendingPathExtension("binary")
        _ = try coordinator.migratePersistentStore(
            try #require(coordinator.persistentStores.first), to: binaryURL, options: nil, withType: NSBinaryStoreType)

        let reopened = try Self.context(model, at: binaryURL)
        let id = try #require(reopened.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
        let loaded = try reopened.existingObject(with: id)
        #expect(
            (loaded.value(forKey: "items") as? NSOrderedSet)?.array.compactMap {
                ($0 as? NSManagedObject)?.value(forKey: "str") as? String
            } == ["2", "1", "0"])
        // New objects get keys past the copied ones.
        NSEntityDescription.insertNewObject(forEntityName: "Item", into: reopened)
        try reopened.save()
        #expect(Set(try Self.fetch("Item", in: reopened).compactMap(\.objectID.primaryKey)).count == 4)
    }

    @Test func batchRequestsAreRefusedAsOnAnyNonSQLiteStore() throws {
        let context = try Self.context(Self.model(), at: URL(fileURLWithPath: "/dev/null"))
        let error = try #require(throws: NSError.self) {
            try context.execute(
                NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Tag")))
        }
        #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
    }
    @Test func childContextsAndBackgroundContextsSaveThroughTheStore() throws {
        let model = Self.model()
        let url = Self.binaryURL()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .binary, at: url)
        let parent = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        parent.persistentStoreCoordinator = coordinator
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: child)
        tag.setValue("from the child", forKey: "name")
        try child.save()
        try parent.save()
        let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = coordinator
        try background.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Tag", into: background).setValue(
                "from the background", forKey: "name")
            try background.save()
        }
        let reopened = try Self.context(model, at: url)
        #expect(
            try Self.fetch("Tag", in: reopened, sortedBy: "name").compactMap { $0.value(forKey: "name") as? String }
                == ["from the background", "from the child"])
    }

    @Test func replacingABinaryStoreCopiesItsFile() throws {
        let model = Self.model()
        let source = Self.binaryURL("Source")
        let context = try Self.context(model, at: source)
        NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context).setValue("copied", forKey: "name")
        try context.save()
        let destination = Self.binaryURL("Destination")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .binary)
        let copy = try Self.context(model, at: destination)
        #expect(try Self.fetch("Tag", in: copy).first?.value(forKey: "name") as? String == "copied")
        let notAStore = Self.binaryURL("Text")
        try FileManager.default.createDirectory(
            at: notAStore.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("text".utf8).write(to: notAStore)
        #expect(throws: NSError.self) {
            try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: notAStore, type: .binary)
        }
        #expect(throws: NSError.self) { try coordinator.destroyPersistentStore(at: notAStore, type: .binary) }
        #expect(
            FileManager.default.fileExists(atPath: notAStore.path),
            "a file that is not a Binary store is never destroyed")
    }
}
