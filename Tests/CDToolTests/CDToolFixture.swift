import OpenCoreDataTestSupport
import CDToolCore
import OpenCoreData
import Testing

/// The model and store the cdtool tests work on: every attribute type the tools
/// distinguish, inheritance, and each way the SQLite layout keeps a relationship
/// (to-one key, many-to-many join table with an ordered side, a self-inverse join
/// table, a to-one without inverse, a to-many without inverse).
///
/// Family ↔ Person.family/members, Person ↔ Tag (tags ordered, people), Person.friends
/// (its own inverse), Student : Person, Note.owner → Person and Note.links → Tag
/// (no inverses).
enum CDToolFixture {
    static func model() -> NSManagedObjectModel {
        let family = entity("Family", [attribute("name", .stringAttributeType)])
        let person = entity(
            "Person",
            [
                attribute("name", .stringAttributeType, optional: false, defaultValue: "Anonymous"),
                attribute("age", .integer16AttributeType, defaultValue: 0),
                attribute("birthday", .dateAttributeType),
                attribute("photo", .binaryDataAttributeType),
                attribute("active", .booleanAttributeType),
                attribute("score", .doubleAttributeType),
                attribute("identifier", .UUIDAttributeType),
                attribute("homepage", .URIAttributeType),
                attribute("balance", .decimalAttributeType),
            ])
        let student = entity("Student", [attribute("school", .stringAttributeType)])
        person.subentities = [student]
        let tag = entity("Tag", [attribute("label", .stringAttributeType)])
        let note = entity("Note", [attribute("text", .stringAttributeType)])
        link(family, "members", toMany: true, person, "family", toMany: false)
        link(person, "tags", toMany: true, tag, "people", toMany: true, ordered: true)
        let friends = relationship("friends", to: person, toMany: true)
        friends.inverseRelationship = friends
        person.properties.append(friends)
        note.properties += [
            relationship("owner", to: person, toMany: false), relationship("links", to: tag, toMany: true),
        ]
        let model = NSManagedObjectModel()
        model.entities = [family, person, student, tag, note]
        return model
    }

    /// A store made from ``model()`` in a new temporary directory, with two families,
    /// three people, a student, three tags and two notes.
    static func makeStore() throws -> (url: URL, model: NSManagedObjectModel) {
        let directory = testFilesFolder.appendingPathComponent("cdtool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("Fixture.sqlite")
        let model = model()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let smiths = insert("Family", ["name": "Smith"])
            _ = insert("Family", ["name": "Jones"])
            let red = insert("Tag", ["label": "red"])
            let blue = insert("Tag", ["label": "blue"])
            _ = insert("Tag", ["label": "green"])
            let ann = insert(
                "Person",
                [
                    "name": "Ann, \"the first\"", "age": Int16(41), "birthday": Date(timeIntervalSinceReferenceDate: 0),
                    "photo": Data([1, 2, 3]), "active": true, "score": 2.5,
                    "identifier": UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!,
                    "homepage": URL(string: "https://example.com/ann")!, "balance": Decimal(string: "10.25")!,
                    "family": smiths,
                ])
            let bob = insert("Person", ["name": "Bob\nSmith", "age": Int16(12), "active": false, "family": smiths])
            _ = insert("Person", ["name": "Cy", "age": Int16(30)])
            let dee = insert("Student", ["name": "Dee", "age": Int16(19), "school": "MIT"])
            ann.setValue(NSOrderedSet(array: [blue, red]), forKey: "tags")
            dee.setValue(NSOrderedSet(array: [red]), forKey: "tags")
            ann.setValue(NSSet(array: [bob, dee]), forKey: "friends")
            _ = insert("Note", ["text": "hello", "owner": ann, "links": NSSet(array: [red, blue])])
            _ = insert("Note", ["text": "bye", "owner": bob])
            try context.save()
        }
        try coordinator.remove(store)
        return (url, model)
    }

    // MARK: Building

    static func entity(_ name: String, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.properties = properties
        return entity
    }

    static func attribute(
        _ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil
    ) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.defaultValue = defaultValue
        return attribute
    }

    static func relationship(
        _ name: String, to destination: NSEntityDescription, toMany: Bool
    ) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.maxCount = toMany ? 0 : 1
        return relationship
    }

    /// Adds a relationship and its inverse to two entities.
    static func link(
        _ source: NSEntityDescription, _ name: String, toMany: Bool, _ destination: NSEntityDescription,
        _ inverseName: String, toMany inverseToMany: Bool, ordered: Bool = false
    ) {
        let forward = relationship(name, to: destination, toMany: toMany)
        forward.isOrdered = ordered
        let inverse = relationship(inverseName, to: source, toMany: inverseToMany)
        forward.inverseRelationship = inverse
        inverse.inverseRelationship = forward
        source.properties.append(forward)
        destination.properties.append(inverse)
    }
}
