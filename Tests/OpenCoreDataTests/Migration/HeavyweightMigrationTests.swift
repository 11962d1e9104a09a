import Foundation
import Synchronization
@testable import OpenCoreDataCore
import Testing
import OpenCoreDataStoreTestSupport

/// Splits a full name into first and last names for the people and customers of
/// version 1, which version 2 merges into one Contact entity.
final class ContactNamePolicy: NSEntityMigrationPolicy, @unchecked Sendable {
    /// Names that make the migration fail, to test that a failing step changes nothing.
    /// Suites running at once add and remove their own names.
    static let refusedNames = Mutex<Set<String>>([])

    override func evaluateFunction(named selector: String, arguments: [Any?]) -> Any? {
        let parts = (arguments.first as? String ?? "").split(separator: " ", maxSplits: 1).map(String.init)
        switch selector {
        case "firstNameOf:": return parts.first
        case "lastNameOf:": return parts.count > 1 ? parts[1] : nil
        default: return nil
        }
    }

    override func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        let name = sInstance.value(forKey: "fullName") as? String ?? ""
        if Self.refusedNames.withLock({ $0.contains(name) }) {
            throw NSError(
                domain: "ContactNamePolicy", code: 7, userInfo: [NSLocalizedDescriptionKey: "\(name) cannot be split"])
        }
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
    }
}

/// Heavyweight migration with `NSMigrationManager`: a mapping model built in code, with
/// value expressions, `$manager` functions and a custom `NSEntityMigrationPolicy`.
@Suite(.serialized) struct HeavyweightMigrationTests {
    /// Version 1: Person(fullName) and Customer(fullName, email), each with notes.
    static func version1() -> NSManagedObjectModel {
        let person = ModelBuilder.entity("Person")
        let customer = ModelBuilder.entity("Customer")
        let note = ModelBuilder.entity("Note")
        person.properties = [ModelBuilder.attribute("fullName", .stringAttributeType)]
        customer.properties = [
            ModelBuilder.attribute("fullName", .stringAttributeType),
            ModelBuilder.attribute("email", .stringAttributeType),
        ]
        note.properties = [ModelBuilder.attribute("text", .stringAttributeType)]
        let (notes, author) = ModelBuilder.pair("notes", from: person, toMany: true, "author", to: note, toMany: false)
        person.properties += [notes]
        note.properties += [author]
        return ModelBuilder.model(person, customer, note)
    }

    /// Version 2: Contact(firstName, lastName, email, isCustomer) with its notes.
    static func version2() -> NSManagedObjectModel {
        let contact = ModelBuilder.entity("Contact")
        let note = ModelBuilder.entity("Note")
        contact.properties = [
            ModelBuilder.attribute("firstName", .stringAttributeType),
            ModelBuilder.attribute("lastName", .stringAttributeType),
            ModelBuilder.attribute("email", .stringAttributeType),
            ModelBuilder.attribute("isCustomer", .booleanAttributeType, optional: false, defaultValue: false),
        ]
        note.properties = [ModelBuilder.attribute("text", .stringAttributeType, optional: false)]
        let (notes, author) = ModelBuilder.pair("notes", from: contact, toMany: true, "author", to: note, toMany: false)
        contact.properties += [notes]
        note.properties += [author]
        return ModelBuilder.model(contact, note)
    }

    static func mapping() throws -> NSMappingModel {
        func property(_ name: String, _ format: String) throws -> NSPropertyMapping {
            let mapping = NSPropertyMapping()
            mapping.name = name
            mapping.valueExpression = try NSExpression.parse(format: format)
            return mapping
        }
        func entity(
            _ source: String, _ destination: String, _ attributes: [NSPropertyMapping],
            _ relationships: [NSPropertyMapping] = []
        ) -> NSEntityMapping {
            let mapping = NSEntityMapping()
            mapping.name = "\(source)To\(destination)"
            mapping.mappingType = .customEntityMappingType
            mapping.sourceEntityName = source
            mapping.destinationEntityName = destination
            mapping.entityMigrationPolicyClassName = String(reflecting: ContactNamePolicy.self)
            mapping.attributeMappings = attributes
            mapping.relationshipMappings = relationships
            return mapping
        }
        let names = [
            try property("firstName", #"FUNCTION($entityPolicy, "firstNameOf:", $source.fullName)"#),
            try property("lastName", #"FUNCTION($entityPolicy, "lastNameOf:", $source.fullName)"#),
        ]
        let people = entity("Person", "Contact", names)
        let customers = entity(
            "Customer", "Contact", names + [try property("email", "$source.email"), try property("isCustomer", "YES")])
        customers.sourceExpression = try NSExpression.parse(
            format:
                #"FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Customer", "email != nil")"#)
        let notes = entity(
            "Note", "Note", [try property("text", "$source.text")],
            [
                try property(
                    "author",
                    #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToContact", $source.author)"#
                )
            ])
        notes.entityMigrationPolicyClassName = nil
        let model = NSMappingModel()
        model.entityMappings = [people, customers, notes]
        return model
    }

    /// A version 1 store: two people (one with two notes), two customers (one without an email).
    private func makeSource() throws -> URL {
        let url = temporaryStoreURL("People")
        let context = try makeContext(Self.version1(), url: url)
        try Self.insertVersion1Objects(
            into: context, people: ["Ada Lovelace", "Plato"], customers: ["Grace Hopper", "No Mail"])
        try context.persistentStoreCoordinator?.persistentStores.forEach {
            try context.persistentStoreCoordinator?.remove($0)
        }
        return url
    }

    /// Saves version 1 objects: the people (the first with the notes "first" and "second")
    /// and the customers (the first with an email made of its first name).
    static func insertVersion1Objects(
        into context: NSManagedObjectContext, people: [String], customers: [String]
    ) throws {
        try context.performAndWait {
            for (index, name) in people.enumerated() {
                let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                person.setValue(name, forKey: "fullName")
                guard index == 0 else { continue }
                for text in ["first", "second"] {
                    let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
                    note.setValue(text, forKey: "text")
                    note.setValue(person, forKey: "author")
                }
            }
            for (index, name) in customers.enumerated() {
                let customer = NSEntityDescription.insertNewObject(forEntityName: "Customer", into: context)
                customer.setValue(name, forKey: "fullName")
                if index == 0 {
                    customer.setValue("\(name.split(separator: " ")[0].lowercased())@example.com", forKey: "email")
                }
            }
            try context.save()
        }
    }

    @Test func aCustomPolicySplitsAnAttributeAndMergesTwoEntities() throws {
        let source = try makeSource()
        let before = try Data(contentsOf: source)
        let destination = temporaryStoreURL("Contacts")
        let manager = NSMigrationManager(sourceModel: Self.version1(), destinationModel: Self.version2())
        try manager.migrateStore(
            from: source, type: .sqlite, mapping: try Self.mapping(), to: destination, type: .sqlite)
        #expect(manager.migrationProgress == 1)
        #expect(manager.progress.fractionCompleted == 1)
        #expect(try Data(contentsOf: source) == before, "the source store is only read")

        let context = try makeContext(Self.version2(), url: destination)
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Contact")
            request.sortDescriptors = [NSSortDescriptor(key: "firstName", ascending: true)]
            let contacts = try context.fetch(request)
            #expect(contacts.map { $0.value(forKey: "firstName") as? String } == ["Ada", "Grace", "Plato"])
            #expect(contacts.map { $0.value(forKey: "lastName") as? String } == ["Lovelace", "Hopper", nil])
            #expect(contacts.map { $0.value(forKey: "isCustomer") as? Bool } == [false, true, false])
            #expect(contacts[1].value(forKey: "email") as? String == "grace@example.com")
            let notes = (contacts[0].value(forKey: "notes") as? Set<NSManagedObject>) ?? []
            #expect(Set(notes.compactMap { $0.value(forKey: "text") as? String }) == ["first", "second"])
        }
    }

    @Test func aFailingPolicyNamesItsMappingAndLeavesNothingBehind() throws {
        let source = try makeSource()
        let before = try Data(contentsOf: source)
        let destination = temporaryStoreURL("Contacts")
        ContactNamePolicy.refusedNames.withLock { _ = $0.insert("Grace Hopper") }
        defer { ContactNamePolicy.refusedNames.withLock { _ = $0.remove("Grace Hopper") } }
        let manager = NSMigrationManager(sourceModel: Self.version1(), destinationModel: Self.version2())
        #expect {
            try manager.migrateStore(
                from: source, type: .sqlite, mapping: try Self.mapping(), to: destination, type: .sqlite)
        } throws: { error in
            let error = error as NSError
            return error.domain == "ContactNamePolicy" && error.code == 7
                && error.userInfo[NSMigrationEntityMappingKey] as? String == "CustomerToContact"
                && error.localizedDescription.contains("CustomerToContact")
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(try Data(contentsOf: source) == before)
    }

    @Test func aValidationErrorNamesTheMappingThatMadeTheObject() throws {
        let source = try makeSource()
        let mapping = try Self.mapping()
        // Note.text is required in version 2; this mapping leaves it empty.
        mapping.entityMappingsByName["NoteToNote"]?.attributeMappings = []
        let destination = temporaryStoreURL("Contacts")
        let manager = NSMigrationManager(sourceModel: Self.version1(), destinationModel: Self.version2())
        #expect {
            try manager.migrateStore(from: source, type: .sqlite, mapping: mapping, to: destination, type: .sqlite)
        } throws: { error in
            (error as NSError).userInfo[NSMigrationEntityMappingKey] as? String == "NoteToNote"
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func cancellingStopsTheMigrationWithTheGivenError() throws {
        let source = try makeSource()
        let destination = temporaryStoreURL("Contacts")
        let manager = NSMigrationManager(sourceModel: Self.version1(), destinationModel: Self.version2())
        manager.progress.cancel()
        #expect {
            try manager.migrateStore(
                from: source, type: .sqlite, mapping: try Self.mapping(), to: destination, type: .sqlite)
        } throws: { error in
            (error as NSError).code == NSMigrationCancelledError
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func withoutAMappingTheManagerInfersOne() throws {
        // Lightweight changes by objects: an attribute renamed and one added.
        let old = ModelBuilder.entity("Event")
        old.properties = [
            ModelBuilder.attribute("when", .dateAttributeType), ModelBuilder.attribute("title", .stringAttributeType),
        ]
        let new = ModelBuilder.entity("Event")
        let name = ModelBuilder.attribute("name", .stringAttributeType)
        name.renamingIdentifier = "title"
        new.properties = [
            ModelBuilder.attribute("when", .dateAttributeType), name,
            ModelBuilder.attribute("count", .integer32AttributeType, optional: false, defaultValue: 3),
        ]
        let (oldModel, newModel) = (ModelBuilder.model(old), ModelBuilder.model(new))
        let source = temporaryStoreURL("Events")
        let context = try makeContext(oldModel, url: source)
        let date = Date(timeIntervalSinceReferenceDate: 1_000)
        try context.performAndWait {
            let event = NSEntityDescription.insertNewObject(forEntityName: "Event", into: context)
            event.setValue(date, forKey: "when")
            event.setValue("launch", forKey: "title")
            try context.save()
        }
        let destination = temporaryStoreURL("Events")
        let manager = NSMigrationManager(sourceModel: oldModel, destinationModel: newModel)
        try manager.migrateStore(
            from: source, sourceType: NSSQLiteStoreType, with: nil, toDestinationURL: destination,
            destinationType: NSSQLiteStoreType)
        let migrated = try makeContext(newModel, url: destination)
        try migrated.performAndWait {
            let event = try #require(try migrated.fetch(NSFetchRequest<NSManagedObject>(entityName: "Event")).first)
            #expect(event.value(forKey: "name") as? String == "launch")
            #expect(event.value(forKey: "when") as? Date == date)
            #expect(event.value(forKey: "count") as? Int32 == 3)
        }
    }
}
