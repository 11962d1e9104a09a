import OpenCoreData
import Testing
import OpenCoreDataStoreTestSupport

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
            #expect(
                Set(details.map(\.code)) == [
                    NSValidationMissingMandatoryPropertyError, NSValidationNumberTooSmallError,
                ])
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
                    throw NSError(
                        domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError,
                        userInfo: [NSLocalizedDescriptionKey: "forbidden title"])
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

    // MARK: Rules the model editor writes as predicates, and required to-ones

    /// Event → Venue (required to-one), with a date range, a code pattern and a minimum title length.
    static func eventModel() -> NSManagedObjectModel {
        let event = ModelBuilder.entity("Event", className: "NSManagedObject")
        let venue = ModelBuilder.entity("Venue", className: "NSManagedObject")
        let (eventVenue, venueEvents) = ModelBuilder.pair(
            "venue", from: event, toMany: false, "events", to: venue, toMany: true)
        eventVenue.isOptional = false
        let date = ModelBuilder.attribute("date", .dateAttributeType)
        date.setValidationPredicates(
            [NSPredicate(format: "SELF >= %@", Self.earliest), NSPredicate(format: "SELF <= %@", Self.latest)],
            withValidationWarnings: ["too early", "too late"])
        let code = ModelBuilder.attribute("code", .stringAttributeType)
        code.setValidationPredicates(
            [NSPredicate(format: "SELF MATCHES %@", "[A-Z]{3}[0-9]+")], withValidationWarnings: ["code like ABC1"])
        let title = ModelBuilder.attribute("title", .stringAttributeType)
        title.setValidationPredicates([NSPredicate(format: "length >= 3")], withValidationWarnings: ["title too short"])
        event.properties = [date, code, title, eventVenue]
        venue.properties = [ModelBuilder.attribute("name", .stringAttributeType), venueEvents]
        return ModelBuilder.model(event, venue)
    }

    static let earliest = Date(timeIntervalSinceReferenceDate: 0)
    static let latest = Date(timeIntervalSinceReferenceDate: 1_000_000)

    /// Saves `context`, expects one validation error with `code` for `key` of `object`, and
    /// checks that nothing reached the store (a fresh context on it sees no events).
    private func expectRejected(
        _ context: NSManagedObjectContext, code: Int, key: String, object: NSManagedObject,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let error = #expect(throws: NSError.self, sourceLocation: sourceLocation) { try context.save() }
        #expect(error?.domain == NSCocoaErrorDomain, sourceLocation: sourceLocation)
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == key, sourceLocation: sourceLocation)
        #expect(
            (error?.userInfo[NSValidationObjectErrorKey] as? NSManagedObject) === object, sourceLocation: sourceLocation
        )
        let fresh = siblingContext(of: context)
        let stored = try fresh.performAndWait {
            try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Event"))
        }
        #expect(stored == 0, "a failed save writes nothing", sourceLocation: sourceLocation)
    }

    /// A valid event at a new venue, unsaved.
    private func validEvent(in context: NSManagedObjectContext) -> NSManagedObject {
        let event = NSEntityDescription.insertNewObject(forEntityName: "Event", into: context)
        event.setValue(Date(timeIntervalSinceReferenceDate: 500), forKey: "date")
        event.setValue("ABC12", forKey: "code")
        event.setValue("Launch", forKey: "title")
        event.setValue(NSEntityDescription.insertNewObject(forEntityName: "Venue", into: context), forKey: "venue")
        return event
    }

    @Test func dateRangePatternAndLengthRulesHaveTheirOwnCodes() throws {
        let context = try makeContext(Self.eventModel())
        try context.performAndWait {
            let event = validEvent(in: context)
            let rejected: [(key: String, value: Any, code: Int)] = [
                ("date", Self.earliest.addingTimeInterval(-1), NSValidationDateTooSoonError),
                ("date", Self.latest.addingTimeInterval(1), NSValidationDateTooLateError),
                ("code", "abc12", NSValidationStringPatternMatchingError),
                ("code", "ABC12x", NSValidationStringPatternMatchingError),  // the whole string must match
                ("title", "Go", NSValidationStringTooShortError),
            ]
            for (key, value, code) in rejected {
                let valid = event.value(forKey: key)
                event.setValue(value, forKey: key)
                try expectRejected(context, code: code, key: key, object: event)
                event.setValue(valid, forKey: key)
            }
            // The bounds themselves are allowed.
            event.setValue(Self.latest, forKey: "date")
            event.setValue("Go!", forKey: "title")
            try context.save()
        }
    }

    @Test func missingRequiredToOneIsAMissingMandatoryProperty() throws {
        let context = try makeContext(Self.eventModel())
        try context.performAndWait {
            let event = validEvent(in: context)
            let venue = event.value(forKey: "venue") as! NSManagedObject
            event.setValue(nil, forKey: "venue")
            try expectRejected(context, code: NSValidationMissingMandatoryPropertyError, key: "venue", object: event)
            event.setValue(venue, forKey: "venue")
            try context.save()
        }
    }

    // MARK: Relationship counts

    /// Team ↔ Player, where a team's optional `players` holds 2 to 3 players when not empty.
    static func teamModel() -> NSManagedObjectModel {
        let team = ModelBuilder.entity("Team", className: "NSManagedObject")
        let player = ModelBuilder.entity("Player", className: "NSManagedObject")
        let (players, playerTeam) = ModelBuilder.pair(
            "players", from: team, toMany: true, "team", to: player, toMany: false)
        players.minCount = 2
        players.maxCount = 3
        team.properties = [ModelBuilder.attribute("name", .stringAttributeType), players]
        player.properties = [playerTeam]
        return ModelBuilder.model(team, player)
    }

    @Test func toManyCountsOutsideMinAndMaxFailTheSave() throws {
        let context = try makeContext(Self.teamModel())
        try context.performAndWait {
            let team = NSEntityDescription.insertNewObject(forEntityName: "Team", into: context)
            try context.save()  // an optional relationship may be empty whatever its minimum
            let players = (0..<4).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Player", into: context)
            }
            team.setValue(NSSet(array: [players[0]]), forKey: "players")
            var error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSValidationRelationshipLacksMinimumCountError)
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "players")
            #expect((error?.userInfo[NSValidationObjectErrorKey] as? NSManagedObject) === team)
            team.setValue(NSSet(array: players), forKey: "players")
            error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSValidationRelationshipExceedsMaximumCountError)
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "players")
            let fresh = siblingContext(of: context)
            let stored = try fresh.performAndWait {
                try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Player"))
            }
            #expect(stored == 0)
            team.setValue(NSSet(array: Array(players.prefix(3))), forKey: "players")
            try context.save()
        }
    }

    // MARK: Validation warnings

    @Test func validationWarningIsTheErrorMessageAndThePredicateIsReported() throws {
        let context = try makeContext(model)
        context.performAndWait {
            let note = Note(context: context)
            note.pages = 501
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.code == NSValidationNumberTooLargeError)
            #expect(error?.localizedDescription.contains("too many pages") == true)
            #expect(
                error?.localizedDescription.contains("negative pages") == false, "only the failed predicate's warning")
            #expect((error?.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)?.predicateFormat == "SELF <= 500")
            #expect((error?.userInfo[NSValidationValueErrorKey] as? NSNumber)?.intValue == 501)
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
}
