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

    /// A private-queue context on a new store of `type` for the fixture model `name`
    /// (a new SQLite file, or in memory).
    static func context(on name: String, type: String = NSInMemoryStoreType) throws -> NSManagedObjectContext {
        let model = try #require(NSManagedObjectModel(contentsOf: try ModelFixtures.url(name)))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = type == NSSQLiteStoreType ? temporaryStoreURL(name) : nil
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
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

    /// `ordered` on a to-one changes nothing, the version hash included; on a to-many it does.
    @Test func orderedOnAToOneIsIgnored() throws {
        let written = try shapes()
        let plain = try shapes()
        try #require(plain.entitiesByName["Person"]?.relationshipsByName["bestPet"]).isOrdered = false
        #expect(written.entityVersionHashesByName == plain.entityVersionHashesByName)
        let orderedPets = try shapes()
        try #require(orderedPets.entitiesByName["Person"]?.relationshipsByName["pets"]).isOrdered = true
        #expect(orderedPets.entityVersionHashesByName["Person"] != written.entityVersionHashesByName["Person"])
    }

    @Test func derivedValuesAreComputedAtSaveAndTypelessTransientsHoldAnything() throws {
        let context = try Self.context(on: "Shapes.xcdatamodel", type: NSSQLiteStoreType)
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

    /// An inverse whose entity is a subentity of the relationship's destination (`animals`
    /// to `Animal`, inverse `Dog.owner`), and one whose destination is a superentity of the
    /// relationship's entity (`favorite` to `Dog`, inverse `Animal.fans`): both load and
    /// their objects save and read back both ways.
    @Test func inversesOnSubentitiesAndSuperentitiesWork() throws {
        let context = try Self.context(on: "SubentityInverse.xcdatamodel", type: NSSQLiteStoreType)
        try context.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
            let dog = NSEntityDescription.insertNewObject(forEntityName: "Dog", into: context)
            dog.setValue("Rex", forKey: "name")
            owner.mutableSetValue(forKey: "animals").add(dog)
            owner.setValue(dog, forKey: "favorite")
            #expect(dog.value(forKey: "owner") as? NSManagedObject === owner, "the inverse follows")
            #expect((dog.value(forKey: "fans") as? Set<NSManagedObject>)?.contains(owner) == true)
            try context.save()
            context.reset()

            let fetched = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Owner")).first)
            let animals = try #require(fetched.value(forKey: "animals") as? Set<NSManagedObject>)
            #expect(animals.map { $0.value(forKey: "name") as? String } == ["Rex"])
            let rex = try #require(animals.first)
            #expect(rex.entity.name == "Dog")
            #expect(rex.value(forKey: "owner") as? NSManagedObject === fetched)
            #expect(fetched.value(forKey: "favorite") as? NSManagedObject === rex)
            #expect((rex.value(forKey: "fans") as? Set<NSManagedObject>)?.contains(fetched) == true)
        }
    }

    /// A `Cat` is an `Animal` but has no `owner`, the inverse of `animals`: key-value coding
    /// refuses it (the next save throws, naming the entity that can be a member), and a
    /// mutable set proxy traps, as Core Data raises for a destination it cannot maintain.
    @Test func aDestinationWithoutTheInverseIsRefused() async throws {
        let context = try Self.context(on: "SubentityInverse.xcdatamodel")
        try context.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
            let cat = NSEntityDescription.insertNewObject(forEntityName: "Cat", into: context)
            owner.setValue(Set([cat]), forKey: "animals")
            #expect((owner.value(forKey: "animals") as? Set<NSManagedObject>)?.isEmpty == true)
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.localizedDescription.contains("a collection of Dog objects") == true)
        }
        // The model loads here first, so the child process can only fail at the trap.
        _ = try Self.context(on: "SubentityInverse.xcdatamodel")
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try ModelShapesTests.context(on: "SubentityInverse.xcdatamodel")
            context.performAndWait {
                let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
                let cat = NSEntityDescription.insertNewObject(forEntityName: "Cat", into: context)
                owner.mutableSetValue(forKey: "animals").add(cat)
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("desired entity Dog"), "the trap names the entity that can be a member")
    }

    /// `favorite` (to `Dog`) has the inverse `Animal.fans`, so only a `Dog` can hold an owner
    /// among its fans: from a `Cat`, key-value coding refuses it.
    @Test func aSourceTheInverseCannotPointAtIsRefused() throws {
        let context = try Self.context(on: "SubentityInverse.xcdatamodel")
        try context.performAndWait {
            let owner = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
            let cat = NSEntityDescription.insertNewObject(forEntityName: "Cat", into: context)
            cat.setValue(Set([owner]), forKey: "fans")
            #expect(owner.value(forKey: "favorite") == nil, "a Cat never becomes a Dog's place")
            #expect(throws: NSError.self) { try context.save() }
        }
    }

    /// Two subentities each declare an inverse named `owner`: a compiled model links each
    /// relationship to its own (the archive names the inverse's entity).
    @Test func compiledInversesOnSubentitiesLinkToTheirOwnEntity() throws {
        let model = try #require(
            NSManagedObjectModel(contentsOf: try ModelFixtures.url("SubentityInverse.xcdatamodel")))
        let folder = try ModelFixtures.temporaryFolder()
        let compiled = folder.appendingPathComponent("SubentityInverse.mom")
        try model.compiledModelData().write(to: compiled)
        let loaded = try #require(NSManagedObjectModel(contentsOf: compiled))
        let owner = try #require(loaded.entitiesByName["Owner"])
        #expect(owner.relationshipsByName["animals"]?.inverseRelationship?.entity?.name == "Dog")
        #expect(owner.relationshipsByName["cats"]?.inverseRelationship?.entity?.name == "Cat")
        #expect(loaded.entityVersionHashesByName == model.entityVersionHashesByName)
    }
}
