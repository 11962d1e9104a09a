import Foundation
import OpenCoreData
import Testing

/// Batch insert, update and delete as a store of any engine must run them: the rows they
/// write, their keys, counts and IDs, delete rules, uniqueness constraints, values computed
/// from the rows as they were, and contexts seeing the changes once merged. Each engine's
/// test target runs every case on its stores (`@Test(arguments: BatchRequestBehaviour.allCases)`).
public enum BatchRequestBehaviour: String, CaseIterable, Sendable {
    case insertGivesNewRowsFreshKeysAndDefaults
    case insertHandlersProduceRowsUntilTheyReturnTrue
    case insertOverwritesARowWithTheSameUniqueValue
    case updateChangesTheMatchingRowsOnly
    case updateComputesEveryValueFromTheRowsAsTheyWere
    case deleteCascadesNullifiesAndRemovesJoinRows
    case deleteRefusesADenyRuleWithDestinationsAndChangesNothing
    case deleteReportsTheMatchedRowsNotTheCascadedOnes
    case deleteOfRowsWithoutRelationshipsTakesTheMatchesAndHonoursTheWindow
    case subentitiesShareTheirRootsKeys
    case mergedContextsSeeBatchChanges

    /// Runs the case on stores of `engine`.
    public func run(on engine: StoreUnderTest) throws {
        let suite = Suite(context: try engine.context(try engine.location("Batch"), model: Self.model(), options: nil))
        switch self {
        case .insertGivesNewRowsFreshKeysAndDefaults: try suite.insertGivesFreshKeysAndDefaults()
        case .insertHandlersProduceRowsUntilTheyReturnTrue: try suite.insertHandlers()
        case .insertOverwritesARowWithTheSameUniqueValue: try suite.insertOverwritesUniqueMatches()
        case .updateChangesTheMatchingRowsOnly: try suite.updateChangesMatchingRows()
        case .updateComputesEveryValueFromTheRowsAsTheyWere: try suite.updateComputesFromOldValues()
        case .deleteCascadesNullifiesAndRemovesJoinRows: try suite.deleteAppliesRules()
        case .deleteRefusesADenyRuleWithDestinationsAndChangesNothing: try suite.deleteRefusesDeny()
        case .deleteReportsTheMatchedRowsNotTheCascadedOnes: try suite.deleteReportsMatchedRows()
        case .deleteOfRowsWithoutRelationshipsTakesTheMatchesAndHonoursTheWindow: try suite.deleteWithoutRelationships()
        case .subentitiesShareTheirRootsKeys: try suite.subentitiesShareKeys()
        case .mergedContextsSeeBatchChanges: try suite.mergedContextsSeeChanges()
        }
    }

    /// Shelter ↔ Animal (cascade from the shelter, nullify back); Animal ↔ Toy (deny: an
    /// animal with toys stays); Animal ↔ Tag, many-to-many; Dog a subentity of Animal;
    /// Member with a unique `email`.
    public static func model() -> NSManagedObjectModel {
        let shelter = ModelBuilder.entity("Shelter", className: "NSManagedObject")
        let animal = ModelBuilder.entity("Animal", className: "NSManagedObject")
        let dog = ModelBuilder.entity("Dog", className: "NSManagedObject")
        let toy = ModelBuilder.entity("Toy", className: "NSManagedObject")
        let tag = ModelBuilder.entity("Tag", className: "NSManagedObject")
        let member = ModelBuilder.entity("Member", className: "NSManagedObject")
        let (animals, animalShelter) = ModelBuilder.pair(
            "animals", from: shelter, toMany: true, rule: .cascadeDeleteRule, "shelter", to: animal, toMany: false)
        let (toys, toyAnimal) = ModelBuilder.pair(
            "toys", from: animal, toMany: true, rule: .denyDeleteRule, "animal", to: toy, toMany: false)
        let (tags, tagAnimals) = ModelBuilder.pair("tags", from: animal, toMany: true, "animals", to: tag, toMany: true)
        shelter.properties = [ModelBuilder.attribute("name", .stringAttributeType), animals]
        animal.properties = [
            ModelBuilder.attribute("name", .stringAttributeType),
            ModelBuilder.attribute("age", .integer64AttributeType, defaultValue: 1),
            ModelBuilder.attribute("weight", .doubleAttributeType),
            ModelBuilder.attribute("born", .dateAttributeType), animalShelter, toys, tags,
        ]
        dog.properties = [ModelBuilder.attribute("breed", .stringAttributeType)]
        animal.subentities = [dog]
        toy.properties = [ModelBuilder.attribute("label", .stringAttributeType), toyAnimal]
        tag.properties = [ModelBuilder.attribute("label", .stringAttributeType), tagAnimals]
        member.properties = [
            ModelBuilder.attribute("email", .stringAttributeType), ModelBuilder.attribute("name", .stringAttributeType),
        ]
        member.uniquenessConstraints = [["email"]]
        return ModelBuilder.model(shelter, animal, dog, toy, tag, member)
    }
}

extension BatchRequestBehaviour {
    private struct Suite {
        let context: NSManagedObjectContext

        func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            object.setValuesForKeys(values)
            return object
        }

        /// The values of `key` of every `entity` object in the store, sorted by it.
        func stored<T: Comparable>(_ entity: String, _ key: String, as type: T.Type = T.self) throws -> [T?] {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
            // From the store, not from objects this context still holds.
            context.reset()
            return try context.fetch(request).map { $0.value(forKey: key) as? T }
        }

        func count(_ entity: String) throws -> Int {
            try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity))
        }

        func insertGivesFreshKeysAndDefaults() throws {
            try context.performAndWait {
                let first = insert("Animal", ["name": "First"])
                try context.save()
                let born = Date(timeIntervalSinceReferenceDate: 1000)
                let request = NSBatchInsertRequest(
                    entityName: "Animal",
                    objects: [["name": "A", "born": born, "age": 3], ["name": "B"], ["name": "C", "born": NSNull()]])
                request.resultType = .objectIDs
                let ids = try #require(
                    try (context.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
                #expect(ids.count == 3)
                #expect(ids.allSatisfy { !$0.isTemporaryID && $0.entity.name == "Animal" })
                #expect(Set(ids + [first.objectID]).count == 4)
                let a = try context.existingObject(with: ids[0])
                #expect(a.value(forKey: "born") as? Date == born)
                #expect(a.value(forKey: "age") as? Int64 == 3)
                // The attribute's default where the dictionary has no value.
                #expect(try context.existingObject(with: ids[1]).value(forKey: "age") as? Int64 == 1)
                #expect(try context.existingObject(with: ids[2]).value(forKey: "born") == nil)
                // A save afterwards gets a key no batch row has.
                let later = insert("Animal", ["name": "Later"])
                try context.save()
                #expect(!ids.contains(later.objectID))
                let count = NSBatchInsertRequest(entityName: "Tag", objects: [["label": "x"], ["label": "y"]])
                count.resultType = .count
                #expect(try (context.execute(count) as? NSBatchInsertResult)?.result as? Int == 2)
            }
            #expect(
                try context.performAndWait { try stored("Animal", "name", as: String.self) } == [
                    "A", "B", "C", "First", "Later",
                ])
        }

        func insertHandlers() throws {
            let (dictionaries, objects) = try context.performAndWait { () throws -> (Bool?, Bool?) in
                var produced = 0
                let byDictionary = NSBatchInsertRequest(
                    entityName: "Tag",
                    dictionaryHandler: { dictionary in
                        guard produced < 5 else { return true }
                        dictionary["label"] = "tag \(produced)"
                        produced += 1
                        return false
                    })
                let first = try (context.execute(byDictionary) as? NSBatchInsertResult)?.result as? Bool
                var made = 0
                let tag = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Tag"])
                let byObject = NSBatchInsertRequest(
                    entity: tag,
                    managedObjectHandler: { object in
                        guard made < 2 else { return true }
                        object.setValue("object \(made)", forKey: "label")
                        made += 1
                        return false
                    })
                return (first, try (context.execute(byObject) as? NSBatchInsertResult)?.result as? Bool)
            }
            #expect(dictionaries == true && objects == true)
            let labels = try context.performAndWait { try stored("Tag", "label", as: String.self) }
            #expect(labels.count == 7)
            #expect(labels.first == "object 0" && labels.last == "tag 4")
        }

        func insertOverwritesUniqueMatches() throws {
            try context.performAndWait {
                _ = insert("Member", ["email": "ada@example.org", "name": "Ada"])
                try context.save()
                let request = NSBatchInsertRequest(
                    entityName: "Member",
                    objects: [
                        ["email": "ada@example.org", "name": "Ada Lovelace"],
                        ["email": "grace@example.org", "name": "Grace"],
                    ])
                request.resultType = .count
                #expect(try (context.execute(request) as? NSBatchInsertResult)?.result as? Int == 2)
                #expect(try count("Member") == 2)
            }
            #expect(
                try context.performAndWait { try stored("Member", "name", as: String.self) } == [
                    "Ada Lovelace", "Grace",
                ])
        }

        func updateChangesMatchingRows() throws {
            try context.performAndWait {
                for (name, age) in [("Rex", 2), ("Tom", 7), ("Kit", 9)] {
                    _ = insert("Animal", ["name": name, "age": age])
                }
                try context.save()
                let request = NSBatchUpdateRequest(entityName: "Animal")
                request.predicate = NSPredicate(format: "age > %d", 5)
                request.propertiesToUpdate = ["weight": 4.5, "name": NSExpression(forConstantValue: "old")]
                request.resultType = .updatedObjectIDsResultType
                let ids = try #require(
                    try (context.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
                #expect(ids.count == 2)
                let none = NSBatchUpdateRequest(entityName: "Animal")
                none.predicate = NSPredicate(format: "name == %@", "nobody")
                none.propertiesToUpdate = ["age": 1]
                none.resultType = .updatedObjectsCountResultType
                #expect(try (context.execute(none) as? NSBatchUpdateResult)?.result as? Int == 0)
            }
            #expect(
                try context.performAndWait { try stored("Animal", "name", as: String.self) } == [
                    "Rex", "old", "old",
                ])
            #expect(try context.performAndWait { try stored("Animal", "weight", as: Double.self) } == [nil, 4.5, 4.5])
        }

        func updateComputesFromOldValues() throws {
            try context.performAndWait {
                _ = insert("Animal", ["name": "Rex", "age": 2, "weight": 10.0])
                _ = insert("Animal", ["name": "Kit", "age": 5, "weight": 3.0])
                try context.save()
                let request = NSBatchUpdateRequest(entityName: "Animal")
                // Each new value from the row as it was: the age the weight had, the weight from the old age.
                request.propertiesToUpdate = [
                    "age": NSExpression(format: "weight"), "weight": NSExpression(format: "age + 0.5"),
                ]
                request.resultType = .updatedObjectsCountResultType
                #expect(try (context.execute(request) as? NSBatchUpdateResult)?.result as? Int == 2)
            }
            #expect(try context.performAndWait { try stored("Animal", "age", as: Int64.self) } == [3, 10])
            #expect(try context.performAndWait { try stored("Animal", "weight", as: Double.self) } == [2.5, 5.5])
        }

        func deleteAppliesRules() throws {
            try context.performAndWait {
                let shelter = insert("Shelter", ["name": "North"])
                let other = insert("Shelter", ["name": "South"])
                let tag = insert("Tag", ["label": "friendly"])
                for name in ["Rex", "Kit"] {
                    let animal = insert("Animal", ["name": name])
                    animal.setValue(shelter, forKey: "shelter")
                    animal.setValue(Set([tag]), forKey: "tags")
                }
                let stays = insert("Dog", ["name": "Fido"])
                stays.setValue(other, forKey: "shelter")
                stays.setValue(Set([tag]), forKey: "tags")
                try context.save()
                let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Shelter")
                fetch.predicate = NSPredicate(format: "name == %@", "North")
                let delete = NSBatchDeleteRequest(fetchRequest: fetch)
                delete.resultType = .resultTypeCount
                #expect(try (context.execute(delete) as? NSBatchDeleteResult)?.result as? Int == 1)
                // The shelter's animals went with it; their tag stays, with the animal that stays.
                #expect(try stored("Animal", "name", as: String.self) == ["Fido"])
                let kept = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")).first)
                let members = kept.value(forKey: "animals") as? Set<NSManagedObject>
                #expect(members?.compactMap { $0.value(forKey: "name") as? String } == ["Fido"])
                // Deleting the animal clears the shelter's side (nullify) and its join rows.
                let animals = NSFetchRequest<NSFetchRequestResult>(entityName: "Animal")
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: animals))
                context.reset()
                let south = try #require(
                    try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelter")).first)
                #expect((south.value(forKey: "animals") as? Set<NSManagedObject>)?.isEmpty == true)
                let tagAfter = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")).first)
                #expect((tagAfter.value(forKey: "animals") as? Set<NSManagedObject>)?.isEmpty == true)
            }
        }

        func deleteRefusesDeny() throws {
            try context.performAndWait {
                let animal = insert("Animal", ["name": "Rex"])
                let toy = insert("Toy", ["label": "ball"])
                toy.setValue(animal, forKey: "animal")
                _ = insert("Animal", ["name": "Kit"])
                try context.save()
                let error = try #require(throws: NSError.self) {
                    try context.execute(
                        NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Animal")))
                }
                #expect(error.code == NSValidationRelationshipDeniedDeleteError)
                #expect(error.localizedDescription.contains("toys"))
                #expect(try count("Animal") == 2)
                #expect(try count("Toy") == 1)
            }
        }

        func deleteReportsMatchedRows() throws {
            try context.performAndWait {
                let north = insert("Shelter", ["name": "North"])
                let south = insert("Shelter", ["name": "South"])
                _ = insert("Shelter", ["name": "East"])
                let rex = insert("Animal", ["name": "Rex"])
                rex.setValue(north, forKey: "shelter")
                _ = insert("Animal", ["name": "Kit"])
                try context.save()
                let delete = NSBatchDeleteRequest(objectIDs: [north.objectID, south.objectID])
                delete.resultType = .resultTypeObjectIDs
                let ids = try #require(
                    try (context.execute(delete) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
                // The shelters asked for; Rex went with North, unreported.
                #expect(Set(ids) == [north.objectID, south.objectID])
                #expect(try stored("Animal", "name", as: String.self) == ["Kit"])
                #expect(try stored("Shelter", "name", as: String.self) == ["East"])
            }
        }

        /// Members have no relationships, so a delete is one statement: it takes the rows the
        /// predicate matches whatever the sort, and with a window only the window's rows, in order.
        func deleteWithoutRelationships() throws {
            try context.performAndWait {
                for (index, name) in ["ada", "bob", "cy", "dan", "eve", "fay"].enumerated() {
                    _ = insert("Member", ["name": name, "email": "\(name)@\(index % 2 == 0 ? "a" : "b").org"])
                }
                try context.save()
                func delete(_ configure: (NSFetchRequest<NSFetchRequestResult>) -> Void) throws -> Int? {
                    let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Member")
                    configure(fetch)
                    let delete = NSBatchDeleteRequest(fetchRequest: fetch)
                    delete.resultType = .resultTypeCount
                    return (try context.execute(delete) as? NSBatchDeleteResult)?.result as? Int
                }
                let sorted = try delete {
                    $0.predicate = NSPredicate(format: "email >= %@ AND email < %@ AND name != %@", "c", "f", "dan")
                    $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
                }
                #expect(sorted == 2)
                #expect(try stored("Member", "name", as: String.self) == ["ada", "bob", "dan", "fay"])
                let windowed = try delete {
                    $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
                    $0.fetchLimit = 2
                }
                #expect(windowed == 2)
                #expect(try stored("Member", "name", as: String.self) == ["ada", "bob"])
                #expect(try delete { $0.predicate = NSPredicate(format: "name == %@", "nobody") } == 0)
                #expect(try delete { _ in } == 2)
                #expect(try count("Member") == 0)
            }
        }

        func subentitiesShareKeys() throws {
            try context.performAndWait {
                let animals = NSBatchInsertRequest(entityName: "Animal", objects: [["name": "a"], ["name": "b"]])
                animals.resultType = .objectIDs
                let dogs = NSBatchInsertRequest(entityName: "Dog", objects: [["name": "d", "breed": "collie"]])
                dogs.resultType = .objectIDs
                let first = try #require(
                    try (context.execute(animals) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
                let second = try #require(
                    try (context.execute(dogs) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
                // One table, one key sequence: no key is used twice.
                let keys = (first + second).map { $0.uriRepresentation().lastPathComponent }
                #expect(Set(keys).count == 3)
                #expect(second.first?.entity.name == "Dog")
                let update = NSBatchUpdateRequest(entityName: "Dog")
                update.propertiesToUpdate = ["age": 4]
                update.resultType = .updatedObjectsCountResultType
                #expect(try (context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 1)
                let dog = try context.existingObject(with: try #require(second.first))
                #expect(dog.value(forKey: "breed") as? String == "collie")
                #expect(dog.value(forKey: "age") as? Int64 == 4)
                #expect(try count("Animal") == 3)
            }
        }

        func mergedContextsSeeChanges() throws {
            let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            reader.persistentStoreCoordinator = context.persistentStoreCoordinator
            try context.performAndWait {
                for name in ["a", "b", "c"] { _ = insert("Animal", ["name": name]) }
                try context.save()
            }
            let loaded = try reader.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                let objects = try reader.fetch(request)
                // Read now: the reader holds these values until it merges.
                #expect(objects.map { $0.value(forKey: "name") as? String } == ["a", "b", "c"])
                return objects
            }
            let updated = try context.performAndWait {
                let request = NSBatchUpdateRequest(entityName: "Animal")
                request.predicate = NSPredicate(format: "name == %@", "a")
                request.propertiesToUpdate = ["name": "changed"]
                request.resultType = .updatedObjectIDsResultType
                return try #require(
                    try (context.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
            }
            #expect(reader.performAndWait { loaded[0].value(forKey: "name") as? String } == "a")
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: updated], into: [reader])
            #expect(reader.performAndWait { loaded[0].value(forKey: "name") as? String } == "changed")
            let deleted = try context.performAndWait {
                let request = NSBatchDeleteRequest(objectIDs: [loaded[2].objectID])
                request.resultType = .resultTypeObjectIDs
                return try #require(
                    try (context.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
            }
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [reader])
            let remaining = try reader.performAndWait { () throws -> Int in
                #expect(loaded[2].managedObjectContext == nil || loaded[2].isDeleted)
                return try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Animal"))
            }
            #expect(remaining == 2)
        }
    }
}
