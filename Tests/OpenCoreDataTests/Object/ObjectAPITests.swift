import OpenCoreData
import Testing
import OpenCoreDataStoreTestSupport

/// Records the change and access hooks it receives, to tell primitive access from the
/// ordinary kind; rejects titles its `validateValue` override dislikes, and refuses
/// updates and deletes when told to.
final class Watched: NSManagedObject {
    @Managed var title: String?
    @Managed var rank: Int16
    @Managed var parent: Watched?
    @Managed var children: NSSet?
    var hooks: [String] = []
    var refusesUpdate = false
    var refusesDelete = false

    override func willChangeValue(forKey key: String) {
        hooks.append("willChange \(key)"); super.willChangeValue(forKey: key)
    }
    override func didChangeValue(forKey key: String) {
        hooks.append("didChange \(key)"); super.didChangeValue(forKey: key)
    }
    override func willAccessValue(forKey key: String?) {
        hooks.append("willAccess \(key ?? "")"); super.willAccessValue(forKey: key)
    }

    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        try super.validateValue(&value, forKey: key)
        if key == "title", value as? String == "forbidden" {
            throw NSError(
                domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError,
                userInfo: [NSLocalizedDescriptionKey: "title may not be 'forbidden'", NSValidationKeyErrorKey: key])
        }
    }

    override func validateForUpdate() throws {
        try super.validateForUpdate()
        if refusesUpdate {
            throw NSError(
                domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError,
                userInfo: [NSLocalizedDescriptionKey: "update refused"])
        }
    }

    override func validateForDelete() throws {
        try super.validateForDelete()
        if refusesDelete {
            throw NSError(
                domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError,
                userInfo: [NSLocalizedDescriptionKey: "delete refused"])
        }
    }
}

/// `NSManagedObject` and context API that apps call directly.
@Suite struct ObjectAPITests {
    static func model() -> NSManagedObjectModel {
        let watched = ModelBuilder.entity("Watched", className: String(reflecting: Watched.self))
        let (children, parent) = ModelBuilder.pair(
            "children", from: watched, toMany: true, "parent", to: watched, toMany: false)
        let title = ModelBuilder.attribute("title", .stringAttributeType)
        title.setValidationPredicates([NSPredicate(format: "length <= 10")], withValidationWarnings: ["title too long"])
        watched.properties = [
            title, ModelBuilder.attribute("rank", .integer16AttributeType, optional: false, defaultValue: 0), parent,
            children,
        ]
        return ModelBuilder.model(watched)
    }

    /// How many `Watched` rows the store holds, seen from a fresh context.
    private func storedCount(_ context: NSManagedObjectContext, _ predicate: NSPredicate? = nil) throws -> Int {
        let fresh = siblingContext(of: context)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Watched")
        request.predicate = predicate
        return try fresh.performAndWait { try fresh.count(for: request) }
    }

    @Test func primitiveAccessSkipsTheHooksAndTheInverse() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let object = Watched(context: context)
            let other = Watched(context: context)
            object.hooks = []
            object.setPrimitiveValue("quiet", forKey: "title")
            object.setPrimitiveValue(3, forKey: "rank")
            object.setPrimitiveValue(other, forKey: "parent")
            #expect(object.primitiveValue(forKey: "title") as? String == "quiet")
            #expect((object.primitiveValue(forKey: "rank") as? NSNumber)?.intValue == 3)
            #expect(object.primitiveValue(forKey: "parent") as? Watched === other)
            #expect(object.hooks.isEmpty, "primitive access sends no change or access notifications: \(object.hooks)")
            #expect(other.children?.count ?? 0 == 0, "a primitive write leaves the inverse to the caller")

            object.title = "loud"
            #expect(object.hooks == ["willChange title", "didChange title"], "the ordinary setter does send them")
            try context.save()
            #expect(try storedCount(context, NSPredicate(format: "title == 'loud' AND rank == 3")) == 1)
        }
    }

    @Test func validateValueChecksOneValueAndSubclassesExtendIt() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let object = Watched(context: context)
            var value: Any? = "fine"
            try object.validateValue(&value, forKey: "title")
            value = "much too long a title"
            var error = #expect(throws: NSError.self) { try object.validateValue(&value, forKey: "title") }
            #expect(error?.code == NSValidationStringTooLongError)
            value = nil
            error = #expect(throws: NSError.self) { try object.validateValue(&value, forKey: "rank") }
            #expect(error?.code == NSValidationMissingMandatoryPropertyError)
            value = "forbidden"
            error = #expect(throws: NSError.self) { try object.validateValue(&value, forKey: "title") }
            #expect(error?.localizedDescription == "title may not be 'forbidden'")

            // Saving consults the override for every property.
            object.title = "forbidden"
            error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.localizedDescription == "title may not be 'forbidden'")
            #expect(try storedCount(context) == 0)
            object.title = "allowed"
            try context.save()
            #expect(try storedCount(context) == 1)
        }
    }

    @Test func throwingValidateForUpdateOrDeleteFailsTheSave() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let object = Watched(context: context)
            object.title = "saved"
            try context.save()

            object.refusesUpdate = true
            object.title = "changed"
            var error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.localizedDescription == "update refused")
            #expect(
                try storedCount(context, NSPredicate(format: "title == 'saved'")) == 1, "the update was not written")
            object.refusesUpdate = false
            try context.save()

            object.refusesDelete = true
            context.delete(object)
            error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.localizedDescription == "delete refused")
            #expect(try storedCount(context) == 1, "the delete was not written")
            object.refusesDelete = false
            try context.save()
            #expect(try storedCount(context) == 0)
        }
    }

    @Test func changeSetsAndStateFlagsFollowTheObjects() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let kept = Watched(context: context), changed = Watched(context: context),
                doomed = Watched(context: context)
            #expect(kept.isInserted && !kept.isUpdated && !kept.isDeleted)
            #expect(context.insertedObjects == [kept, changed, doomed])
            try context.save()
            #expect(!kept.isInserted && !kept.hasChanges)
            #expect(context.insertedObjects.isEmpty && context.updatedObjects.isEmpty && context.deletedObjects.isEmpty)

            changed.title = "new"
            context.delete(doomed)
            let fresh = Watched(context: context)
            #expect(context.insertedObjects == [fresh])
            #expect(context.updatedObjects == [changed])
            #expect(context.deletedObjects == [doomed])
            #expect(changed.isUpdated && doomed.isDeleted && fresh.isInserted)
            try context.save()
            #expect(!fresh.isInserted && !changed.isUpdated)
            #expect(doomed.managedObjectContext == nil)
            #expect(context.insertedObjects.isEmpty && context.updatedObjects.isEmpty && context.deletedObjects.isEmpty)
        }
    }

    @Test func objectMadeWithoutAContextCanBeInsertedLater() throws {
        let model = Self.model()
        let context = try makeContext(model)
        try context.performAndWait {
            let entity = try #require(NSEntityDescription.entity(forEntityName: "Watched", in: context))
            let object = Watched(entity: entity, insertInto: nil)
            object.title = "loose"
            #expect(object.managedObjectContext == nil)
            #expect(!object.isInserted && !context.hasChanges)
            context.insert(object)
            #expect(object.managedObjectContext === context)
            #expect(object.isInserted)
            #expect(context.insertedObjects == [object])
            try context.save()
            #expect(!object.objectID.isTemporaryID)
            #expect(
                try storedCount(context, NSPredicate(format: "title == 'loose'")) == 1,
                "values set before insertion are saved")
        }
    }
}
