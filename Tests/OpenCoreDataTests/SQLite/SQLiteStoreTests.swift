import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQL
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

@Suite struct SQLiteStoreTests {
    let model = ModelBuilder.notesModel()

    @Test func writesCoreDataSchema() throws {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Work"
            let note = Note(context: context)
            note.notebook = notebook
            try context.save()
            note.text = "edited"
            try context.save()
        }
        let db = try DatabaseQueue(path: url.path)
        try db.read { db in
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            #expect(
                tables == [
                    "ZNOTE", "ZNOTEBOOK", "ZPLAYLIST", "ZSONG", "ZTAG", "Z_1TAGS", "Z_METADATA", "Z_MODELCACHE",
                    "Z_PRIMARYKEY",
                ])
            let entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map
            { "\($0[0] as Int):\($0[1] as String):\($0[2] as Int)" }
            #expect(entities == ["1:Note:1", "2:Notebook:1", "3:Playlist:0", "4:Song:0", "5:Tag:0"])
            let note = try Row.fetchOne(db, sql: "SELECT Z_ENT, Z_OPT, ZNOTEBOOK, ZTEXT FROM ZNOTE")!
            #expect(note[0] as Int == 1)
            #expect(note[1] as Int == 2, "Z_OPT went up with the second save")
            #expect(note[2] as Int == 1)
            #expect(note[3] as String == "edited")
            let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode")
            #expect(journal == "wal")
            let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA")!
            let metadata = try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any]
            #expect(metadata?["NSStoreType"] as? String == "SQLite")
            #expect((metadata?["NSStoreModelVersionHashes"] as? [String: Any])?.count == 5)
            // The UUID sits in its column and in the plist, the same in both, as Core Data writes it.
            let uuid = try String.fetchOne(db, sql: "SELECT Z_UUID FROM Z_METADATA")
            #expect(uuid != nil && UUID(uuidString: uuid!) != nil)
            #expect(metadata?["NSStoreUUID"] as? String == uuid)
        }
    }

    @Test func metadataIsWrittenWithTheNextSaveAndKeepsTheStoreUUID() throws {
        let url = temporaryStoreURL()
        var uuid: String?
        do {
            let context = try makeContext(model, url: url)
            let coordinator = try #require(context.persistentStoreCoordinator)
            let store = try #require(coordinator.persistentStores.first)
            uuid = store.metadata[NSStoreUUIDKey] as? String
            var metadata = coordinator.metadata(for: store)
            metadata["AppImportVersion"] = 7
            metadata[NSStoreUUIDKey] = "not-mine-to-change"
            coordinator.setMetadata(metadata, for: store)
            #expect(store.metadata["AppImportVersion"] as? Int == 7)
            #expect(store.metadata[NSStoreUUIDKey] as? String == uuid)
            // Nothing is written before a save.
            #expect(try NSPersistentStore.metadataForPersistentStore(with: url)["AppImportVersion"] == nil)
            try context.performAndWait {
                Notebook(context: context).name = "Work"
                try context.save()
            }
        }
        let reopened = try NSPersistentStore.metadataForPersistentStore(with: url)
        #expect(reopened["AppImportVersion"] as? Int == 7)
        #expect(reopened[NSStoreUUIDKey] as? String == uuid)
        let plist = try DatabaseQueue(path: url.path).read {
            try Data.fetchOne($0, sql: "SELECT Z_PLIST FROM Z_METADATA")
        }
        let stored =
            try PropertyListSerialization.propertyList(from: try #require(plist), format: nil) as? [String: Any]
        #expect(stored?[NSStoreUUIDKey] as? String == uuid)
    }

    @Test func metadataThatIsNotAPropertyListFailsTheSaveAndWritesNothing() throws {
        struct NotAPropertyList {}
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
        store.metadata["Broken"] = NotAPropertyList()
        context.performAndWait {
            Notebook(context: context).name = "Work"
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSPersistentStoreSaveError)
            #expect(error?.localizedDescription.contains("property-list") == true)
        }
        let rows = try DatabaseQueue(path: url.path).read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ZNOTEBOOK")
        }
        #expect(rows == 0, "the failed save wrote no row")
    }

    /// SQLite is dynamically typed: another program (or a batch update's arithmetic) can
    /// leave a REAL in an integer column. Reading it must not trap.
    @Test func realValuesInIntegerColumnsReadAsSQLiteCastsThem() throws {
        let url = temporaryStoreURL()
        do {
            let context = try makeContext(model, url: url)
            try context.performAndWait {
                for text in ["huge", "tiny", "infinite", "fraction"] { Note(context: context).text = text }
                try context.save()
            }
        }
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "UPDATE ZNOTE SET ZPAGES = 1e300 WHERE ZTEXT = 'huge'")
            try db.execute(sql: "UPDATE ZNOTE SET ZPAGES = -1e300 WHERE ZTEXT = 'tiny'")
            try db.execute(sql: "UPDATE ZNOTE SET ZPAGES = 9e999 WHERE ZTEXT = 'infinite'")
            try db.execute(sql: "UPDATE ZNOTE SET ZPAGES = 7.9 WHERE ZTEXT = 'fraction'")
            #expect(try String.fetchOne(db, sql: "SELECT typeof(ZPAGES) FROM ZNOTE WHERE ZTEXT = 'infinite'") == "real")
        }
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let notes = try context.fetch(Note.fetchRequest())
            let pages = Dictionary(uniqueKeysWithValues: notes.map { ($0.text ?? "", $0.pages) })
            // Saturated to Int64 as SQLite's CAST does, then cut to the attribute's Int16.
            #expect(pages["huge"] == Int16(truncatingIfNeeded: Int64.max))
            #expect(pages["tiny"] == Int16(truncatingIfNeeded: Int64.min))
            #expect(pages["infinite"] == Int16(truncatingIfNeeded: Int64.max))
            #expect(pages["fraction"] == 7)
        }
        #expect(SQLValueCoding.saturatingInteger(.nan) == 0)
    }

    @Test func manyToManyAndOrderedSurviveReopen() throws {
        let url = temporaryStoreURL()
        do {
            let context = try makeContext(model, url: url)
            try context.performAndWait {
                let swift = Tag(context: context)
                swift.title = "swift"
                let data = Tag(context: context)
                data.title = "data"
                let note = Note(context: context)
                note.text = "both"
                note.tags = [swift, data]
                #expect(swift.notes?.contains(note) == true, "many-to-many inverse is immediate")
                let playlist = Playlist(context: context)
                playlist.title = "Mix"
                for title in ["one", "two", "three"] {
                    let song = Song(context: context)
                    song.title = title
                    playlist.addToSongs(song)
                }
                playlist.insertIntoSongs(playlist.songs!.object(at: 2) as! Song, at: 0)
                try context.save()
            }
        }
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let note = try context.fetch(Note.fetchRequest()).first!
            #expect(Set(note.tags?.compactMap(\.title) ?? []) == ["swift", "data"])
            let playlist = try context.fetch(Playlist.fetchRequest()).first!
            let titles = playlist.songs?.array.compactMap { ($0 as? Song)?.title }
            #expect(titles == ["three", "one", "two"])
            let tag = try context.fetch(Tag.fetchRequest()).first { $0.title == "data" }!
            tag.notes = []
            try context.save()
        }
        let reopened = try makeContext(model, url: url)
        try reopened.performAndWait {
            let note = try reopened.fetch(Note.fetchRequest()).first!
            #expect(note.tags?.compactMap(\.title) == ["swift"])
        }
    }

    @Test func attributeTypesRoundTrip() throws {
        let entity = ModelBuilder.entity("Everything", className: "NSManagedObject")
        let types: [(String, NSAttributeType, Any)] = [
            ("i16", .integer16AttributeType, Int16(-7)), ("i32", .integer32AttributeType, Int32(70_000)),
            ("i64", .integer64AttributeType, Int64(1) << 40), ("dec", .decimalAttributeType, Decimal(string: "12.5")!),
            ("dbl", .doubleAttributeType, 2.25), ("flt", .floatAttributeType, Float(1.5)),
            ("str", .stringAttributeType, "héllo"),
            ("bool", .booleanAttributeType, true),
            ("date", .dateAttributeType, Date(timeIntervalSinceReferenceDate: 123_456.5)),
            ("data", .binaryDataAttributeType, Data([1, 2, 3])), ("uuid", .UUIDAttributeType, UUID()),
            ("uri", .URIAttributeType, URL(string: "https://example.com/a?b=c")!),
            ("list", .transformableAttributeType, ["a", "b"]),
        ]
        entity.properties = types.map { ModelBuilder.attribute($0.0, $0.1) }
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let url = temporaryStoreURL()
        do {
            let context = try makeContext(model, url: url)
            try context.performAndWait {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Everything", into: context)
                for (key, _, value) in types { object.setValue(value, forKey: key) }
                try context.save()
            }
        }
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let object = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Everything")).first!
            #expect(object.value(forKey: "i16") as? Int == -7)
            #expect(object.value(forKey: "i32") as? Int32 == 70_000)
            #expect(object.value(forKey: "i64") as? Int64 == 1 << 40)
            #expect((object.value(forKey: "dec") as? NSDecimalNumber)?.decimalValue == Decimal(string: "12.5"))
            #expect(object.value(forKey: "dbl") as? Double == 2.25)
            #expect(object.value(forKey: "flt") as? Float == 1.5)
            #expect(object.value(forKey: "str") as? String == "héllo")
            #expect(object.value(forKey: "bool") as? Bool == true)
            #expect(object.value(forKey: "date") as? Date == Date(timeIntervalSinceReferenceDate: 123_456.5))
            #expect(object.value(forKey: "data") as? Data == Data([1, 2, 3]))
            #expect(object.value(forKey: "uuid") as? UUID == types[10].2 as? UUID)
            #expect(object.value(forKey: "uri") as? URL == URL(string: "https://example.com/a?b=c"))
            #expect((object.value(forKey: "list") as? [Any])?.compactMap { $0 as? String } == ["a", "b"])
        }
    }

    @Test func largeBinaryGoesToExternalFile() throws {
        let model = ModelBuilder.photoModel()
        let url = temporaryStoreURL("Photos")
        let big = Data((0..<300_000).map { UInt8($0 % 251) })
        let context = try makeContext(model, url: url)
        let folder = url.deletingLastPathComponent().appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA")
        try context.performAndWait {
            let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: context)
            photo.setValue(big, forKey: "imageData")
            try context.save()
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(files.count == 1)
            let other = try makeContext(model, url: url)
            try other.performAndWait {
                let loaded = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")).first
                #expect(loaded?.value(forKey: "imageData") as? Data == big)
            }
            context.delete(photo)
            try context.save()
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(left.isEmpty, "the file goes with its row")
        }
    }

    @Test func inMemoryStoreWorks() throws {
        let context = try makeContext(model, url: nil, type: NSInMemoryStoreType)
        try context.performAndWait {
            Notebook(context: context).name = "RAM"
            try context.save()
            let count = try context.count(for: Notebook.fetchRequest())
            #expect(count == 1)
        }
    }

    @Test func fileThatIsNotAStoreIsRejected() throws {
        let url = temporaryStoreURL()
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("this is not a database, just some text that goes on for a while".utf8).write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        }
        #expect(error?.code == NSFileReadCorruptFileErrorCode)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix("this is not a database"), "the file was left untouched")
    }

    @Test func sqliteDatabaseThatIsNotAStoreIsRejectedAndLeftAlone() throws {
        let url = temporaryStoreURL()
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            let other = try DatabaseQueue(path: url.path)
            try other.write { db in
                try db.execute(sql: "CREATE TABLE recipe (id INTEGER PRIMARY KEY, title TEXT)")
                try db.execute(sql: "INSERT INTO recipe (title) VALUES ('bread')")
            }
            try other.close()
        }
        let before = try Data(contentsOf: url)
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        }
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSFileReadCorruptFileErrorCode)
        #expect(error?.localizedDescription.contains("not a Core Data store") == true)
        #expect(error?.localizedDescription.contains(url.path) == true)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(try Data(contentsOf: url) == before, "the database file is byte for byte the same")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == filesBefore,
            "no journal or support files left behind")
    }

    @Test func objectIDAttributeRoundTripsThroughTheStore() throws {
        let page = ModelBuilder.entity("Page", className: "NSManagedObject")
        page.properties = [ModelBuilder.attribute("title", .stringAttributeType)]
        let bookmark = ModelBuilder.entity("Bookmark", className: "NSManagedObject")
        bookmark.properties = [ModelBuilder.attribute("target", .objectIDAttributeType)]
        let model = ModelBuilder.model(page, bookmark)
        let url = temporaryStoreURL()
        let writer = try makeContext(model, url: url)
        let savedURI = try writer.performAndWait { () throws -> URL in
            let target = NSEntityDescription.insertNewObject(forEntityName: "Page", into: writer)
            target.setValue("Chapter 2", forKey: "title")
            try writer.obtainPermanentIDs(for: [target])
            let mark = NSEntityDescription.insertNewObject(forEntityName: "Bookmark", into: writer)
            mark.setValue(target.objectID, forKey: "target")
            #expect(mark.value(forKey: "target") as? NSManagedObjectID == target.objectID)
            try writer.save()
            return target.objectID.uriRepresentation()
        }
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let mark = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Bookmark")).first)
            let target = try #require(mark.value(forKey: "target") as? NSManagedObjectID)
            let page = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Page")).first)
            #expect(target == page.objectID, "read back as the reopened store's ID for the same row")
            #expect(target.uriRepresentation() == savedURI)
            #expect(try context.existingObject(with: target).value(forKey: "title") as? String == "Chapter 2")
        }
    }

    @Test func incompatibleModelIsRejected() throws {
        let url = temporaryStoreURL()
        _ = try makeContext(model, url: url)
        let changed = ModelBuilder.notesModel()
        changed.entities.first { $0.name == "Tag" }!.properties.append(
            ModelBuilder.attribute("colour", .stringAttributeType))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: changed)
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error?.localizedDescription.contains("incompatible") == true)
    }

    @Test func invalidModelsAreRejected() throws {
        let orphan = ModelBuilder.entity("Orphan")
        let dangling = NSRelationshipDescription()
        dangling.name = "nowhere"
        orphan.properties = [
            ModelBuilder.attribute("x", .undefinedAttributeType), ModelBuilder.attribute("x", .stringAttributeType),
            dangling,
        ]
        let model = NSManagedObjectModel()
        model.entities = [orphan, ModelBuilder.entity("Orphan")]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        }
        let message = error?.localizedDescription ?? ""
        #expect(message.contains("undefined attribute type"))
        #expect(message.contains("two properties named 'x'"))
        #expect(message.contains("no destination entity"))
        #expect(message.contains("two entities are named 'Orphan'"))
    }

    @Test func selfInverseManyToManyIsSaved() throws {
        let person = ModelBuilder.entity("Person", className: "NSManagedObject")
        let friends = NSRelationshipDescription()
        friends.name = "friends"
        friends.destinationEntity = person
        friends.maxCount = 0
        friends.inverseRelationship = friends
        person.properties = [ModelBuilder.attribute("name", .stringAttributeType), friends]
        let model = NSManagedObjectModel()
        model.entities = [person]
        let url = temporaryStoreURL()
        try makeContext(model, url: url).performAndWait {}
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let a = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            a.setValue("a", forKey: "name")
            let b = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            b.setValue("b", forKey: "name")
            a.mutableSetValue(forKey: "friends").add(b)
            #expect((b.value(forKey: "friends") as? NSSet)?.contains(a) == true)
            try context.save()
        }
        let reopened = try makeContext(model, url: url)
        try reopened.performAndWait {
            let people = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            #expect(people.count == 2)
            for person in people { #expect((person.value(forKey: "friends") as? NSSet)?.count == 1) }
        }
    }

    @Test func orderOfTheOtherManyToManySideIsSaved() throws {
        let alpha = ModelBuilder.entity("Alpha", className: "NSManagedObject")
        let zed = ModelBuilder.entity("Zed", className: "NSManagedObject")
        let (zeds, alphas) = ModelBuilder.pair("zeds", from: alpha, toMany: true, "alphas", to: zed, toMany: true)
        alphas.isOrdered = true
        alpha.properties = [ModelBuilder.attribute("name", .stringAttributeType), zeds]
        zed.properties = [alphas]
        let model = NSManagedObjectModel()
        model.entities = [alpha, zed]
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let z = NSEntityDescription.insertNewObject(forEntityName: "Zed", into: context)
            let list = z.mutableOrderedSetValue(forKey: "alphas")
            for name in ["c", "a", "b"] {
                let a = NSEntityDescription.insertNewObject(forEntityName: "Alpha", into: context)
                a.setValue(name, forKey: "name")
                list.add(a)
            }
            try context.save()
            list.exchangeObject(at: 0, withObjectAt: 2)
            try context.save()
        }
        let reopened = try makeContext(model, url: url)
        try reopened.performAndWait {
            let z = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zed")).first
            let names = (z?.value(forKey: "alphas") as? NSOrderedSet)?.array.compactMap {
                ($0 as? NSManagedObject)?.value(forKey: "name") as? String
            }
            #expect(names == ["b", "a", "c"])
        }
    }

    @Test func usedUpKeysFailTheSave() throws {
        let url = temporaryStoreURL()
        let model = ModelBuilder.notesModel()
        _ = try makeContext(model, url: url)
        try alterStore(url, "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807 WHERE Z_NAME = 'Tag'")
        let context = try makeContext(model, url: url)
        context.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.localizedDescription.contains("used up the primary keys of entity 'Tag'") == true)
        }
    }
}

@Suite struct SQLiteWriteTests {
    @Test func updateWritesOnlyChangedColumnsInOneTransaction() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            let note = Note(context: context)
            note.text = "draft"
            try context.save()
            let recorder = SQLRecorder(context)
            note.pages = 9
            note.text = "draft"
            try context.save()
            // The update checks the row version itself (optimistic locking); without a
            // conflict the save reads nothing first.
            #expect(
                recorder.statements.filter { $0.contains("ZNOTE") } == [
                    "UPDATE ZNOTE SET Z_OPT = Z_OPT + 1, ZPAGES = ? WHERE Z_PK = ? AND Z_OPT = ?"
                ])
            #expect(recorder.statements.first?.hasPrefix("BEGIN") == true)
            #expect(recorder.statements.last == "COMMIT TRANSACTION")
        }
    }
}
