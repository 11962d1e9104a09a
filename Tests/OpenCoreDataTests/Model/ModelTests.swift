import OpenCoreData
import Testing
import OpenCoreDataStoreTestSupport

/// Models as a coordinator sees them: mistakes it refuses, and what it keeps as given.
@Suite struct ModelTests {
    /// The message of the error adding a store with `model` throws (empty, with an issue, when none).
    private func rejection(of model: NSManagedObjectModel, sourceLocation: SourceLocation = #_sourceLocation) -> String
    {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = #expect(throws: NSError.self, sourceLocation: sourceLocation) {
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        }
        #expect(error?.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(coordinator.persistentStores.isEmpty, sourceLocation: sourceLocation)
        return error?.localizedDescription ?? ""
    }

    /// A valid model to break one rule at a time: Owner.items ↔ Item.owner, and a Tag
    /// entity with no properties (plain `NSManagedObject`s).
    private struct Parts {
        let owner = ModelBuilder.entity("Owner", className: "NSManagedObject")
        let item = ModelBuilder.entity("Item", className: "NSManagedObject")
        let tag = ModelBuilder.entity("Tag", className: "NSManagedObject")
        let items: NSRelationshipDescription
        let itemOwner: NSRelationshipDescription
        let model: NSManagedObjectModel

        init() {
            (items, itemOwner) = ModelBuilder.pair("items", from: owner, toMany: true, "owner", to: item, toMany: false)
            owner.properties = [items]
            item.properties = [itemOwner]
            model = ModelBuilder.model(owner, item, tag)
        }
    }

    @Test func inverseThatBelongsToNoEntityIsRejected() {
        let parts = Parts()
        // An inverse never added to Item: it names a relationship Item does not have.
        let stray = NSRelationshipDescription()
        stray.name = "owner"
        stray.destinationEntity = parts.owner
        parts.items.inverseRelationship = stray
        let message = withExtendedLifetime(stray) { rejection(of: parts.model) }
        #expect(
            message.contains("relationship 'Owner.items' has an inverse 'owner' that belongs to no entity"),
            "\(message)")
    }

    @Test func inverseOnAnotherEntityThanTheDestinationIsRejected() {
        let parts = Parts()
        let (_, tagOwner) = ModelBuilder.pair(
            "tags", from: parts.owner, toMany: true, "owner", to: parts.tag, toMany: false)
        parts.tag.properties = [tagOwner]
        parts.items.inverseRelationship = tagOwner
        let message = rejection(of: parts.model)
        #expect(
            message.contains(
                "relationship 'Owner.items' has inverse 'Tag.owner', which is not on its destination 'Item'"),
            "\(message)")
    }

    @Test func inverseWhoseDestinationIsAnotherEntityIsRejected() {
        let parts = Parts()
        parts.itemOwner.destinationEntity = parts.tag
        let message = rejection(of: parts.model)
        #expect(
            message.contains("relationship 'Owner.items' has inverse 'owner', whose destination 'Tag' is not 'Owner'"),
            "\(message)")
    }

    @Test func destinationOutsideTheModelIsRejected() {
        let parts = Parts()
        let outsider = ModelBuilder.entity("Outsider", className: "NSManagedObject")
        let link = NSRelationshipDescription()
        link.name = "outsider"
        link.destinationEntity = outsider
        parts.owner.properties = [parts.items, link]
        let message = withExtendedLifetime(outsider) { rejection(of: parts.model) }
        #expect(
            message.contains("relationship 'Owner.outsider' points to entity 'Outsider', which is not in the model"),
            "\(message)")
    }

    @Test func defaultValueOfTheWrongTypeIsRejected() {
        let parts = Parts()
        parts.owner.properties = [
            parts.items, ModelBuilder.attribute("age", .integer16AttributeType, defaultValue: "seven"),
        ]
        parts.tag.properties = [ModelBuilder.attribute("added", .dateAttributeType, defaultValue: 12)]
        let message = rejection(of: parts.model)
        #expect(
            message.contains("attribute 'Owner.age' has a default value of type String, which is not a"), "\(message)")
        #expect(message.contains("attribute 'Tag.added' has a default value of type Int, which is not a"), "\(message)")
    }

    @Test func theUnbrokenPartsMakeAValidModel() throws {
        let parts = Parts()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: parts.model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
    }

    @Test func userInfoIsKeptAndLeavesTheVersionHashAlone() throws {
        func model(_ tag: String) -> NSManagedObjectModel {
            let entity = ModelBuilder.entity("Setting", className: "NSManagedObject")
            entity.userInfo = ["owner": "settings team", "tag": tag]
            let key = ModelBuilder.attribute("key", .stringAttributeType)
            key.userInfo = ["hint": "dotted.path", "tag": tag]
            entity.properties = [key]
            return ModelBuilder.model(entity)
        }
        let url = temporaryStoreURL()
        let first = model("first")
        let context = try makeContext(first, url: url)
        try context.performAndWait {
            let setting = NSEntityDescription.insertNewObject(forEntityName: "Setting", into: context)
            #expect(setting.entity.userInfo?["owner"] as? String == "settings team")
            #expect(setting.entity.propertiesByName["key"]?.userInfo?["hint"] as? String == "dotted.path")
            setting.setValue("a.b", forKey: "key")
            try context.save()
        }
        // Core Data leaves userInfo out of version hashes, so editing it needs no migration.
        let second = model("second")
        #expect(first.entitiesByName["Setting"]?.versionHash == second.entitiesByName["Setting"]?.versionHash)
        let reopened = try makeContext(second, url: url)
        try reopened.performAndWait {
            let setting = try #require(try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Setting")).first)
            #expect(setting.entity.userInfo?["tag"] as? String == "second")
            #expect(setting.entity.propertiesByName["key"]?.userInfo?["tag"] as? String == "second")
        }
    }

    private func openError(_ model: NSManagedObjectModel, _ url: URL?, type: String = NSSQLiteStoreType) -> NSError? {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        return #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        }
    }

    @Test func namesThatAreNotIdentifiersAndDerivationsOfUnknownKeysAreRefused() {
        let entity = ModelBuilder.entity("Odd Entity", className: "NSManagedObject")
        let spaced = ModelBuilder.attribute("na me", .stringAttributeType)
        let derived = NSDerivedAttributeDescription()
        derived.name = "shout"
        derived.attributeType = .stringAttributeType
        derived.derivationExpression = NSExpression(format: "uppercase:(missing)")
        entity.properties = [spaced, derived]
        let message = openError(ModelBuilder.model(entity), nil, type: NSInMemoryStoreType)?.localizedDescription ?? ""
        #expect(message.contains("entity name 'Odd Entity' is not made of letters, digits and underscores"))
        #expect(message.contains("property name 'Odd Entity.na me' is not made of letters, digits and underscores"))
        #expect(message.contains("derived attribute 'Odd Entity.shout' reads 'missing'"))
    }

    /// Names of NSManagedObject's own members: a generated `@Managed var` with one would not
    /// compile, and key-value coding would read the member instead of the value.
    @Test(arguments: ["faultingState", "hasPersistentChangedValues", "objectID", "isDeleted"])
    func propertyNamesReservedByManagedObjectsAreRefused(_ name: String) {
        let entity = ModelBuilder.entity("Item", className: "NSManagedObject")
        entity.properties = [ModelBuilder.attribute(name, .integer64AttributeType)]
        let message = openError(ModelBuilder.model(entity), nil, type: NSInMemoryStoreType)?.localizedDescription ?? ""
        #expect(message.contains("property 'Item.\(name)' uses a name reserved by NSManagedObject"))
    }

    @Test func aModelInUseCannotBeMerged() throws {
        let model = ModelBuilder.notesModel()
        _ = try makeContext(model, url: nil, type: NSInMemoryStoreType)
        #expect(NSManagedObjectModel(byMerging: [model]) == nil)
        #expect(NSManagedObjectModel(byMerging: [ModelBuilder.notesModel()]) != nil)
    }
}
