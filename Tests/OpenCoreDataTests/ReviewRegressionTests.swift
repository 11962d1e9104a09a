import OpenCoreData
import Testing

/// Regressions found in review: each test pins one fixed bug.
@Suite struct ReviewRegressionTests {
    @Test func selfInverseManyToManyIsSaved() throws {
        let person = ModelBuilder.entity("Person", className: "NSManagedObject")
        let friends = NSRelationshipDescription()
        friends.name = "friends"
        friends.destinationEntity = person
        friends.maxCount = 0
        friends.inverseRelationship = friends
        person.properties = [ModelBuilder.attribute("name", .stringAttributeType), friends]
        let model = NSManagedObjectModel()
        model.entities = [person]
        let url = temporaryStoreURL()
        try makeContext(model, url: url).performAndWait {}
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let a = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            a.setValue("a", forKey: "name")
            let b = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            b.setValue("b", forKey: "name")
            a.mutableSetValue(forKey: "friends").add(b)
            #expect((b.value(forKey: "friends") as? NSSet)?.contains(a) == true)
            try context.save()
        }
        let reopened = try makeContext(model, url: url)
        try reopened.performAndWait {
            let people = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
            #expect(people.count == 2)
            for person in people { #expect((person.value(forKey: "friends") as? NSSet)?.count == 1) }
        }
    }

    @Test func orderOfTheOtherManyToManySideIsSaved() throws {
        let alpha = ModelBuilder.entity("Alpha", className: "NSManagedObject")
        let zed = ModelBuilder.entity("Zed", className: "NSManagedObject")
        let (zeds, alphas) = ModelBuilder.pair("zeds", from: alpha, toMany: true, "alphas", to: zed, toMany: true)
        alphas.isOrdered = true
        alpha.properties = [ModelBuilder.attribute("name", .stringAttributeType), zeds]
        zed.properties = [alphas]
        let model = NSManagedObjectModel()
        model.entities = [alpha, zed]
        let url = temporaryStoreURL()
        let context = try makeContext(model, url: url)
        try context.performAndWait {
            let z = NSEntityDescription.insertNewObject(forEntityName: "Zed", into: context)
            let list = z.mutableOrderedSetValue(forKey: "alphas")
            for name in ["c", "a", "b"] {
                let a = NSEntityDescription.insertNewObject(forEntityName: "Alpha", into: context)
                a.setValue(name, forKey: "name")
                list.add(a)
            }
            try context.save()
            list.exchangeObject(at: 0, withObjectAt: 2)
            try context.save()
        }
        let reopened = try makeContext(model, url: url)
        try reopened.performAndWait {
            let z = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zed")).first
            let names = (z?.value(forKey: "alphas") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String }
            #expect(names == ["b", "a", "c"])
        }
    }

    @Test func snapshotsAfterSaveHoldPermanentIDs() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            let note = Note(context: context)
            let notebook = Notebook(context: context)
            notebook.name = "N"
            note.notebook = notebook
            try context.save()
            let committed = note.committedValues(forKeys: ["notebook"])["notebook"] as? NSManagedObject
            #expect(committed === notebook)
            #expect(context.registeredObjects.count == 2)
            #expect(note.changedValues().isEmpty)
        }
    }

    @Test func notAgreesWithMemoryOnNulls() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        try context.performAndWait {
            for text in [nil, nil, "Bob"] as [String?] { Note(context: context).text = text }
            try context.save()
            let predicate = NSPredicate(format: "NOT (text == 'Bob')")
            let request = Note.fetchRequest()
            request.predicate = predicate
            let stored = try context.count(for: request)
            let all = try context.fetch(Note.fetchRequest())
            #expect(stored == all.filter { predicate.evaluate(with: $0) }.count)
            #expect(stored == 2)
        }
    }

    @Test func wrongEntityInRelationshipIsRefused() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        context.performAndWait {
            let note = Note(context: context)
            let other = Note(context: context)
            note.setValue(other, forKey: "notebook")
            #expect(note.notebook == nil)
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.localizedDescription.contains("Notebook") == true)
        }
    }

    @Test func insertedThenDeletedObjectsLeaveTheContext() throws {
        let context = try makeContext(ModelBuilder.notesModel())
        context.performAndWait {
            let note = Note(context: context)
            context.delete(note)
            context.processPendingChanges()
            #expect(note.managedObjectContext == nil)
            #expect(context.registeredObjects.isEmpty)
            #expect(!context.hasChanges)
        }
    }

    @Test func deletingARowChangedElsewhereIsAConflict() throws {
        let url = temporaryStoreURL()
        let model = ModelBuilder.notesModel()
        let first = try makeContext(model, url: url)
        let second = try makeContext(model, url: url)
        // The first context keeps its object (and so its snapshot, version 1) alive, as an app would.
        let kept = try first.performAndWait {
            let note = Note(context: first)
            note.text = "v1"
            try first.save()
            return note
        }
        let id = first.performAndWait { kept.objectID }
        try second.performAndWait {
            let note = try second.existingObject(with: second.persistentStoreCoordinator!.managedObjectID(forURIRepresentation: id.uriRepresentation())!)
            note.setValue("v2", forKey: "text")
            try second.save()
        }
        first.performAndWait {
            first.delete(kept)
            let error = #expect(throws: NSError.self) { try first.save() }
            #expect(error?.code == NSManagedObjectMergeError)
        }
    }
}
