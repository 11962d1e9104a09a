import GRDB
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// Opening a store file someone else wrote (Core Data on a device, an older app, a
/// hand-edited file): extra tables and columns are kept, a layout the model cannot use is refused.
@Suite struct StoreLayoutCheckTests {
    let model = ModelBuilder.notesModel()

    /// A notes store with one saved note, closed again; returns its URL.
    private func savedStore() throws -> URL {
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let note = Note(context: context)
            note.text = "first"
            try context.save()
        }
        return url
    }

    private func openError(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) -> NSError? {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ModelBuilder.notesModel())
        let error = #expect(throws: NSError.self, sourceLocation: sourceLocation) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        }
        #expect(coordinator.persistentStores.isEmpty, sourceLocation: sourceLocation)
        return error
    }

    @Test func tablesAndColumnsTheModelDoesNotKnowAreKept() throws {
        let url = try savedStore()
        try alterStore(url, "ALTER TABLE ZNOTE ADD COLUMN ZLEGACYFLAG INTEGER")
        try alterStore(url, "UPDATE ZNOTE SET ZLEGACYFLAG = 42")
        try alterStore(url, "CREATE TABLE ZAPPSTATE (Z_PK INTEGER PRIMARY KEY, ZVALUE VARCHAR)")
        try alterStore(url, "INSERT INTO ZAPPSTATE (ZVALUE) VALUES ('kept')")

        let context = try makeContext(ModelBuilder.notesModel(), url: url)
        try context.performAndWait {
            let note = try #require(try context.fetch(NSFetchRequest<Note>(entityName: "Note")).first)
            #expect(note.text == "first")
            note.text = "edited"
            let second = Note(context: context)
            second.text = "second"
            try context.save()
        }
        let db = try DatabaseQueue(path: url.path)
        try db.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT ZTEXT, ZLEGACYFLAG FROM ZNOTE ORDER BY Z_PK")
            #expect(rows.map { $0["ZTEXT"] as String } == ["edited", "second"])
            #expect(rows.map { $0["ZLEGACYFLAG"] as Int? } == [42, nil], "an update leaves unknown columns alone")
            #expect(try String.fetchOne(db, sql: "SELECT ZVALUE FROM ZAPPSTATE") == "kept")
        }
    }

    @Test func missingColumnIsRefusedByName() throws {
        let url = try savedStore()
        try alterStore(url, "ALTER TABLE ZNOTE DROP COLUMN ZTEXT")
        let error = openError(url)
        #expect(error?.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(error?.localizedDescription.contains("column ZNOTE.ZTEXT is missing") == true)
    }

    @Test func missingJoinTableIsRefusedByName() throws {
        let url = try savedStore()
        try alterStore(url, "DROP TABLE Z_1TAGS")
        let error = openError(url)
        #expect(error?.code == NSPersistentStoreIncompatibleSchemaError)
        #expect(error?.localizedDescription.contains("table Z_1TAGS is missing") == true)
    }

    @Test func entityNumberedDifferentlyIsRefused() throws {
        let url = try savedStore()
        // Entity numbers decide Z_ENT values and object IDs: a store that numbers
        // Note and Notebook the other way round cannot be read with this model.
        try alterStore(
            url,
            "UPDATE Z_PRIMARYKEY SET Z_NAME = CASE Z_NAME WHEN 'Note' THEN 'Notebook' WHEN 'Notebook' THEN 'Note' ELSE Z_NAME END"
        )
        let error = openError(url)
        #expect(error?.code == NSPersistentStoreIncompatibleSchemaError)
        let message = error?.localizedDescription ?? ""
        #expect(message.contains("entity number 1 is 'Notebook' in the store, 'Note' in the model"), "\(message)")
        #expect((error?.userInfo["problems"] as? [String])?.count == 2)
    }

    /// Join tables follow the names seen in stores Core Data wrote: the relationship
    /// whose name sorts last names the table, each key column is the entity's number and
    /// the name of the relationship that points at it, and an ordered side adds `Z_FOK_`.
    @Test func manyToManyJoinTablesAreNamedAsCoreDataNamesThem() throws {
        let album = ModelBuilder.entity("Album", className: "NSManagedObject")
        let asset = ModelBuilder.entity("Asset", className: "NSManagedObject")
        let folder = ModelBuilder.entity("Folder", className: "NSManagedObject")
        let shortcut = ModelBuilder.entity("Shortcut", className: "NSManagedObject")
        let (assets, albums) = ModelBuilder.pair(
            "assets", from: album, toMany: true, "albums", to: asset, toMany: true, ordered: true)
        let (shortcuts, parents) = ModelBuilder.pair(
            "shortcuts", from: folder, toMany: true, "parents", to: shortcut, toMany: true)
        album.properties = [assets]
        asset.properties = [albums]
        folder.properties = [shortcuts]
        shortcut.properties = [parents]
        let url = temporaryStoreURL()
        _ = try makeContext(ModelBuilder.model(album, asset, folder, shortcut), url: url)
        let db = try DatabaseQueue(path: url.path)
        try db.read { db in
            // Album 1, Asset 2, Folder 3, Shortcut 4.
            let albumAssets = try db.columns(in: "Z_1ASSETS").map(\.name)
            let folderShortcuts = try db.columns(in: "Z_3SHORTCUTS").map(\.name)
            #expect(albumAssets == ["Z_1ALBUMS", "Z_2ASSETS", "Z_FOK_2ASSETS"])
            #expect(folderShortcuts == ["Z_3PARENTS", "Z_4SHORTCUTS"])
        }
    }

    /// One table per inheritance tree with Core Data's column names: `Z<NAME>`, a number
    /// suffix for a name two subentities both use (the lower entity number keeps the plain
    /// name), `Z_FOK_` for an ordered to-many's positions, `Z<n>_` for the entity of a
    /// to-one whose destination has subentities, and `Z<n><NAME>` on the destination for a
    /// to-many without an inverse; `Z_PRIMARYKEY` lists every entity with its parent.
    @Test func tablesFollowCoreDataLayoutRules() throws {
        let album = ModelBuilder.entity("Album", className: "NSManagedObject")
        let asset = ModelBuilder.entity("Asset", className: "NSManagedObject")
        let photo = ModelBuilder.entity("Photo", className: "NSManagedObject")
        let video = ModelBuilder.entity("Video", className: "NSManagedObject")
        let tag = ModelBuilder.entity("Tag", className: "NSManagedObject")
        let (assets, assetAlbum) = ModelBuilder.pair(
            "assets", from: album, toMany: true, "album", to: asset, toMany: false, ordered: true)
        let cover = NSRelationshipDescription()
        cover.name = "cover"
        cover.destinationEntity = asset
        let items = NSRelationshipDescription()
        items.name = "items"
        items.destinationEntity = asset
        items.maxCount = 0
        let data = ModelBuilder.attribute("data", .binaryDataAttributeType)
        data.allowsExternalBinaryDataStorage = true
        album.properties = [ModelBuilder.attribute("name", .stringAttributeType), assets, cover]
        asset.properties = [
            ModelBuilder.attribute("title", .stringAttributeType),
            ModelBuilder.attribute("created", .dateAttributeType), data, assetAlbum,
        ]
        photo.properties = [ModelBuilder.attribute("width", .integer32AttributeType)]
        video.properties = [
            ModelBuilder.attribute("width", .integer32AttributeType),
            ModelBuilder.attribute("length", .doubleAttributeType),
        ]
        tag.properties = [ModelBuilder.attribute("label", .stringAttributeType), items]
        asset.subentities = [photo, video]
        let url = temporaryStoreURL()
        _ = try makeContext(ModelBuilder.model(album, asset, photo, video, tag), url: url)

        let db = try DatabaseQueue(path: url.path)
        try db.read { db in
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            #expect(tables == ["ZALBUM", "ZASSET", "ZTAG", "Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY"])
            let entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                .map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)" }
            #expect(entities == ["1 Album 0", "2 Asset 0", "3 Photo 2", "4 Video 2", "5 Tag 0"])
            func columns(_ table: String) throws -> [String: String] {
                Dictionary(uniqueKeysWithValues: try db.columns(in: table).map { ($0.name, $0.type) })
            }
            #expect(
                try columns("ZALBUM") == [
                    "Z_PK": "INTEGER", "Z_ENT": "INTEGER", "Z_OPT": "INTEGER",
                    "ZNAME": "VARCHAR", "ZCOVER": "INTEGER", "Z2_COVER": "INTEGER",
                ])
            #expect(
                try columns("ZASSET") == [
                    "Z_PK": "INTEGER", "Z_ENT": "INTEGER", "Z_OPT": "INTEGER",
                    "ZTITLE": "VARCHAR", "ZCREATED": "TIMESTAMP", "ZDATA": "BLOB",
                    "ZALBUM": "INTEGER", "Z_FOK_ALBUM": "INTEGER",
                    "ZWIDTH": "INTEGER", "ZWIDTH1": "INTEGER", "ZLENGTH": "FLOAT", "Z5ITEMS": "INTEGER",
                ])
            #expect(
                try columns("ZTAG") == ["Z_PK": "INTEGER", "Z_ENT": "INTEGER", "Z_OPT": "INTEGER", "ZLABEL": "VARCHAR"])
        }
    }

    /// Another writer may keep the key counter on a subentity's row, or insert rows
    /// without moving any counter: new keys go past both, and every row of the tree
    /// records the new maximum.
    @Test func newKeysGoPastEveryCounterAndRowOfTheTable() throws {
        let asset = ModelBuilder.entity("Asset", className: "NSManagedObject")
        let photo = ModelBuilder.entity("Photo", className: "NSManagedObject")
        asset.properties = [ModelBuilder.attribute("title", .stringAttributeType)]
        asset.subentities = [photo]
        let model = ModelBuilder.model(asset, photo)
        let url = temporaryStoreURL()
        _ = try makeContext(model, url: url)
        try alterStore(url, "UPDATE Z_PRIMARYKEY SET Z_MAX = 20 WHERE Z_NAME = 'Photo'")
        try alterStore(url, "INSERT INTO ZASSET (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (20, 2, 1, 'theirs')")
        try alterStore(url, "INSERT INTO ZASSET (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (35, 1, 1, 'uncounted')")

        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Asset", into: context)
            object.setValue("ours", forKey: "title")
            try context.save()
        }
        let db = try DatabaseQueue(path: url.path)
        try db.read { db in
            let key = try Int.fetchOne(db, sql: "SELECT Z_PK FROM ZASSET WHERE ZTITLE = 'ours'")
            let counters = try Int.fetchAll(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            #expect(key == 36)
            #expect(counters == [36, 36])
        }
    }

    @Test func anEntityNameStoredAsABlobIsAnErrorNotATrap() throws {
        let url = temporaryStoreURL()
        _ = try makeContext(ModelBuilder.notesModel(), url: url)
        try alterStore(url, "UPDATE Z_PRIMARYKEY SET Z_NAME = X'00FF' WHERE Z_NAME = 'Note'")
        try alterStore(url, "UPDATE Z_METADATA SET Z_UUID = X'01'")
        let error = openError(url)
        #expect(error?.code == NSPersistentStoreIncompatibleSchemaError)
    }

    @Test func aColumnOfAnotherTypeIsIncompatible() throws {
        let url = temporaryStoreURL()
        _ = try makeContext(ModelBuilder.notesModel(), url: url)
        let changed = ModelBuilder.notesModel()
        let title = try #require(changed.entitiesByName["Tag"]?.attributesByName["title"])
        title.attributeType = .integer64AttributeType
        // With this library's own hashes the change is caught by them; the layout says why too.
        var options: [AnyHashable: Any] = [NSIgnorePersistentStoreVersioningOption: true]
        options[NSReadOnlyPersistentStoreOption] = true
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: changed)
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        }
        #expect(
            error?.localizedDescription.contains("column ZTAG.ZTITLE is VARCHAR in the store, INTEGER in the model")
                == true)
    }
}
