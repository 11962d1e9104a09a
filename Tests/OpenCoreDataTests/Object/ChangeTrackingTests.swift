@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// A class whose declared Swift types differ from its attributes' types on purpose:
/// `reading` is Integer 16 in the model, `label` is String.
final class Gauge: NSManagedObject {
    @Managed var reading: Int64
    @Managed var label: String?
}

/// How writes are tracked: typed accessors, identity-keyed change sets, temporary IDs
/// in the registry, and what a save promotes.
@Suite struct ChangeTrackingTests {
    let model = ModelBuilder.notesModel()

    static func gaugeModel() -> NSManagedObjectModel {
        let gauge = ModelBuilder.entity("Gauge")
        gauge.properties = [
            ModelBuilder.attribute("reading", .integer16AttributeType, optional: false, defaultValue: 0),
            ModelBuilder.attribute("label", .stringAttributeType),
        ]
        let model = NSManagedObjectModel()
        model.entities = [gauge]
        return model
    }

    @Test func typedSettersMarkASavedObjectUpdatedOnce() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Draft"
            #expect(context.updatedObjects.isEmpty, "writes to a new object do not make it updated")
            try context.save()
            notebook.name = "Final"
            notebook.creationDate = Date(timeIntervalSinceReferenceDate: 100)
            notebook.name = "Final, really"
            #expect(context.updatedObjects.count == 1)
            #expect(notebook.isUpdated)
            #expect(Set(notebook.changedValues().keys) == ["name", "creationDate"])
            #expect(notebook.changedValues()["name"] as? String == "Final, really")
            try context.save()
            #expect(!notebook.hasChanges)
        }
    }

    @Test func aDeclaredTypeOtherThanTheAttributesIsCoercedOrRefused() throws {
        let context = try makeContext(Self.gaugeModel())
        try context.performAndWait {
            let gauge = Gauge(context: context)
            gauge.reading = 7
            gauge.label = "boiler"
            #expect(gauge.primitiveValue(forKey: "reading") as? Int16 == 7, "stored in the attribute's own type")
            #expect(gauge.reading == 7)
            try context.save()

            gauge.reading = 100_000
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.localizedDescription.contains("reading") == true)
            gauge.reading = 12
            try context.save()
            let reader = siblingContext(of: context)
            let stored = try reader.performAndWait {
                try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Gauge")).first?.value(forKey: "reading")
                    as? Int
            }
            #expect(stored == 12)
        }
    }

    @Test func temporaryIDsFindTheirObjectsUntilTheSave() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let kept = Notebook(context: context)
            let dropped = Notebook(context: context)
            kept.name = "kept"
            dropped.name = "dropped"
            let keptTemporary = kept.objectID
            let droppedTemporary = dropped.objectID
            #expect(keptTemporary.isTemporaryID)
            #expect(kept.objectID === keptTemporary, "an object keeps one temporary ID")
            #expect(context.registeredObject(for: keptTemporary) === kept)
            #expect(context.object(with: droppedTemporary) === dropped)

            context.delete(dropped)
            try context.save()
            #expect(!kept.objectID.isTemporaryID)
            #expect(context.registeredObject(for: kept.objectID) === kept)
            #expect(context.registeredObject(for: keptTemporary) == nil)
            #expect(context.registeredObject(for: droppedTemporary) == nil)
            #expect(context.registeredObjects.count == 1)
        }
    }

    @Test func fetchedObjectsHavePermanentIDsAndIdentityChangeSets() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            for name in ["a", "b", "c"] { Notebook(context: context).name = name }
            try context.save()
            context.reset()
            let notebooks = try context.fetch(Notebook.fetchRequest())
            #expect(notebooks.count == 3)
            #expect(notebooks.allSatisfy { !$0.objectID.isTemporaryID })
            for notebook in notebooks { notebook.name = (notebook.name ?? "") + "!" }
            for notebook in notebooks { notebook.name = (notebook.name ?? "") + "?" }
            #expect(context.updatedObjects.count == 3, "each object counted once however often it changes")
            context.delete(notebooks[0])
            #expect(context.updatedObjects.count == 2)
            #expect(context.deletedObjects == [notebooks[0]])
            try context.save()
            #expect(try context.count(for: Notebook.fetchRequest()) == 2)
        }
    }

    @Test func transientValuesStayInTheirContext() throws {
        let runner = ModelBuilder.entity("Runner", className: "NSManagedObject")
        let (pacer, pacing) = ModelBuilder.pair(
            "pacer", from: runner, toMany: false, "pacing", to: runner, toMany: true)
        pacer.isTransient = true
        pacing.isTransient = true
        let mood = ModelBuilder.attribute("mood", .stringAttributeType)
        mood.isTransient = true
        runner.properties = [ModelBuilder.attribute("name", .stringAttributeType), mood, pacer, pacing]
        let model = NSManagedObjectModel()
        model.entities = [runner]
        let context = try makeContext(model)
        try context.performAndWait {
            let first = NSManagedObject(entity: runner, insertInto: context)
            let second = NSManagedObject(entity: runner, insertInto: context)
            first.setValue("first", forKey: "name")
            first.setValue("calm", forKey: "mood")
            first.setValue(second, forKey: "pacer")
            try context.save()
            #expect(
                first.value(forKey: "pacer") as? NSManagedObject === second,
                "the saving context keeps its transient values")
            #expect(first.value(forKey: "mood") as? String == "calm")

            let reader = siblingContext(of: context)
            let id = first.objectID
            let (name, mood, pacer) = reader.performAndWait {
                let copy = reader.object(with: id)
                return (
                    copy.value(forKey: "name") as? String, copy.value(forKey: "mood") as? String,
                    copy.value(forKey: "pacer") as? NSManagedObject
                )
            }
            #expect(name == "first")
            #expect(mood == nil, "transient attributes are not shared through the row cache")
            #expect(pacer == nil, "nor are transient relationships")
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
}
