import OpenCoreData
import Testing

@Suite struct ValidationTests {
    let model = ModelBuilder.notesModel()

    @Test func missingRequiredValueFailsSaveWithAppleCodeAndKeys() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSValidationMissingMandatoryPropertyError)
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "name")
            #expect((error?.userInfo[NSValidationObjectErrorKey] as? NSManagedObject) === notebook)
            let before = try context.count(for: NSFetchRequest<Notebook>(entityName: "Notebook"))
            #expect(before == 1, "the unsaved object still counts in memory")
            context.rollback()
            let after = try context.count(for: NSFetchRequest<Notebook>(entityName: "Notebook"))
            #expect(after == 0, "nothing was written")
        }
    }

    @Test func predicatesMapToSpecificCodes() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = String(repeating: "x", count: 21)
            var error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSValidationStringTooLongError)
            #expect(error?.localizedDescription.contains("name too long") == true)
            notebook.name = "Coding Notes"
            let note = Note(context: context)
            #expect(note.pages == 1, "new objects get model defaults")
            note.pages = -3
            error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSValidationNumberTooSmallError)
            note.pages = 501
            error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSValidationNumberTooLargeError)
            note.pages = 10
            try context.save()
        }
    }

    @Test func severalProblemsGiveMultipleErrorsError() throws {
        let context = try makeContext(model)
        context.performAndWait {
            _ = Notebook(context: context)
            let note = Note(context: context)
            note.pages = -1
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSValidationMultipleErrorsError)
            let details = error?.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            #expect(Set(details.map(\.code)) == [NSValidationMissingMandatoryPropertyError, NSValidationNumberTooSmallError])
        }
    }

    @Test func wrongValueTypeIsRefusedAndReportedNotLost() throws {
        let context = try makeContext(model)
        try context.performAndWait {
            let note = Note(context: context)
            note.text = "kept"
            note.setValue("many", forKey: "pages")
            #expect(note.pages == 1, "the refused value did not replace the old one")
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSManagedObjectValidationError)
            #expect(error?.localizedDescription.contains("pages") == true)
            note.setValue(12, forKey: "pages")
            try context.save()
            #expect(note.pages == 12)
        }
    }

    @Test func unknownKeyOnSetIsReportedBySave() throws {
        let context = try makeContext(model)
        context.performAndWait {
            let note = Note(context: context)
            note.setValue("x", forKey: "colour")
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.localizedDescription.contains("colour") == true)
        }
    }

    @Test func denyRuleBlocksDelete() throws {
        let context = try makeContext(ModelBuilder.notesModel(notebookRule: .denyDeleteRule))
        try context.performAndWait {
            let notebook = Notebook(context: context)
            notebook.name = "Work"
            Note(context: context).notebook = notebook
            try context.save()
            context.delete(notebook)
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSValidationRelationshipDeniedDeleteError)
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "notes")
        }
    }

    @Test func overriddenValidationRunsOnSave() throws {
        final class Strict: NSManagedObject {
            @Managed var title: String?
            override func validateForInsert() throws {
                try super.validateForInsert()
                if title == "forbidden" {
                    throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError, userInfo: [NSLocalizedDescriptionKey: "forbidden title"])
                }
            }
        }
        let entity = ModelBuilder.entity("Strict", className: String(reflecting: Strict.self))
        entity.properties = [ModelBuilder.attribute("title", .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let context = try makeContext(model)
        try context.performAndWait {
            let object = Strict(context: context)
            object.title = "forbidden"
            #expect(throws: NSError.self) { try context.save() }
            object.title = "fine"
            try context.save()
        }
    }
}
