import Foundation
import OpenCoreData
import Testing

/// Model shapes Xcode writes and Core Data accepts (issue 37): every derivation function
/// Core Data documents, transient attributes without a type, and `ordered` on a to-one.
/// The fixture is `Fixtures/Shapes.xcdatamodel`, in Xcode's format.
@Suite struct ModelShapesTests {
    private func shapes() throws -> NSManagedObjectModel {
        try #require(NSManagedObjectModel(contentsOf: try ModelFixtures.url("Shapes.xcdatamodel")))
    }

    @Test func theShapesLoadAsXcodeWroteThem() throws {
        let model = try shapes()
        let person = try #require(model.entitiesByName["Person"])
        let derivations = Dictionary(
            uniqueKeysWithValues: person.attributesByName.values.compactMap { attribute in
                (attribute as? NSDerivedAttributeDescription).map {
                    (attribute.name, $0.derivationExpression?.description ?? "")
                }
            })
        #expect(derivations["searchName"] == "canonical:(name)")
        #expect(derivations["petCount"] == "pets.@count")
        #expect(derivations.count == 6)
        for name in ["scratch", "scratch2"] {
            let attribute = try #require(person.attributesByName[name])
            #expect(attribute.attributeType == .undefinedAttributeType && attribute.isTransient)
        }
        let bestPet = try #require(person.relationshipsByName["bestPet"])
        #expect(!bestPet.isToMany && bestPet.isOrdered, "kept as written, ignored as Core Data ignores it")
    }

    /// `ordered` on a to-one changes nothing, the version hash included.
    @Test func orderedOnAToOneIsIgnored() throws {
        let written = try shapes()
        let plain = try shapes()
        plain.entitiesByName["Person"]?.relationshipsByName["bestPet"]?.isOrdered = false
        #expect(written.entityVersionHashesByName == plain.entityVersionHashesByName)
    }

    @Test func derivedValuesAreComputedAtSaveAndTypelessTransientsHoldAnything() throws {
        let model = try shapes()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = temporaryStoreURL("Shapes")
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue("Ünïcödé Straße", forKey: "name")
            person.setValue([1, 2, 3], forKey: "scratch")
            person.setValue(Date(timeIntervalSince1970: 7), forKey: "scratch2")
            for age in [3, 4] {
                let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
                pet.setValue(age, forKey: "age")
                pet.setValue(person, forKey: "owner")
            }
            person.setValue(context.registeredObjects.first { $0.entity.name == "Pet" }, forKey: "bestPet")
            #expect(person.value(forKey: "scratch") as? [Int] == [1, 2, 3], "a typeless transient holds any value")
            try context.save()
            #expect(person.value(forKey: "searchName") as? String == "unicode strasse")
            #expect(person.value(forKey: "lowerName") as? String == "ünïcödé straße")
            #expect(person.value(forKey: "upperName") as? String == "ÜNÏCÖDÉ STRASSE")
            #expect(person.value(forKey: "touched") is Date)
            #expect((person.value(forKey: "petCount") as? NSNumber)?.intValue == 2)
            #expect((person.value(forKey: "totalAge") as? NSNumber)?.intValue == 7)
            context.reset()

            let again = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first)
            #expect(again.value(forKey: "searchName") as? String == "unicode strasse", "stored as derived")
            #expect((again.value(forKey: "totalAge") as? NSNumber)?.intValue == 7)
            #expect(again.value(forKey: "scratch") == nil, "transients are not stored")
            #expect((again.value(forKey: "bestPet") as? NSManagedObject)?.entity.name == "Pet")
        }
    }
}
