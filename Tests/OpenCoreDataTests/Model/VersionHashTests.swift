import GRDB
@testable import OpenCoreDataCore
@testable import OpenCoreDataSQLite
import Testing
import OpenCoreDataStoreTestSupport

/// Version hashes in Core Data's byte layout, and how a store's hashes decide whether it opens.
///
/// The expected values were computed outside Swift (Python's hashlib) from the layout
/// written in `VersionHasher`'s documentation, so they check the implementation
/// against the description, field by field.
@Suite struct VersionHashTests {
    /// Owner (name required, unique; items ordered to-many) ↔ Item (owner to-one);
    /// Special inherits from Item, with an external-storage attribute, a modified
    /// attribute, a transient attribute (not hashed) and a modifier of its own.
    private func model() -> NSManagedObjectModel {
        let owner = ModelBuilder.entity("Owner")
        let item = ModelBuilder.entity("Item")
        let special = ModelBuilder.entity("Special")
        let (items, itemOwner) = ModelBuilder.pair(
            "items", from: owner, toMany: true, "owner", to: item, toMany: false, ordered: true)
        owner.properties = [ModelBuilder.attribute("name", .stringAttributeType, optional: false), items]
        owner.uniquenessConstraints = [["name"]]
        item.properties = [itemOwner]
        let data = ModelBuilder.attribute("data", .binaryDataAttributeType)
        data.allowsExternalBinaryDataStorage = true
        let flag = ModelBuilder.attribute("flag", .booleanAttributeType)
        flag.versionHashModifier = "v2"
        let scratch = ModelBuilder.attribute("scratch", .stringAttributeType)
        scratch.isTransient = true
        special.properties = [flag, scratch, data]
        special.versionHashModifier = "v2"
        item.subentities = [special]
        return ModelBuilder.model(owner, item, special)
    }

    @Test func oneEntityOneAttribute() {
        let entity = ModelBuilder.entity("A")
        entity.properties = [ModelBuilder.attribute("b", .stringAttributeType)]
        _ = ModelBuilder.model(entity)
        #expect(entity.versionHash.base64EncodedString() == "cWu989+DvmNfxSYIc9/jr5W4ffqJs7U/nBNPf3fH25s=")
    }

    @Test func relationshipsInheritanceModifiersAndConstraints() {
        let hashes = model().entityVersionHashesByName.mapValues { $0.base64EncodedString() }
        #expect(
            hashes == [
                "Owner": "yxSvnjmb/YGYN6cjlUqOgUHUzBeStgJzUj8HyK84bHo=",
                "Item": "rpduytNSea7RaJTRKIesCsJ3x4RLRM+sGjqw+CWJ+58=",
                "Special": "mRIsDfgQuJjq/9sBA3l0kCWO1gZjojHYrXM+YH/UI7Y=",
            ])
        #expect(
            VersionHasher.checksum(of: model().entityVersionHashesByName)
                == "WlOLh02S9r+di92UHvtkm03LMKaw/kT/N6MixNd4X2A=")
    }

    @Test func hashIgnoresWhatDoesNotChangeStorage() {
        let plain = model().entityVersionHashesByName
        let changed = model()
        let owner = changed.entitiesByName["Owner"]!
        owner.managedObjectClassName = "SomethingElse"
        owner.userInfo = ["note": "ignored"]
        (owner.propertiesByName["items"] as! NSRelationshipDescription).deleteRule = .cascadeDeleteRule
        (owner.propertiesByName["name"] as! NSAttributeDescription).defaultValue = "x"
        #expect(changed.entityVersionHashesByName == plain)
        (owner.propertiesByName["name"] as! NSAttributeDescription).isOptional = true
        #expect(changed.entityVersionHashesByName["Owner"] != plain["Owner"])
    }

    // MARK: Inheritance chains

    /// Root ← Mid ← Leaf, own attributes interleaved in name order with inherited ones.
    private func chain() -> (NSManagedObjectModel, [NSEntityDescription]) {
        let root = ModelBuilder.entity("Root")
        let mid = ModelBuilder.entity("Mid")
        let leaf = ModelBuilder.entity("Leaf")
        root.properties = [ModelBuilder.attribute("m", .stringAttributeType)]
        mid.properties = [
            ModelBuilder.attribute("z", .stringAttributeType), ModelBuilder.attribute("a", .integer64AttributeType),
        ]
        leaf.properties = [ModelBuilder.attribute("k", .stringAttributeType, optional: false)]
        root.subentities = [mid]
        mid.subentities = [leaf]
        return (ModelBuilder.model(leaf, mid, root), [root, mid, leaf])
    }

    @Test func chainHashesAreTheLayoutsWhetherHashedAloneTogetherOrFrozen() {
        let expected = [
            "Root": "jeNqFtUKSxEbEw1kkJcpmeYuPCvjMQsSlMo8KEmVapM=",
            "Mid": "QHCVcZY+4xlJIo5X90xtV+WKjOY2V0CUHyXFol8i29s=",
            "Leaf": "Wq8xiKb9d5PJz8eSnefwxVo2ykcAvTiRKJvPHG8igH8=",
        ]
        let (model, entities) = chain()
        #expect(
            entities.map { $0.versionHash.base64EncodedString() } == ["Root", "Mid", "Leaf"].map { expected[$0]! },
            "one at a time")
        #expect(model.entityVersionHashesByName.mapValues { $0.base64EncodedString() } == expected, "all together")
        model.freeze()
        #expect(
            entities.map { $0.versionHash.base64EncodedString() } == ["Root", "Mid", "Leaf"].map { expected[$0]! },
            "frozen")
        #expect(
            model.entityVersionHashesByName.mapValues { $0.base64EncodedString() } == expected, "frozen, all together")
    }

    @Test(.timeLimit(.minutes(1))) func deepInheritanceChainHashesInTime() {
        // Every entity's hash holds its parent's: hashed entity by entity, a 250-level
        // chain took over 30 s (each ancestor and its properties hashed again and again).
        let depth = 250
        var entities: [NSEntityDescription] = []
        for level in 0..<depth {
            let entity = ModelBuilder.entity("Level\(level)")
            entity.properties = [ModelBuilder.attribute("value\(level)", .stringAttributeType)]
            if let parent = entities.last { parent.subentities = [entity] }
            entities.append(entity)
        }
        let model = NSManagedObjectModel()
        model.entities = entities
        let start = Date()
        let hashes = model.entityVersionHashesByName
        #expect(Set(hashes.values).count == depth)
        #expect(
            entities[depth - 1].versionHash == hashes["Level\(depth - 1)"], "one entity alone hashes its chain once")
        model.freeze()
        #expect(
            entities.allSatisfy { $0.versionHash == hashes[$0.name!] },
            "a store checks each entity's hash of a frozen model")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    // MARK: Opening stores by their hashes

    private func notesStore(rewritingMetadata rewrite: ((inout [String: Any]) -> Void)? = nil) throws -> URL {
        let url = temporaryStoreURL()
        _ = try makeContext(ModelBuilder.notesModel(), url: url)
        guard let rewrite else { return url }
        let db = try DatabaseQueue(path: url.path)
        try db.write { db in
            let data = try #require(try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"))
            var plist = try #require(
                try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
            rewrite(&plist)
            let rewritten = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
            try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [rewritten])
        }
        try db.close()
        return url
    }

    /// Hashes as another implementation of Core Data might have written them for the same model.
    private func foreignHashes(_ plist: inout [String: Any]) {
        plist[SQLiteStore.createdByOpenCoreDataKey] = nil
        let hashes = (plist[NSStoreModelVersionHashesKey] as? [String: Data]) ?? [:]
        plist[NSStoreModelVersionHashesKey] = hashes.mapValues { Data($0.reversed()) }
    }

    @Test func storeWrittenElsewhereWithOtherHashesOpensWhenItsLayoutFits() throws {
        let url = try notesStore(rewritingMetadata: foreignHashes)
        let context = try makeContext(ModelBuilder.notesModel(), url: url)
        try context.performAndWait {
            let note = Note(context: context)
            note.text = "saved into a foreign store"
            try context.save()
        }
        // The store's own hashes stay as they were: its maker must still recognise it.
        let metadata = try NSPersistentStore.metadataForPersistentStore(with: url)
        let stored = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data])
        let model = ModelBuilder.notesModel()
        #expect(stored["Note"] == Data(model.entitiesByName["Note"]!.versionHash.reversed()))
    }

    @Test func storeWrittenElsewhereWhoseLayoutDiffersIsIncompatible() throws {
        let url = try notesStore(rewritingMetadata: foreignHashes)
        let changed = ModelBuilder.notesModel()
        changed.entitiesByName["Tag"]!.properties.append(ModelBuilder.attribute("colour", .stringAttributeType))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: changed)
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        #expect(error?.localizedDescription.contains("column ZTAG.ZCOLOUR is missing") == true)
    }

    @Test func ownStoreWithOtherHashesIsIncompatibleEvenWhenItsLayoutFits() throws {
        let url = try notesStore()
        let changed = ModelBuilder.notesModel()
        // Optionality changes the hash but not the layout.
        changed.entitiesByName["Tag"]!.propertiesByName["title"]!.isOptional = false
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: changed)
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
    }
}
