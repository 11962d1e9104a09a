import Foundation
import OpenCoreData
import Testing

/// Saving as a store of any engine must do it: every attribute type read back as written by
/// another coordinator (another process or server, to the store), every kind of
/// relationship, delete rules, inheritance, and concurrent writers: optimistic-locking
/// conflicts reported or settled by each merge policy, uniqueness constraints. Each
/// engine's test target runs every case on its stores (`@Test(arguments: SaveBehaviour.allCases)`).
public enum SaveBehaviour: String, CaseIterable, Sendable {
    case everyAttributeTypeReadsBackAsWritten
    case everyKindOfRelationshipReadsBackAsWritten
    case deleteRulesApplyWhenSaving
    case subentitiesAreFetchedThroughTheirParent
    case aConflictingSaveFailsWithTheConflict
    case mergePoliciesSettleConflicts
    case anObjectDeletedElsewhereConflicts
    case uniquenessConstraintsConflictOrMerge

    /// Runs the case on stores of `engine`.
    public func run(on engine: StoreUnderTest) throws {
        let suite = Suite(engine: engine, url: try engine.location("Save"))
        switch self {
        case .everyAttributeTypeReadsBackAsWritten: try suite.everyAttributeType()
        case .everyKindOfRelationshipReadsBackAsWritten: try suite.everyKindOfRelationship()
        case .deleteRulesApplyWhenSaving: try suite.deleteRules()
        case .subentitiesAreFetchedThroughTheirParent: try suite.subentities()
        case .aConflictingSaveFailsWithTheConflict: try suite.conflictingSaveFails()
        case .mergePoliciesSettleConflicts: try suite.mergePolicies()
        case .anObjectDeletedElsewhereConflicts: try suite.deletedElsewhere()
        case .uniquenessConstraintsConflictOrMerge: try suite.uniqueness()
        }
    }

    /// Every attribute type on `Sample`; `Person` with a self-referential parent ⟷ ordered
    /// children, a many-to-many `friends` (its own inverse), pets (cascade), a badge
    /// (deny), notes without an inverse; `Pet`, `Dog` a subentity of it; `Badge`; `Note`;
    /// `Account` with a unique email.
    public static func model() -> NSManagedObjectModel {
        let sample = ModelBuilder.entity("Sample", className: "NSManagedObject")
        sample.properties = [
            ModelBuilder.attribute("text", .stringAttributeType),
            ModelBuilder.attribute("small", .integer16AttributeType),
            ModelBuilder.attribute("medium", .integer32AttributeType),
            ModelBuilder.attribute("large", .integer64AttributeType),
            ModelBuilder.attribute("flag", .booleanAttributeType),
            ModelBuilder.attribute("real", .doubleAttributeType),
            ModelBuilder.attribute("single", .floatAttributeType),
            ModelBuilder.attribute("money", .decimalAttributeType),
            ModelBuilder.attribute("when", .dateAttributeType),
            ModelBuilder.attribute("bytes", .binaryDataAttributeType),
            ModelBuilder.attribute("identifier", .UUIDAttributeType),
            ModelBuilder.attribute("link", .URIAttributeType),
        ]
        let person = ModelBuilder.entity("Person", className: "NSManagedObject")
        let pet = ModelBuilder.entity("Pet", className: "NSManagedObject")
        let dog = ModelBuilder.entity("Dog", className: "NSManagedObject")
        let badge = ModelBuilder.entity("Badge", className: "NSManagedObject")
        let note = ModelBuilder.entity("Note", className: "NSManagedObject")
        let account = ModelBuilder.entity("Account", className: "NSManagedObject")
        let (children, parent) = ModelBuilder.pair(
            "children", from: person, toMany: true, "parent", to: person, toMany: false, ordered: true)
        let friends = NSRelationshipDescription()
        friends.name = "friends"
        friends.destinationEntity = person
        friends.maxCount = 0
        friends.inverseRelationship = friends
        let (pets, owner) = ModelBuilder.pair(
            "pets", from: person, toMany: true, rule: .cascadeDeleteRule, "owner", to: pet, toMany: false)
        let (badges, holder) = ModelBuilder.pair(
            "badges", from: person, toMany: true, rule: .denyDeleteRule, "holder", to: badge, toMany: false)
        let notes = NSRelationshipDescription()
        notes.name = "notes"
        notes.destinationEntity = note
        notes.maxCount = 0
        notes.deleteRule = .cascadeDeleteRule
        person.properties = [
            ModelBuilder.attribute("name", .stringAttributeType),
            ModelBuilder.attribute("age", .integer64AttributeType),
            children, parent, friends, pets, badges, notes,
        ]
        pet.properties = [ModelBuilder.attribute("name", .stringAttributeType), owner]
        dog.properties = [ModelBuilder.attribute("breed", .stringAttributeType)]
        pet.subentities = [dog]
        badge.properties = [ModelBuilder.attribute("title", .stringAttributeType), holder]
        note.properties = [ModelBuilder.attribute("text", .stringAttributeType)]
        account.properties = [
            ModelBuilder.attribute("email", .stringAttributeType), ModelBuilder.attribute("name", .stringAttributeType),
        ]
        account.uniquenessConstraints = [["email"]]
        return ModelBuilder.model(sample, person, pet, dog, badge, note, account)
    }
}

extension SaveBehaviour {
    private struct Suite {
        let engine: StoreUnderTest
        let url: URL

        /// A context on a coordinator of its own: another process or server, to the store.
        func newContext(policy: NSMergePolicy = .error) throws -> NSManagedObjectContext {
            let context = try engine.context(url, model: SaveBehaviour.model(), options: nil)
            context.mergePolicy = policy
            return context
        }

        func insert(_ entity: String, _ values: [String: Any], into context: NSManagedObjectContext) -> NSManagedObject
        {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            object.setValuesForKeys(values)
            return object
        }

        func fetch(
            _ entity: String, sortedBy key: String, in context: NSManagedObjectContext
        ) throws
            -> [NSManagedObject]
        {
            try context.fetchAll(entity, sortedBy: key)
        }

        func everyAttributeType() throws {
            let values: [String: Any] = [
                "text": "Zoë 🍐 \"quoted\" 'single' \\ back", "small": Int16.min, "medium": Int32.max,
                "large": Int64.min, "flag": true, "real": 0.1 + 0.2, "single": Float(1.5e-7),
                "money": Decimal(string: "1234.5")!, "when": Date(timeIntervalSinceReferenceDate: 123_456.789),
                "bytes": Data([0, 0xFF, 0x27, 0x5C, 0]), "identifier": UUID(),
                "link": URL(string: "https://example.org/a?b=c#d")!,
            ]
            let writer = try newContext()
            try writer.performAndWait {
                _ = insert("Sample", values, into: writer)
                _ = insert("Sample", [:], into: writer)
                try writer.save()
            }
            let reader = try newContext()
            try reader.performAndWait {
                let samples = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Sample"))
                #expect(samples.count == 2)
                let full = try #require(samples.first { $0.value(forKey: "text") != nil })
                #expect(full.value(forKey: "text") as? String == values["text"] as? String)
                #expect(full.value(forKey: "small") as? Int16 == Int16.min)
                #expect(full.value(forKey: "medium") as? Int32 == Int32.max)
                #expect(full.value(forKey: "large") as? Int64 == Int64.min)
                #expect(full.value(forKey: "flag") as? Bool == true)
                #expect(full.value(forKey: "real") as? Double == 0.1 + 0.2)
                #expect(full.value(forKey: "single") as? Float == Float(1.5e-7))
                // Decimals are stored as doubles, as Core Data stores them in SQLite (docs/DEVIATIONS.md).
                #expect(full.value(forKey: "money") as? Decimal == Decimal(string: "1234.5"))
                #expect(full.value(forKey: "when") as? Date == values["when"] as? Date)
                #expect(full.value(forKey: "bytes") as? Data == values["bytes"] as? Data)
                #expect(full.value(forKey: "identifier") as? UUID == values["identifier"] as? UUID)
                #expect(full.value(forKey: "link") as? URL == values["link"] as? URL)
                let empty = try #require(samples.first { $0.value(forKey: "text") == nil })
                for key in values.keys { #expect(empty.value(forKey: key) == nil, "\(key)") }
            }
        }

        func everyKindOfRelationship() throws {
            let writer = try newContext()
            try writer.performAndWait {
                let ann = insert("Person", ["name": "Ann", "age": 60], into: writer)
                let kids = ["Cy", "Bo", "Al"].map { insert("Person", ["name": $0], into: writer) }
                ann.setValue(NSOrderedSet(array: kids), forKey: "children")
                kids[0].mutableSetValue(forKey: "friends").add(kids[1])
                let rex = insert("Dog", ["name": "Rex", "breed": "collie"], into: writer)
                rex.setValue(kids[2], forKey: "owner")
                ann.mutableSetValue(forKey: "notes").add(insert("Note", ["text": "no inverse"], into: writer))
                try writer.save()
                // A change of order alone is saved too.
                ann.setValue(NSOrderedSet(array: [kids[2], kids[0], kids[1]]), forKey: "children")
                try writer.save()
            }
            let reader = try newContext()
            try reader.performAndWait {
                let people = try fetch("Person", sortedBy: "name", in: reader)
                let byName = Dictionary(uniqueKeysWithValues: people.map { ($0.value(forKey: "name") as! String, $0) })
                let ann = try #require(byName["Ann"])
                let children = try #require(ann.value(forKey: "children") as? NSOrderedSet)
                #expect(
                    children.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String } == [
                        "Al", "Cy", "Bo",
                    ])
                #expect((byName["Bo"]?.value(forKey: "parent") as? NSManagedObject) == ann)
                // A relationship that is its own inverse holds both ends.
                let cyFriends = byName["Cy"]?.value(forKey: "friends") as? Set<NSManagedObject>
                let boFriends = byName["Bo"]?.value(forKey: "friends") as? Set<NSManagedObject>
                #expect(cyFriends == [byName["Bo"]!])
                #expect(boFriends == [byName["Cy"]!])
                let pets = try #require(byName["Al"]?.value(forKey: "pets") as? Set<NSManagedObject>)
                #expect(pets.first?.entity.name == "Dog")
                #expect(pets.first?.value(forKey: "breed") as? String == "collie")
                let notes = ann.value(forKey: "notes") as? Set<NSManagedObject>
                #expect(notes?.compactMap { $0.value(forKey: "text") as? String } == ["no inverse"])
            }
        }

        func deleteRules() throws {
            let context = try newContext()
            try context.performAndWait {
                let ann = insert("Person", ["name": "Ann"], into: context)
                let bo = insert("Person", ["name": "Bo"], into: context)
                bo.setValue(ann, forKey: "parent")
                insert("Pet", ["name": "Tom"], into: context).setValue(ann, forKey: "owner")
                ann.mutableSetValue(forKey: "notes").add(insert("Note", ["text": "x"], into: context))
                let cy = insert("Person", ["name": "Cy"], into: context)
                insert("Badge", ["title": "gold"], into: context).setValue(cy, forKey: "holder")
                try context.save()
                // Cascade (pets, notes), nullify (children's parent).
                context.delete(ann)
                try context.save()
                #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Pet")) == 0)
                #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) == 0)
                #expect(bo.value(forKey: "parent") == nil)
                // Deny: refused while the badge is there.
                context.delete(cy)
                let error = try #require(throws: NSError.self) { try context.save() }
                #expect(error.code == NSValidationRelationshipDeniedDeleteError)
                context.rollback()
            }
            let reader = try newContext()
            try reader.performAndWait {
                let people = try fetch("Person", sortedBy: "name", in: reader)
                #expect(people.compactMap { $0.value(forKey: "name") as? String } == ["Bo", "Cy"])
                #expect(people.first?.value(forKey: "parent") == nil)
            }
        }

        func subentities() throws {
            let context = try newContext()
            try context.performAndWait {
                _ = insert("Pet", ["name": "Tom"], into: context)
                _ = insert("Dog", ["name": "Rex", "breed": "collie"], into: context)
                try context.save()
            }
            let reader = try newContext()
            try reader.performAndWait {
                let pets = try fetch("Pet", sortedBy: "name", in: reader)
                #expect(pets.map { $0.entity.name } == ["Dog", "Pet"])
                let only = NSFetchRequest<NSManagedObject>(entityName: "Pet")
                only.includesSubentities = false
                #expect(try reader.fetch(only).map { $0.value(forKey: "name") as? String } == ["Tom"])
                let dogs = NSFetchRequest<NSManagedObject>(entityName: "Pet")
                dogs.predicate = NSPredicate(
                    format: "entity == %@", reader.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Dog"]!
                )
                #expect(try reader.count(for: dogs) == 1)
            }
        }

        /// Two writers load Ann from a new store; the first saves its changes, the second's save
        /// conflicts. Returns the second writer, its Ann, its save's error, and the store's suite.
        func conflict(
            policy: NSMergePolicy, firstChanges: [String: Any], secondChanges: [String: Any]
        ) throws -> (second: NSManagedObjectContext, ann: NSManagedObject, error: NSError?, store: Suite) {
            let store = Suite(engine: engine, url: try engine.location("Conflict"))
            let (second, ann, error) = try store.conflictInThisStore(
                policy: policy, firstChanges: firstChanges, secondChanges: secondChanges)
            return (second, ann, error, store)
        }

        private func conflictInThisStore(
            policy: NSMergePolicy, firstChanges: [String: Any], secondChanges: [String: Any]
        ) throws -> (second: NSManagedObjectContext, ann: NSManagedObject, error: NSError?) {
            let seed = try newContext()
            try seed.performAndWait {
                _ = insert("Person", ["name": "Ann", "age": 30], into: seed)
                try seed.save()
            }
            let first = try newContext()
            let second = try newContext(policy: policy)
            let firstAnn = try first.performAndWait {
                try #require(try fetch("Person", sortedBy: "name", in: first).first)
            }
            let ann = try second.performAndWait { () throws -> NSManagedObject in
                let ann = try #require(try fetch("Person", sortedBy: "name", in: second).first)
                _ = ann.value(forKey: "age")
                return ann
            }
            try first.performAndWait {
                firstAnn.setValuesForKeys(firstChanges)
                try first.save()
            }
            let error = second.performAndWait { () -> NSError? in
                ann.setValuesForKeys(secondChanges)
                do {
                    try second.save()
                    return nil
                } catch {
                    return error as NSError
                }
            }
            return (second, ann, error)
        }

        func stored(_ key: String) throws -> Any? {
            let reader = try newContext()
            return try reader.performAndWait {
                try fetch("Person", sortedBy: "name", in: reader).first?.value(forKey: key)
            }
        }

        func conflictingSaveFails() throws {
            let (_, ann, error, store) = try conflict(
                policy: .error, firstChanges: ["age": 31], secondChanges: ["age": 40])
            let failure = try #require(error)
            #expect(failure.code == NSManagedObjectMergeError)
            let conflicts = try #require(failure.userInfo["conflictList"] as? [NSMergeConflict])
            #expect(conflicts.count == 1)
            #expect(conflicts.first?.sourceObject === ann)
            #expect(conflicts.first?.persistedSnapshot?["age"] as? Int64 == 31)
            #expect((conflicts.first?.newVersionNumber ?? 0) > (conflicts.first?.oldVersionNumber ?? 0))
            #expect(try store.stored("age") as? Int64 == 31)
        }

        func mergePolicies() throws {
            // The other writer changed age (and name); this one age (and name).
            let objectTrump = try conflict(
                policy: .mergeByPropertyObjectTrump, firstChanges: ["age": 31, "name": "Anne"],
                secondChanges: ["age": 40])
            #expect(objectTrump.error == nil)
            #expect(try objectTrump.store.stored("age") as? Int64 == 40)
            #expect(try objectTrump.store.stored("name") as? String == "Anne")

            let storeTrump = try conflict(
                policy: .mergeByPropertyStoreTrump, firstChanges: ["age": 31],
                secondChanges: ["age": 40, "name": "Annie"])
            #expect(storeTrump.error == nil)
            #expect(try storeTrump.store.stored("age") as? Int64 == 31)
            #expect(try storeTrump.store.stored("name") as? String == "Annie")

            let overwrite = try conflict(
                policy: .overwrite, firstChanges: ["age": 31, "name": "Anne"], secondChanges: ["age": 40])
            #expect(overwrite.error == nil)
            #expect(try overwrite.store.stored("age") as? Int64 == 40)
            #expect(try overwrite.store.stored("name") as? String == "Ann", "the whole object as this context has it")

            let rollback = try conflict(policy: .rollback, firstChanges: ["age": 31], secondChanges: ["age": 40])
            #expect(rollback.error == nil)
            #expect(try rollback.store.stored("age") as? Int64 == 31)
            #expect(rollback.second.performAndWait { rollback.ann.value(forKey: "age") as? Int64 } == 31)
        }

        func deletedElsewhere() throws {
            let seed = try newContext()
            try seed.performAndWait {
                _ = insert("Person", ["name": "Ann", "age": 30], into: seed)
                try seed.save()
            }
            let deleter = try newContext()
            let editor = try newContext()
            let ann = try editor.performAndWait { () throws -> NSManagedObject in
                let ann = try #require(try fetch("Person", sortedBy: "name", in: editor).first)
                _ = ann.value(forKey: "age")
                return ann
            }
            try deleter.performAndWait {
                deleter.delete(try #require(try fetch("Person", sortedBy: "name", in: deleter).first))
                try deleter.save()
            }
            let error = try #require(throws: NSError.self) {
                try editor.performAndWait {
                    ann.setValue(Int64(41), forKey: "age")
                    try editor.save()
                }
            }
            #expect(error.code == NSManagedObjectMergeError)
            let conflict = (error.userInfo["conflictList"] as? [NSMergeConflict])?.first
            #expect(conflict?.newVersionNumber == 0)
            #expect(conflict?.persistedSnapshot == nil)
            #expect(
                try newContext().performAndWait {
                    try newContext().count(for: NSFetchRequest<NSManagedObject>(entityName: "Person"))
                } == 0)
        }

        func uniqueness() throws {
            let first = try newContext()
            try first.performAndWait {
                _ = insert("Account", ["email": "ada@example.org", "name": "Ada"], into: first)
                try first.save()
            }
            let refusing = try newContext()
            try refusing.performAndWait {
                _ = insert("Account", ["email": "ada@example.org", "name": "Countess"], into: refusing)
                let error = try #require(throws: NSError.self) { try refusing.save() }
                #expect(error.code == NSManagedObjectConstraintMergeError)
                refusing.rollback()
            }
            let merging = try newContext(policy: .mergeByPropertyObjectTrump)
            try merging.performAndWait {
                _ = insert("Account", ["email": "ada@example.org", "name": "Countess"], into: merging)
                try merging.save()
            }
            let reader = try newContext()
            try reader.performAndWait {
                let accounts = try fetch("Account", sortedBy: "email", in: reader)
                #expect(accounts.count == 1)
                #expect(accounts.first?.value(forKey: "name") as? String == "Countess")
            }
        }
    }
}
