import OpenCoreDataTestSupport
@testable import CDToolCore
import OpenCoreData
import Testing

/// `cdtool model` and `cdtool inspect`, and the model inference behind them.
@Suite struct CDToolInspectTests {
    @Test func modelDescriptionListsEntitiesPropertiesAndHashes() throws {
        let model = CDToolFixture.model()
        let text = ModelDescription.text(of: model)
        #expect(text.hasPrefix("5 entities\n"))
        #expect(text.contains("entity Person (class NSManagedObject, subentities Student)"))
        #expect(text.contains("entity Student : Person (class NSManagedObject)"))
        #expect(text.contains("  attribute name: String, required, default \"Anonymous\"\n"))
        #expect(text.contains("  attribute age: Integer 16, optional, default 0\n"))
        #expect(
            text.contains(
                "  relationship family: to-one Family, inverse members, delete rule nullify, optional, count 0…1\n"))
        #expect(
            text.contains(
                "  relationship tags: to-many ordered Tag, inverse people, delete rule nullify, optional, count 0…∞\n"))
        #expect(text.contains("  relationship owner: to-one Person, inverse none,"))
        let person = try #require(model.entitiesByName["Person"])
        #expect(
            text.contains(
                "entity Person (class NSManagedObject, subentities Student)\n  version hash \(person.versionHash.base64EncodedString())\n"
            ))
        #expect(model.problemsPreventingUse.isEmpty)
    }

    @Test func invalidModelsReportEveryProblem() {
        let model = CDToolFixture.model()
        let broken = NSRelationshipDescription()
        broken.name = "nowhere"
        model.entitiesByName["Tag"]!.properties.append(broken)
        let typeless = NSAttributeDescription()
        typeless.name = "mystery"
        model.entitiesByName["Note"]!.properties.append(typeless)
        #expect(model.problemsPreventingUse.count == 2)
        #expect(model.problemsPreventingUse.contains("relationship 'Tag.nowhere' has no destination entity"))
        #expect(
            model.problemsPreventingUse.contains(
                "attribute 'Note.mystery' has an undefined attribute type (only a transient attribute may)"))
    }

    @Test func inspectCountsRowsPerEntityAndReadsMetadata() throws {
        let (url, model) = try CDToolFixture.makeStore()
        let inspection = try StoreInspection.inspect(storeAt: url, model: nil)
        #expect(inspection.entities.map(\.name) == ["Family", "Note", "Person", "Student", "Tag"])
        #expect(inspection.entities.map(\.number) == [1, 2, 3, 4, 5])
        #expect(inspection.entities.map(\.rows) == [2, 2, 3, 1, 3])
        #expect(inspection.entities.first { $0.name == "Student" }?.table == "ZPERSON")
        #expect(inspection.entities.first { $0.name == "Student" }?.parent == "Person")
        #expect(inspection.joinTables.map(\.name) == ["Z_3FRIENDS", "Z_3TAGS"])
        // A self-inverse relationship keeps both directions of each pair.
        #expect(inspection.joinTables.map(\.rows) == [4, 3])
        // OpenCoreData caches the model in each store file it creates, as Core Data does.
        #expect((inspection.modelCacheBytes ?? 0) > 0)
        #expect(inspection.inferredModelSource == .modelCache)
        let uuid = try #require(inspection.storeUUID)
        #expect(UUID(uuidString: uuid) != nil)
        let hashes = try #require(inspection.metadata[NSStoreModelVersionHashesKey] as? [String: Any])
        #expect((hashes["Person"] as? Data) == model.entitiesByName["Person"]!.versionHash)
        let text = inspection.text
        #expect(text.contains("uuid \(uuid)\n"))
        #expect(text.contains("  Student  1 rows (Z_ENT 4, table ZPERSON, parent Person)\n"))
        #expect(text.contains("  Z_3TAGS  3 rows\n"))
        #expect(text.contains("    Person  \(model.entitiesByName["Person"]!.versionHash.base64EncodedString())\n"))
        #expect(text.contains("model: the compiled model cached in Z_MODELCACHE"))
        #expect(text.contains("entity Student : Person"))
    }

    @Test func inspectWithAModelNamesTheEntitiesWhoseHashesDiffer() throws {
        let (url, _) = try CDToolFixture.makeStore()
        let same = try StoreInspection.inspect(storeAt: url, model: CDToolFixture.model())
        #expect(same.compatibility?.isCompatible == true)
        #expect(same.inferredModel == nil)
        #expect(same.text.contains("model: compatible with the store\n"))

        let changed = CDToolFixture.model()
        changed.entitiesByName["Person"]!.properties.append(CDToolFixture.attribute("nickname", .stringAttributeType))
        changed.entities.append(CDToolFixture.entity("Extra", []))
        changed.entities.removeAll { $0.name == "Note" }
        let inspection = try StoreInspection.inspect(storeAt: url, model: changed)
        let compatibility = try #require(inspection.compatibility)
        #expect(!compatibility.isCompatible)
        // A subentity's hash covers its parent's.
        #expect(compatibility.differing == ["Person", "Student"])
        #expect(compatibility.missingFromStore == ["Extra"])
        #expect(compatibility.missingFromModel == ["Note"])
        #expect(
            inspection.text.contains(
                "model: NOT compatible with the store\n  version hashes differ: Person, Student\n  not in the store: Extra\n  not in the model: Note\n"
            ))
    }

    @Test func inspectRejectsBadFilesWithOneLine() throws {
        let directory = testFilesFolder.appendingPathComponent("cdtool-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let missing = directory.appendingPathComponent("missing.sqlite")
        #expect(throws: CDToolError("No store file at \(missing.path)")) {
            try StoreInspection.inspect(storeAt: missing, model: nil)
        }

        let text = directory.appendingPathComponent("text.sqlite")
        try Data("not a database at all, just text that is long enough to have a header".utf8).write(to: text)
        let notSQLite = #expect(throws: CDToolError.self) { try StoreInspection.inspect(storeAt: text, model: nil) }
        #expect(notSQLite?.description.contains("isn't in the correct format") == true)

        let (store, _) = try CDToolFixture.makeStore()
        var bytes = try Data(contentsOf: store)
        for index in stride(from: 100, to: bytes.count, by: 7) { bytes[index] = 0xA5 }
        let corrupt = directory.appendingPathComponent("corrupt.sqlite")
        try bytes.write(to: corrupt)
        let error = #expect(throws: CDToolError.self) { try StoreInspection.inspect(storeAt: corrupt, model: nil) }
        #expect(error?.description.contains("\n") == false)
        #expect(error?.description.isEmpty == false)
    }
}

/// `NSManagedObjectModel.inferred(fromStoreAt:)` against the model that made the store.
@Suite struct SQLiteModelInferenceTests {
    @Test func entitiesAndParentsComeFromZPrimaryKey() throws {
        let (url, _) = try CDToolFixture.makeStore()
        let inferred = try NSManagedObjectModel.inferred(fromStoreAt: url)
        #expect(inferred.entities.compactMap(\.name).sorted() == ["Family", "Note", "Person", "Student", "Tag"])
        #expect(inferred.entitiesByName["Student"]?.superentity?.name == "Person")
        #expect(inferred.entitiesByName["Person"]?.subentities.compactMap(\.name) == ["Student"])
        #expect(inferred.problemsPreventingUse.isEmpty)
    }

    @Test func attributesKeepNamesLowerCasedAndStorageTypes() throws {
        let (url, model) = try CDToolFixture.makeStore()
        let inferred = try NSManagedObjectModel.inferred(fromStoreAt: url)
        let expected: [String: NSAttributeType] = [
            "name": .stringAttributeType, "age": .integer64AttributeType, "birthday": .dateAttributeType,
            "photo": .binaryDataAttributeType, "active": .integer64AttributeType, "score": .doubleAttributeType,
            "identifier": .binaryDataAttributeType, "homepage": .stringAttributeType, "balance": .decimalAttributeType,
        ]
        let person = try #require(inferred.entitiesByName["Person"])
        let own = Dictionary(
            uniqueKeysWithValues: person.properties.compactMap { $0 as? NSAttributeDescription }.map {
                ($0.name, $0.attributeType)
            })
        #expect(own == expected)
        // Every attribute of the original model is there, lower-cased, on its own entity.
        for entity in model.entities {
            let inferredEntity = try #require(inferred.entitiesByName[entity.name!])
            for attribute in entity.properties.compactMap({ $0 as? NSAttributeDescription })
            where attribute.entity === entity {
                let match = inferredEntity.attributesByName[attribute.name.lowercased()]
                #expect(match?.entity === inferredEntity, "\(entity.name!).\(attribute.name)")
            }
        }
        #expect(
            inferred.entitiesByName["Student"]?.properties.filter { $0.entity?.name == "Student" }.map(\.name) == [
                "school"
            ])
    }

    @Test func relationshipsComeFromKeysJoinTablesAndHiddenColumns() throws {
        let (url, _) = try CDToolFixture.makeStore()
        let inferred = try NSManagedObjectModel.inferred(fromStoreAt: url)
        let person = try #require(inferred.entitiesByName["Person"])
        let relationships = person.relationshipsByName

        let family = try #require(relationships["family"])
        #expect(family.destinationEntity?.name == "Family")
        #expect(!family.isToMany)

        let tags = try #require(relationships["tags"])
        #expect(tags.destinationEntity?.name == "Tag")
        #expect(tags.isToMany && tags.isOrdered)
        #expect(tags.inverseRelationship?.name == "people")
        let people = try #require(inferred.entitiesByName["Tag"]?.relationshipsByName["people"])
        #expect(people.isToMany && !people.isOrdered)
        #expect(people.destinationEntity?.name == "Person")
        #expect(people.inverseRelationship === tags)

        let friends = try #require(relationships["friends"])
        #expect(friends.inverseRelationship === friends)
        #expect(friends.destinationEntity?.name == "Person")

        let note = try #require(inferred.entitiesByName["Note"])
        // "owner" names no entity: its keys, all Person rows, tell the destination.
        #expect(note.relationshipsByName["owner"]?.destinationEntity?.name == "Person")
        let links = try #require(note.relationshipsByName["links"])
        #expect(links.isToMany && links.destinationEntity?.name == "Tag" && links.inverseRelationship == nil)
        // A one-to-many's to-many side has no column: it cannot be recovered.
        #expect(inferred.entitiesByName["Family"]?.relationshipsByName["members"] == nil)
        #expect(Set(inferred.entitiesByName["Family"]!.propertiesByName.keys) == ["name"])
    }

    @Test func refusesFilesThatAreNotStores() throws {
        let directory = testFilesFolder.appendingPathComponent(
            "cdtool-infer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let missing = directory.appendingPathComponent("none.sqlite")
        #expect(throws: NSError.self) { try NSManagedObjectModel.inferred(fromStoreAt: missing) }
        let empty = directory.appendingPathComponent("empty.sqlite")
        try Data().write(to: empty)
        let error = #expect(throws: NSError.self) { try NSManagedObjectModel.inferred(fromStoreAt: empty) }
        #expect(error?.code == NSFileReadCorruptFileErrorCode)
    }

    @Test func ignoringVersionHashesOpensAStoreWhoseLayoutFits() throws {
        let (url, _) = try CDToolFixture.makeStore()
        func open(_ model: NSManagedObjectModel, ignoring: Bool) throws {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let options: [AnyHashable: Any] = [
                NSReadOnlyPersistentStoreOption: true, NSIgnorePersistentStoreVersioningOption: ignoring,
            ]
            let store = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
            try coordinator.remove(store)
        }
        // Same layout, other hashes: only the option lets it open.
        let relaxed = CDToolFixture.model()
        relaxed.entitiesByName["Person"]!.attributesByName["name"]!.isOptional = true
        #expect(throws: NSError.self) { try open(relaxed, ignoring: false) }
        try open(relaxed, ignoring: true)
        try open(try NSManagedObjectModel.inferred(fromStoreAt: url), ignoring: true)
        // A column the store lacks still fails.
        let extended = CDToolFixture.model()
        extended.entitiesByName["Tag"]!.properties.append(CDToolFixture.attribute("color", .stringAttributeType))
        let error = #expect(throws: NSError.self) { try open(extended, ignoring: true) }
        #expect(error?.code == NSPersistentStoreIncompatibleSchemaError)
    }
}
