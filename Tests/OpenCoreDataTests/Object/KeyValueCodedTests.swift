import Foundation
import OpenCoreData
import Testing
import OpenCoreDataStoreTestSupport

/// An entity class whose computed properties apps reach by key, as `@objc` ones on Apple platforms.
class Contact: NSManagedObject {
    @Managed var name: String?
    @Managed var age: Int16
    @Managed var manager: Contact?

    /// Sections and in-memory sorts use it, as `sectionNameKeyPath: "firstInitial"`.
    @KeyValueCoded var firstInitial: String { String((name ?? "?").prefix(1)) }
    /// A number, which key-value coding gives as `NSNumber`.
    @KeyValueCoded var isAdult: Bool { age >= 18 }
    /// Settable: writes the name through the computed property.
    @KeyValueCoded var displayName: String? {
        get { name.map { "Dr. " + $0 } }
        set { name = newValue.map { String($0.replacingOccurrences(of: "Dr. ", with: "")) } }
    }
    @KeyValueCoded func shout() -> String { (name ?? "").uppercased() }
}

extension Contact {
    /// Declared in an extension, as most apps declare them.
    @KeyValueCoded var nameLength: Int { name?.count ?? 0 }
}

/// A subclass reaches its superclass's keys.
final class Staffer: Contact {
    @KeyValueCoded var badge: String { "#" + firstInitial }
}

/// A plain class, never a managed object: predicates and sorts read it by key too.
final class Card {
    var title: String
    init(title: String) { self.title = title }
    @KeyValueCoded var words: Int { title.split(separator: " ").count }
    /// A key outside ASCII: its nested type's name is spelled in hex.
    @KeyValueCoded var größe: Int { title.count }
}

@Suite struct KeyValueCodedTests {
    static func model() -> NSManagedObjectModel {
        let contact = ModelBuilder.entity("Contact", className: String(reflecting: Contact.self))
        let employee = ModelBuilder.entity("Staffer", className: String(reflecting: Staffer.self))
        let manager = NSRelationshipDescription()
        manager.name = "manager"
        manager.destinationEntity = contact
        manager.maxCount = 1
        manager.deleteRule = .nullifyDeleteRule
        contact.properties = [
            ModelBuilder.attribute("name", .stringAttributeType),
            ModelBuilder.attribute("age", .integer16AttributeType, optional: false, defaultValue: 0), manager,
        ]
        contact.subentities = [employee]
        return ModelBuilder.model(contact, employee)
    }

    private func insert(
        _ name: String, age: Int16 = 30, entity: String = "Contact", in context: NSManagedObjectContext
    ) -> Contact {
        let contact = NSEntityDescription.insertNewObject(forEntityName: entity, into: context) as! Contact
        contact.name = name
        contact.age = age
        return contact
    }

    @Test func valueForKeyReadsComputedPropertiesAndMethods() throws {
        let context = try makeContext(Self.model())
        context.performAndWait {
            let ada = insert("ada", age: 12, in: context)
            #expect(ada.value(forKey: "firstInitial") as? String == "a")
            #expect(ada.value(forKey: "nameLength") as? Int == 3)
            #expect(ada.value(forKey: "shout") as? String == "ADA")
            // Scalars come back as NSNumber, so every cast code makes succeeds.
            #expect(ada.value(forKey: "isAdult") is NSNumber)
            #expect(ada.value(forKey: "isAdult") as? Bool == false)
            #expect(ada.value(forKey: "nameLength") as? Double == 3)
            let boss = insert("grace", in: context)
            ada.manager = boss
            #expect(ada.value(forKeyPath: "manager.firstInitial") as? String == "g")
            #expect(ada.value(forKey: "displayName") as? String == "Dr. ada")
        }
    }

    @Test func setValueForKeyWritesASettableComputedProperty() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let ada = insert("ada", in: context)
            ada.setValue("Dr. Lovelace", forKey: "displayName")
            #expect(ada.name == "Lovelace")
            ada.setValue(nil, forKey: "displayName")
            #expect(ada.name == nil)
            try context.save()
        }
    }

    @Test func subclassesReachTheirSuperclassKeys() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            let employee = insert("bob", entity: "Staffer", in: context)
            #expect(employee is Staffer)
            #expect(employee.value(forKey: "badge") as? String == "#b")
            #expect(employee.value(forKey: "firstInitial") as? String == "b")
        }
    }

    @Test func inMemoryPredicatesAndSortsUseComputedKeys() throws {
        let context = try makeContext(Self.model())
        context.performAndWait {
            let people = ["carol", "alice", "bob", "anna"].map { insert($0, in: context) }
            let sorted = people.sorted(using: [
                NSSortDescriptor(key: "firstInitial", ascending: false), NSSortDescriptor(key: "name", ascending: true),
            ])
            #expect(sorted.map(\.name) == ["carol", "bob", "alice", "anna"])
            let predicate = NSPredicate(format: "firstInitial == 'a' AND nameLength > 4")
            #expect(people.filter { predicate.evaluate(with: $0) }.map(\.name) == ["alice"])
        }
    }

    @Test func resultsControllerSectionsByAComputedKey() throws {
        let context = try makeContext(Self.model())
        try context.performAndWait {
            for name in ["carol", "alice", "bob", "anna"] { _ = insert(name, in: context) }
            try context.save()
            let request = NSFetchRequest<Contact>(entityName: "Contact")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: context,
                sectionNameKeyPath: "firstInitial", cacheName: nil)
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["a", "b", "c"])
            #expect(controller.sections?.map(\.numberOfObjects) == [2, 1, 1])
        }
    }

    @Test func plainObjectsAreReadByKeyToo() {
        let cards = [Card(title: "one two three"), Card(title: "four"), Card(title: "five six")]
        let predicate = NSPredicate(format: "words >= 2")
        #expect(cards.filter { predicate.evaluate(with: $0) }.map(\.title) == ["one two three", "five six"])
        #expect(
            cards.sorted(using: [NSSortDescriptor(key: "words", ascending: true)]).map(\.title) == [
                "four", "five six", "one two three",
            ])
        #expect(NSPredicate(format: "%K > 4", "größe").evaluate(with: cards[1]) == false)
        #expect(NSPredicate(format: "%K > 4", "größe").evaluate(with: cards[2]) == true)
        // A key no member answers stays unknown.
        #expect(NSPredicate(format: "pages == 2").evaluate(with: cards[0]) == false)
    }
}
