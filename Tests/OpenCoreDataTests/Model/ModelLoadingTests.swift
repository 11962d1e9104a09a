import GRDB
@testable import OpenCoreDataCore
import OpenCoreDataTestSupport
import Testing

/// The model files the loader's tests read (Tests/OpenCoreDataTests/Fixtures).
enum ModelFixtures {
    static func url(_ name: String) throws -> URL {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return fixtures.appendingPathComponent(name)
    }

    static func load(_ name: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: url(name))
    }

    /// A fresh folder for models written by a test.
    static func temporaryFolder() throws -> URL {
        let folder = testFilesFolder.appendingPathComponent("ModelLoadingTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes `body` (entity and other elements) into `Broken.xcdatamodel/contents`;
    /// the body starts on line 3.
    static func write(_ body: String, header: Bool = true) throws -> URL {
        let folder = try temporaryFolder().appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text =
            header
            ? "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\" documentVersion=\"1.0\">\n\(body)\n</model>\n"
            : body
        try Data(text.utf8).write(to: folder.appendingPathComponent("contents"))
        return folder
    }
}

/// The predicate tests' seeded generator drives the loader's fuzzing too, so a failure replays.
extension SplitMix64: RandomNumberGenerator {}

@Suite struct ModelLoadingTests {
    // MARK: Every element of a modern model

    @Test func modernModelLoadsEntitiesAndInheritance() throws {
        let model = try ModelFixtures.load("Modern.xcdatamodel")
        #expect(model.entities.compactMap(\.name) == ["Base", "Item", "Label", "Owner", "Pet"])
        #expect(model.versionIdentifiers == ["modern-1"])
        let base = try #require(model.entitiesByName["Base"])
        let item = try #require(model.entitiesByName["Item"])
        #expect(base.isAbstract && !item.isAbstract)
        #expect(item.superentity === base && base.subentities.map(\.name) == ["Item"])
        #expect(item.managedObjectClassName == "Item")
        #expect(base.codeGenerationType == "class" && item.codeGenerationType == "category")
        #expect(model.entitiesByName["Label"]?.codeGenerationType == nil)
        #expect(base.versionHashModifier == "b1" && base.renamingIdentifier == "OldBase")
        #expect(item.userInfo?["kind"] as? String == "thing")
        #expect(item.propertiesByName["createdAt"]?.entity === base, "inherited properties stay their ancestor's")
    }

    @Test func modernModelLoadsEveryAttributeType() throws {
        // Keep the model: entities reference their superentity weakly, as Core Data's do.
        let model = try ModelFixtures.load("Modern.xcdatamodel")
        let item = try #require(model.entitiesByName["Item"])
        let attributes = item.attributesByName
        let types = attributes.mapValues(\.attributeType)
        #expect(types["small"] == .integer16AttributeType && types["medium"] == .integer32AttributeType)
        #expect(types["count"] == .integer64AttributeType && types["price"] == .decimalAttributeType)
        #expect(types["score"] == .doubleAttributeType && types["rating"] == .floatAttributeType)
        #expect(types["name"] == .stringAttributeType && types["flag"] == .booleanAttributeType)
        #expect(types["due"] == .dateAttributeType && types["data"] == .binaryDataAttributeType)
        #expect(types["uuid"] == .UUIDAttributeType && types["homepage"] == .URIAttributeType)
        #expect(types["tags"] == .transformableAttributeType && types["link"] == .objectIDAttributeType)

        #expect(attributes["small"]?.defaultValue as? Int16 == 7)
        #expect(attributes["medium"]?.defaultValue as? Int32 == -70000)
        #expect(attributes["count"]?.defaultValue as? Int64 == 1)
        #expect(attributes["price"]?.defaultValue as? Decimal == Decimal(string: "9.99"))
        #expect(attributes["rating"]?.defaultValue as? Float == 2.5)
        #expect(attributes["flag"]?.defaultValue as? Bool == true)
        #expect(attributes["name"]?.defaultValue as? String == "untitled")
        #expect(attributes["createdAt"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 700_000_000))
        #expect(attributes["uuid"]?.defaultValue as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))

        let name = try #require(attributes["name"])
        #expect(!name.isOptional && name.isIndexed && name.isIndexedBySpotlight)
        #expect(name.preservesValueInHistoryOnDeletion && name.allowsCloudEncryption)
        #expect(name.renamingIdentifier == "title" && name.versionHashModifier == "n2")
        #expect(name.userInfo?["help"] as? String == "the item's name")
        #expect(name.validationPredicates.map(\.predicateFormat) == ["length >= 3", "length <= 20"])
        #expect(attributes["count"]?.validationPredicates.map(\.predicateFormat) == ["SELF >= 0", "SELF <= 100"])
        #expect(attributes["code"]?.validationPredicates.map(\.predicateFormat) == ["SELF MATCHES \"[A-Z]{3}[0-9]+\""])
        #expect(attributes["due"]?.validationPredicates.count == 2)
        #expect(attributes["count"]?.usesScalarValueType == true && attributes["price"]?.usesScalarValueType == false)
        #expect(attributes["data"]?.allowsExternalBinaryDataStorage == true)
        #expect(attributes["tags"]?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(attributes["tags"]?.attributeValueClassName == "[String]")
        #expect(attributes["scratch"]?.isTransient == true && attributes["code"]?.isOptional == true)
        let derived = try #require(attributes["nameLower"] as? NSDerivedAttributeDescription)
        #expect(derived.derivationExpression?.description == "lowercase:(name)")
    }

    @Test func modernModelLoadsRelationshipsAndFetchedProperties() throws {
        let model = try ModelFixtures.load("Modern.xcdatamodel")
        let item = try #require(model.entitiesByName["Item"])
        let owner = try #require(model.entitiesByName["Owner"])
        let relationships = owner.relationshipsByName
        let items = try #require(relationships["items"])
        #expect(items.isToMany && items.isOrdered && items.maxCount == 10 && items.deleteRule == .cascadeDeleteRule)
        #expect(items.destinationEntity === item && items.inverseRelationship === item.relationshipsByName["owner"])
        #expect(item.relationshipsByName["owner"]?.inverseRelationship === items)
        #expect(item.relationshipsByName["owner"]?.isToMany == false)
        #expect(relationships["pets"]?.deleteRule == .denyDeleteRule)
        #expect(
            relationships["favorite"]?.deleteRule == .noActionDeleteRule
                && relationships["favorite"]?.inverseRelationship == nil)
        let petOwner = try #require(model.entitiesByName["Pet"]?.relationshipsByName["owner"])
        #expect(!petOwner.isOptional && petOwner.minCount == 1)
        #expect(item.relationshipsByName["labels"]?.inverseRelationship?.entity?.name == "Label")

        let siblings = try #require(item.propertiesByName["siblings"] as? NSFetchedPropertyDescription)
        #expect(siblings.fetchRequest?.entityName == "Item")
        #expect(
            siblings.fetchRequest?.predicate?.predicateFormat
                == "owner == $FETCH_SOURCE.owner AND SELF != $FETCH_SOURCE")
        #expect(
            siblings.isTransient && item.attributesByName["siblings"] == nil
                && item.relationshipsByName["siblings"] == nil)
    }

    @Test func modernModelLoadsConstraintsIndexesTemplatesAndConfigurations() throws {
        let model = try ModelFixtures.load("Modern.xcdatamodel")
        let item = try #require(model.entitiesByName["Item"])
        #expect(item.uniquenessConstraints.map { $0.compactMap { $0 as? String } } == [["code"]])
        let index = try #require(item.indexes.first)
        #expect(item.indexes.count == 1 && index.name == "byOwnerAndName" && index.entity === item)
        #expect(index.elements.map(\.propertyName) == ["owner", "name"])
        #expect(index.elements.map(\.isAscending) == [true, false])
        #expect(index.elements.allSatisfy { $0.collationType == .binary && $0.indexDescription === index })
        #expect(index.elements.first?.property === item.propertiesByName["owner"])

        #expect(model.fetchRequestTemplatesByName.keys.sorted() == ["AllOwners", "CheapItems", "ItemsNamed"])
        let named = try #require(model.fetchRequestTemplate(forName: "ItemsNamed"))
        #expect(named.entity === item && named.fetchLimit == 5 && named.fetchBatchSize == 20)
        #expect(!named.includesSubentities && !named.includesPendingChanges && !named.returnsObjectsAsFaults)
        #expect(named.returnsDistinctResults && named.includesPropertyValues)
        #expect(model.fetchRequestTemplate(forName: "CheapItems")?.resultType == .dictionaryResultType)

        #expect(model.configurations == ["Catalog", "People"])
        #expect(model.entities(forConfigurationName: "People")?.compactMap(\.name) == ["Owner", "Pet"])
    }

    // MARK: Behaviour of loaded models

    @Test func loadedModelOpensStoreSavesAndFetches() throws {
        let model = try ModelFixtures.load("Modern.xcdatamodel")
        let url = temporaryStoreURL("Modern")
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
            owner.setValue("Ada", forKey: "name")
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
            pet.setValue("Rex", forKey: "name")
            pet.setValue(owner, forKey: "owner")
            let label = NSEntityDescription.insertNewObject(forEntityName: "Label", into: context)
            label.setValue("red", forKey: "title")
            for (index, name) in ["Lamp", "Desk"].enumerated() {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                #expect(item.value(forKey: "count") as? NSNumber == 1, "model defaults apply")
                #expect(item.value(forKey: "name") as? String == "untitled")
                item.setValue(name, forKey: "name")
                item.setValue("ABC\(index)", forKey: "code")
                item.setValue(owner, forKey: "owner")
                item.setValue(NSSet(object: label), forKey: "labels")
                item.setValue(["a", "b"], forKey: "tags")
            }
            try context.save()
        }
        let reader = try makeContext(model, url: url)
        try reader.performAndWait {
            let items = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            #expect(Set(items.compactMap { $0.value(forKey: "name") as? String }) == ["Lamp", "Desk"])
            #expect(
                Set(items.compactMap { $0.value(forKey: "nameLower") as? String }) == ["lamp", "desk"],
                "derived at save")
            let owner = try #require(reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Owner")).first)
            #expect(owner.value(forKey: "itemCount") as? NSNumber == 2, "derived from the relationship")
            #expect((owner.value(forKey: "items") as? NSOrderedSet)?.count == 2)
            let lamp = try #require(items.first { $0.value(forKey: "name") as? String == "Lamp" })
            #expect(lamp.value(forKey: "tags") as? [String] == ["a", "b"])
            let siblings = lamp.value(forKey: "siblings") as? [NSManagedObject]
            #expect(
                siblings?.compactMap { $0.value(forKey: "name") as? String } == ["Desk"],
                "fetched property runs its request")
            #expect(lamp.changedValues().isEmpty, "a fetched property is not a change")
        }
    }

    @Test func fetchIndexesAndIndexedAttributesAreInTheSchema() throws {
        let url = temporaryStoreURL("Indexes")
        _ = try makeContext(ModelFixtures.load("Modern.xcdatamodel"), url: url)
        let db = try DatabaseQueue(path: url.path)
        let indexes = try db.read { db in
            try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZBASE'")
                .map { ($0[0] as String, $0[1] as String? ?? "") }
        }
        let byName = Dictionary(indexes, uniquingKeysWith: { first, _ in first })
        #expect(
            byName["Z_Item_byOwnerAndName"]
                == "CREATE INDEX \"Z_Item_byOwnerAndName\" ON ZBASE (ZOWNER COLLATE BINARY ASC, ZNAME COLLATE BINARY DESC)"
        )
        #expect(byName["ZBASE_ZNAME_INDEX"] != nil, "indexed=\"YES\" still indexes its column")
    }

    @Test func templatesSubstituteVariablesInACopy() throws {
        let model = try ModelFixtures.load("Modern.xcdatamodel")
        let request = try #require(
            model.fetchRequestFromTemplate(withName: "ItemsNamed", substitutionVariables: ["NAME": "Lamp"]))
        #expect(request.predicate?.predicateFormat == "name == \"Lamp\"")
        #expect(
            model.fetchRequestTemplate(forName: "ItemsNamed")?.predicate?.predicateFormat == "name == $NAME",
            "the template is unchanged")
        request.fetchLimit = 1
        #expect(model.fetchRequestTemplate(forName: "ItemsNamed")?.fetchLimit == 5, "requests handed out are copies")
        #expect(model.fetchRequestFromTemplate(withName: "Missing", substitutionVariables: [:]) == nil)

        let context = try makeContext(model)
        try context.performAndWait {
            for name in ["Lamp", "Desk"] {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(name, forKey: "name")
            }
            try context.save()
            let found = try context.fetch(request) as! [NSManagedObject]
            #expect(found.compactMap { $0.value(forKey: "name") as? String } == ["Lamp"])
            let unbound = try #require(model.fetchRequestTemplate(forName: "ItemsNamed"))
            #expect(throws: NSError.self) { try context.fetch(unbound) }
        }
    }

    @Test func settingAndRemovingTemplatesInCode() throws {
        let model = try ModelFixtures.load("Xcode4.xcdatamodel")
        let request = NSFetchRequest<NSManagedObject>(entityName: "Athlete")
        request.predicate = NSPredicate(format: "name BEGINSWITH $PREFIX")
        model.setFetchRequestTemplate(request, forName: "ByPrefix")
        request.fetchLimit = 3
        #expect(model.fetchRequestTemplate(forName: "ByPrefix")?.fetchLimit == 0, "the model keeps a copy")
        let bound = model.fetchRequestFromTemplate(withName: "ByPrefix", substitutionVariables: ["PREFIX": "Jo"])
        #expect(bound?.predicate?.predicateFormat == "name BEGINSWITH \"Jo\"")
        model.setFetchRequestTemplate(nil as NSFetchRequest<NSManagedObject>?, forName: "ByPrefix")
        #expect(model.fetchRequestTemplate(forName: "ByPrefix") == nil)
    }

    @Test func minMaxAndPatternsFromTheFileRejectBadValuesOnSave() throws {
        let context = try makeContext(ModelFixtures.load("Modern.xcdatamodel"))
        try context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            let cases: [(key: String, bad: Any, good: Any, code: Int)] = [
                ("name", "ab", "abc", NSValidationStringTooShortError),
                ("name", String(repeating: "x", count: 21), "Lamp", NSValidationStringTooLongError),
                ("count", 101, 100, NSValidationNumberTooLargeError),
                ("count", -1, 0, NSValidationNumberTooSmallError),
                ("rating", 5.5, 4.5, NSValidationNumberTooLargeError),
                ("code", "abc1", "ABC1", NSValidationStringPatternMatchingError),
                (
                    "due", Date(timeIntervalSinceReferenceDate: 2_000_000_000),
                    Date(timeIntervalSinceReferenceDate: 10), NSValidationDateTooLateError
                ),
                (
                    "due", Date(timeIntervalSinceReferenceDate: -5), Date(timeIntervalSinceReferenceDate: 10),
                    NSValidationDateTooSoonError
                ),
                // A `length` rule reports the string code whatever the value, as it does for strings.
                ("data", Data(count: 65), Data(count: 64), NSValidationStringTooLongError),
            ]
            for (key, bad, good, code) in cases {
                item.setValue(bad, forKey: key)
                let error = #expect(throws: NSError.self, "\(key) = \(bad)") { try context.save() }
                #expect(error?.code == code, "\(key) = \(bad)")
                #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == key)
                item.setValue(good, forKey: key)
            }
            try context.save()
        }
    }

    // MARK: Xcode 4 style, bundles, composites

    @Test func xcode4StyleModelLoadsAndWorks() throws {
        let model = try ModelFixtures.load("Xcode4.xcdatamodel")
        #expect(model.versionIdentifiers.isEmpty, "an empty userDefinedModelVersionIdentifier is none")
        let player = try #require(model.entitiesByName["Player"])
        #expect(player.superentity?.name == "Athlete" && player.codeGenerationType == nil)
        #expect(
            player.indexes.map { $0.elements.compactMap(\.propertyName) } == [["salary", "age"]],
            "compound indexes become fetch indexes")
        #expect(player.relationshipsByName["squad"]?.minCount == 1)
        #expect(model.entitiesByName["Athlete"]?.attributesByName["age"]?.defaultValue as? Int16 == 0)

        let url = temporaryStoreURL("Xcode4")
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let squad = NSEntityDescription.insertNewObject(forEntityName: "Squad", into: context)
            squad.setValue("Veterans", forKey: "name")
            for (name, age) in [("Old", 64), ("Young", 25)] {
                let member = NSEntityDescription.insertNewObject(forEntityName: "Player", into: context)
                member.setValue(name, forKey: "name")
                member.setValue(age, forKey: "age")
                member.setValue(squad, forKey: "squad")
            }
            try context.save()
            let seniors = squad.value(forKey: "seniors") as? [NSManagedObject]
            #expect(seniors?.compactMap { $0.value(forKey: "name") as? String } == ["Old"])
            let older = try #require(
                model.fetchRequestFromTemplate(withName: "AthletesOlderThan", substitutionVariables: ["AGE": 30]))
            #expect(try context.fetch(older).count == 1)
        }
        let db = try DatabaseQueue(path: url.path)
        let compound = try db.read {
            try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'Z_Player_Player_compoundIndex_1'")
        }
        #expect(compound?.contains("ZSALARY COLLATE BINARY ASC, ZAGE COLLATE BINARY ASC") == true)
    }

    @Test func bundleLoadsTheCurrentVersionAndListsEveryVersion() throws {
        let bundle = try ModelFixtures.url("Library.xcdatamodeld")
        let current = try NSManagedObjectModel.load(contentsOf: bundle)
        #expect(current.entities.compactMap(\.name) == ["Author", "Book"])
        #expect(NSManagedObjectModel(contentsOf: bundle)?.versionIdentifiers == ["2"])

        let versions = try NSManagedObjectModel.versions(in: bundle)
        #expect(versions.versionNames == ["Library", "Library 2"])
        #expect(versions.currentVersionName == "Library 2")
        #expect(versions.currentModel.versionIdentifiers == ["2"])
        #expect(versions.modelsByVersionName["Library"]?.entities.compactMap(\.name) == ["Book"])

        let folder = bundle.appendingPathComponent("Library.xcdatamodel")
        #expect(NSManagedObjectModel(contentsOf: folder)?.versionIdentifiers == ["1"])
        #expect(
            NSManagedObjectModel(contentsOf: folder.appendingPathComponent("contents"))?.versionIdentifiers == ["1"])
    }

    @Test func bundleWithoutCurrentVersionFileTakesTheLastVersionByName() throws {
        let copy = try ModelFixtures.temporaryFolder().appendingPathComponent("Library.xcdatamodeld")
        try FileManager.default.copyItem(at: ModelFixtures.url("Library.xcdatamodeld"), to: copy)
        try FileManager.default.removeItem(at: copy.appendingPathComponent(".xccurrentversion"))
        try FileManager.default.copyItem(
            at: copy.appendingPathComponent("Library.xcdatamodel"),
            to: copy.appendingPathComponent("Library 10.xcdatamodel"))
        let versions = try NSManagedObjectModel.versions(in: copy)
        #expect(versions.versionNames == ["Library", "Library 2", "Library 10"])
        #expect(versions.currentVersionName == "Library 10")
        #expect(try NSManagedObjectModel.load(contentsOf: copy).versionIdentifiers == ["1"])
    }

    @Test func compositeAttributesLoadAndAStoreTakesThem() throws {
        let model = try ModelFixtures.load("Composite.xcdatamodel")
        let address = try #require(
            model.entitiesByName["Place"]?.attributesByName["address"] as? NSCompositeAttributeDescription)
        #expect(address.attributeType == .compositeAttributeType)
        #expect(address.elements.map(\.name) == ["city", "street", "zip"])
        #expect(address.elements.last?.attributeType == .integer32AttributeType)
        #expect(model.problemsPreventingUse.isEmpty)
        _ = try makeContext(model)
    }

    @Test func undefinedAndTransientAttributesLoad() throws {
        let folder = try ModelFixtures.write(
            """
            <entity name="Thing">
                <attribute name="anything" optional="YES" transient="YES" attributeType="Undefined"/>
                <attribute name="legacy" optional="YES"/>
            </entity>
            """)
        let thing = try #require(NSManagedObjectModel.load(contentsOf: folder).entitiesByName["Thing"])
        #expect(thing.attributesByName["anything"]?.attributeType == .undefinedAttributeType)
        #expect(thing.attributesByName["anything"]?.isTransient == true)
        #expect(thing.attributesByName["legacy"]?.attributeType == .undefinedAttributeType)
    }

    // MARK: Errors

    static let brokenModels: [(body: String, message: String)] = [
        (
            """
            <entity name="Item">
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="items" inverseEntity="Owner"/>
            </entity>
            <entity name="Owner"/>
            """,
            "line 4: <relationship name=\"owner\"> in entity Item names inverse 'items' that entity Owner does not have"
        ),
        (
            """
            <entity name="Item">
                <attribute name="size" attributeType="Integer 128"/>
            </entity>
            """,
            "line 4: <attribute name=\"size\"> in entity Item has attributeType \"Integer 128\", which is not a Core Data attribute type (Binary, Boolean, Composite, Date, Decimal, Double, Float, Integer 16, Integer 32, Integer 64, ObjectID, String, Transformable, URI, UUID, Undefined)"
        ),
        (
            "<entity name=\"Item\" parentEntity=\"Thing\"/>",
            "line 3: <entity name=\"Item\"> names parent entity 'Thing' that the model does not have"
        ),
        (
            """
            <entity name="Item">
                <relationship name="owner" maxCount="1" destinationEntity="Owner"/>
            </entity>
            """,
            "line 4: <relationship name=\"owner\"> in entity Item names destination entity 'Owner' that the model does not have"
        ),
        (
            "<entity name=\"Item\"/>\n<entity name=\"Item\"/>",
            "line 4: <entity name=\"Item\"> repeats the entity name 'Item' (first declared on line 3)"
        ),
        (
            """
            <entity name="Item">
                <attribute name="name" attributeType="String"/>
                <relationship name="name" maxCount="1" destinationEntity="Item"/>
            </entity>
            """,
            "line 5: <relationship name=\"name\"> in entity Item repeats the property name 'name' (first declared on line 4)"
        ),
        (
            """
            <entity name="Item"/>
            <fetchRequest name="Broken" entity="Item" predicateString="name == == 3"/>
            """, "line 4: <fetchRequest name=\"Broken\"> has predicateString \"name == == 3\" that does not parse"
        ),
        (
            """
            <entity name="Item">
                <attribute name="count" attributeType="Integer 32" minValueString="ten"/>
            </entity>
            """, "line 4: <attribute name=\"count\"> in entity Item has minValueString=\"ten\", which is not a number"
        ),
        (
            """
            <entity name="Item">
                <attribute name="count" attributeType="Integer 16" defaultValueString="70000"/>
            </entity>
            """,
            "line 4: <attribute name=\"count\"> in entity Item has defaultValueString \"70000\", which is not a valid Integer 16 value"
        ),
        (
            """
            <entity name="Item">
                <widget name="knob"/>
            </entity>
            """, "line 4: <widget name=\"knob\"> is not an element Core Data models have inside <entity>"
        ),
        (
            "<entity name=\"Item\">\n<attribute name=\"a\" attributeType=\"String\">\n</entity>",
            "line 5: is not well-formed XML"
        ),
        (
            "<entity name=\"A\" parentEntity=\"B\"/>\n<entity name=\"B\" parentEntity=\"A\"/>",
            "line 3: <entity name=\"A\"> inherits from itself (entity A is among its own parent entities)"
        ),
        (
            """
            <entity name="Item">
                <relationship name="owner" maxCount="1" deletionRule="Explode" destinationEntity="Item"/>
            </entity>
            """,
            "line 4: <relationship name=\"owner\"> in entity Item has deletionRule \"Explode\", which is not Nullify, Cascade, Deny or No Action"
        ),
        (
            """
            <entity name="Item">
                <attribute name="owner" attributeType="String"/>
                <relationship name="other" maxCount="1" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
            </entity>
            """,
            "line 5: <relationship name=\"other\"> in entity Item names inverse 'owner', which is not a relationship of entity Item"
        ),
        (
            """
            <entity name="Base">
                <attribute name="name" attributeType="String"/>
            </entity>
            <entity name="Item" parentEntity="Base">
                <attribute name="name" attributeType="String"/>
            </entity>
            """,
            "line 7: <attribute name=\"name\"> in entity Item repeats the property 'name' that it inherits from entity Base"
        ),
        (
            """
            <entity name="Item">
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="code"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
            </entity>
            """,
            "line 6: <constraint value=\"code\"> in entity Item names property 'code' that entity Item does not have"
        ),
        (
            """
            <entity name="Item">
                <fetchIndex name="byCode">
                    <fetchIndexElement property="code" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            """,
            "line 5: <fetchIndexElement property=\"code\"> in entity Item names property 'code' that entity Item does not have"
        ),
        (
            """
            <entity name="Item"/>
            <configuration name="Main">
                <memberEntity name="Other"/>
            </configuration>
            """,
            "line 5: <memberEntity name=\"Other\"> in configuration Main names entity 'Other' that the model does not have"
        ),
        (
            """
            <entity name="Item">
                <attribute name="lower" attributeType="String" derived="YES" derivationExpression="lowercase:(title)"/>
            </entity>
            """,
            "line 4: <attribute name=\"lower\"> in entity Item derives its value from 'title', which entity Item does not have"
        ),
        (
            """
            <entity name="Item">
                <attribute name="address" attributeType="Composite" composite="Address"/>
            </entity>
            """,
            "line 4: <attribute name=\"address\"> in entity Item names composite 'Address' that the model does not define"
        ),
        (
            """
            <entity name="Item">
                <attribute name="name" optional="maybe" attributeType="String"/>
            </entity>
            """, "line 4: <attribute name=\"name\"> in entity Item has optional=\"maybe\", which is not YES or NO"
        ),
        (
            "<entity name=\"Line Item\"/>",
            "line 3: <entity name=\"Line Item\"> has name 'Line Item', which is not a valid name (letters, digits and underscores, not starting with a digit)"
        ),
        (
            """
            <entity name="Item">
                <attribute name="code" attributeType="String" regularExpressionString="[A-"/>
            </entity>
            """,
            "line 4: <attribute name=\"code\"> in entity Item has regularExpressionString \"[A-\", which is not a valid regular expression"
        ),
        (
            """
            <entity name="Item">
                <fetchedProperty name="others">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Nothing"/>
                </fetchedProperty>
            </entity>
            """,
            "line 5: <fetchRequest name=\"fetchedPropertyFetchRequest\"> in entity Item names entity 'Nothing' that the model does not have"
        ),
        (
            """
            <entity name="Item">
                <attribute name="description" attributeType="String"/>
            </entity>
            """,
            "line 4: <attribute name=\"description\"> in entity Item uses the name 'description', which NSManagedObject reserves"
        ),
        (
            "<entity name=\"Item\"/>\n<fetchRequest name=\"All\" entity=\"Item\" fetchLimit=\"-2\"/>",
            "line 4: <fetchRequest name=\"All\"> has fetchLimit=\"-2\", which is not a whole number of at least 0"
        ),
        ("<entity>\n</entity>", "line 3: <entity> has no name"),
        (
            "<entity name=\"Item\"/>\n<fetchRequest name=\"All\" entity=\"Item\"/>\n<fetchRequest name=\"All\" entity=\"Item\"/>",
            "line 5: <fetchRequest name=\"All\"> repeats the fetch request template name 'All'"
        ),
    ]

    @Test(arguments: brokenModels.indices) func brokenModelsThrowNamingFileLineAndElement(_ index: Int) throws {
        let (body, message) = Self.brokenModels[index]
        let folder = try ModelFixtures.write(body)
        let error = #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: folder) }
        let text = error?.description ?? ""
        #expect(text.hasPrefix("Broken.xcdatamodel/contents " + message), "\(text)")
        #expect(error?.fileURL.lastPathComponent == "contents")
        #expect(error?.localizedDescription == text)
        #expect(NSManagedObjectModel(contentsOf: folder) == nil)
    }

    @Test func wrongRootMissingFilesAndBadCurrentVersionThrow() throws {
        let plist = try ModelFixtures.write(
            "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>", header: false)
        #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: plist) }
        let rootError = try? NSManagedObjectModel.load(contentsOf: plist)
        #expect(rootError == nil)
        do {
            _ = try NSManagedObjectModel.load(contentsOf: plist)
        } catch let error as ModelLoadingError {
            #expect(
                error.description
                    == "Broken.xcdatamodel/contents line 2: <plist> is not a Core Data model (its root element must be <model>)"
            )
        }

        let missing = FileManager.default.temporaryDirectory.appendingPathComponent(
            "Nowhere-\(UUID().uuidString).xcdatamodel")
        let missingError = #expect(throws: ModelLoadingError.self) {
            try NSManagedObjectModel.load(contentsOf: missing)
        }
        #expect(missingError?.description.hasSuffix(".xcdatamodel: does not exist") == true)

        let empty = try ModelFixtures.write("", header: false)
        #expect(
            #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: empty) }?.reason
                .contains("XML") == true)

        let copy = try ModelFixtures.temporaryFolder().appendingPathComponent("Library.xcdatamodeld")
        try FileManager.default.copyItem(at: ModelFixtures.url("Library.xcdatamodeld"), to: copy)
        let plistText = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Library 3.xcdatamodel</string></dict></plist>
            """
        try Data(plistText.utf8).write(to: copy.appendingPathComponent(".xccurrentversion"))
        let versionError = #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: copy) }
        #expect(
            versionError?.description
                == ".xccurrentversion: names current version 'Library 3.xcdatamodel', which the bundle does not have (versions: Library, Library 2)"
        )
    }

    @Test func errorsInABundleVersionNameTheBundle() throws {
        let copy = try ModelFixtures.temporaryFolder().appendingPathComponent("Library.xcdatamodeld")
        try FileManager.default.copyItem(at: ModelFixtures.url("Library.xcdatamodeld"), to: copy)
        let contents = copy.appendingPathComponent("Library.xcdatamodel/contents")
        try Data("<model>\n<entity name=\"Book\" parentEntity=\"Nothing\"/>\n</model>".utf8).write(to: contents)
        #expect(NSManagedObjectModel(contentsOf: copy) != nil, "the current version still loads")
        let error = #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.versions(in: copy) }
        #expect(
            error?.description
                == "Library.xcdatamodeld/Library.xcdatamodel/contents line 2: <entity name=\"Book\"> names parent entity 'Nothing' that the model does not have"
        )
    }

    // MARK: Hostile sizes

    @Test func deeplyNestedElementsAreRefusedNotACrash() throws {
        // 30,000 levels overflowed the stack when the element tree was released.
        let depth = 30_000
        let body = String(repeating: "<entity>", count: depth) + String(repeating: "</entity>", count: depth)
        let folder = try ModelFixtures.write(body)
        let error = #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: folder) }
        #expect(
            error?.description
                == "Broken.xcdatamodel/contents line 3: nests elements more than \(ModelXMLDocument.maximumDepth) levels deep, which model files do not"
        )
        let nested = String(repeating: "<entity>", count: 40) + String(repeating: "</entity>", count: 40)
        let shallow = #expect(throws: ModelLoadingError.self) {
            try NSManagedObjectModel.load(contentsOf: ModelFixtures.write(nested))
        }
        #expect(shallow?.reason.contains("nests") == false, "ordinary depths reach the model checks")
    }

    @Test func processingInstructionsAreRefusedNotACrash() throws {
        // Found by Fuzz/run-model-fuzz.sh: FoundationXML crashed on a processing instruction without data.
        for text in [
            "<?xml version=\"1.0\"?>\n<model><?x?></model>", "<?xm?>\n<model/>", "<?xml?>\n<model/>",
            "<model/><?pi data?>",
            // A declaration cut short: the instruction after it looked like part of it.
            "<?xml vea(=\"Yo>\n<rt\trEnit<?srn?>\ny",
        ] {
            let folder = try ModelFixtures.write(text, header: false)
            let error = #expect(throws: ModelLoadingError.self) { try NSManagedObjectModel.load(contentsOf: folder) }
            #expect(
                error?.description
                    == "Broken.xcdatamodel/contents: has a processing instruction, which model files do not have",
                "\(text)")
        }
        let declared = try ModelFixtures.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model/>", header: false)
        #expect(try NSManagedObjectModel.load(contentsOf: declared).entities.isEmpty)
    }

    // MARK: Fuzzing

    static let hostileValues = [
        "", "YES", "NO", "-1", "0", "1", "99999999999999999999", "1e400", "nan", "Item", "Owner", "Base",
        "$X", "name", "owner", "items", "Integer 128", "Undefined", "Composite", "a b", "&amp;", "SELF",
        "name ==", "lowercase:(", "@count", "RTree", "descending", "Cascade", "9.99", "\u{0}",
    ]

    static func mutate(_ bytes: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
            let position = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...40, using: &random)))
            case 1:
                let end = min(bytes.count, position + Int.random(in: 1...200, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0...bytes.count, using: &random))
            case 2:
                bytes.swapAt(position, Int.random(in: 0..<bytes.count, using: &random))
            case 3:
                bytes.removeSubrange(position...)
            case 4:
                bytes[position] = UInt8.random(in: 0...255, using: &random)
            default:
                // Replace the value of an XML attribute that starts after `position`.
                guard let quote = bytes[position...].firstIndex(of: UInt8(ascii: "\"")),
                    let close = bytes[(quote + 1)...].firstIndex(of: UInt8(ascii: "\""))
                else { continue }
                let value = hostileValues.randomElement(using: &random) ?? ""
                bytes.replaceSubrange((quote + 1)..<close, with: Array(value.utf8))
            }
        }
        return bytes
    }

    @Test func fuzzedModelsThrowOrLoadButNeverCrash() throws {
        let originals = try ["Modern.xcdatamodel", "Xcode4.xcdatamodel", "Composite.xcdatamodel"].map {
            try [UInt8](Data(contentsOf: ModelFixtures.url($0).appendingPathComponent("contents")))
        }
        var random = SplitMix64(seed: 0x5EED_CAFE)
        let loader = ModelFileLoader(contentsFile: URL(fileURLWithPath: "/fuzz/Fuzz.xcdatamodel/contents"))
        let deadline = Date().addingTimeInterval(8)
        var loaded = 0, refused = 0, storesOpened = 0
        for iteration in 0..<5000 where Date() < deadline {
            let original = originals[iteration % originals.count]
            let mutated = Self.mutate(original, using: &random)
            let model = NSManagedObjectModel()
            do {
                try loader.load(Data(mutated), into: model)
                loaded += 1
            } catch let error as ModelLoadingError {
                #expect(error.description.hasPrefix("Fuzz.xcdatamodel/contents"))
                refused += 1
                continue
            }
            // A model that loads must also be safe to check and, when valid, to open.
            if ModelValidator.problems(in: model).isEmpty, storesOpened < 300 {
                storesOpened += 1
                _ = try? makeContext(model, url: nil, type: NSInMemoryStoreType)
            }
        }
        #expect(loaded > 0 && refused > 0, "the mutations reach both outcomes (\(loaded) loaded, \(refused) refused)")
    }
}
