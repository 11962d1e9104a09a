import GRDB
@testable import OpenCoreDataCore
import Testing

/// Damaged stores and hostile models found in review: each gives an error, not a trap.
@Suite struct StoreAndModelHardeningTests {
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

    @Test func anEntityNameStoredAsABlobIsAnErrorNotATrap() throws {
        let url = temporaryStoreURL()
        _ = try makeContext(ModelBuilder.notesModel(), url: url)
        try alterStore(url, "UPDATE Z_PRIMARYKEY SET Z_NAME = X'00FF' WHERE Z_NAME = 'Note'")
        try alterStore(url, "UPDATE Z_METADATA SET Z_UUID = X'01'")
        let error = openError(ModelBuilder.notesModel(), url)
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
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        }
        #expect(error?.localizedDescription.contains("column ZTAG.ZTITLE is VARCHAR in the store, INTEGER in the model") == true)
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

    @Test func negativeOffsetsAndHugeLimitsInMemory() throws {
        let context = try makeContext(ModelBuilder.notesModel(), url: nil, type: NSInMemoryStoreType)
        try context.performAndWait {
            for title in ["a", "b", "c"] { NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context).setValue(title, forKey: "title") }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            request.fetchOffset = -3
            let all = try context.fetch(request)
            request.fetchOffset = 1
            request.fetchLimit = .max
            let rest = try context.fetch(request)
            #expect(all.count == 3)
            #expect(rest.count == 2)
        }
    }

    @Test func aModelInUseCannotBeMerged() throws {
        let model = ModelBuilder.notesModel()
        _ = try makeContext(model, url: nil, type: NSInMemoryStoreType)
        #expect(NSManagedObjectModel(byMerging: [model]) == nil)
        #expect(NSManagedObjectModel(byMerging: [ModelBuilder.notesModel()]) != nil)
    }
}
