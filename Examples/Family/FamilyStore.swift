import ExampleSupport
import Foundation
import OpenCoreData

/// The Family store: Person(name, gender, age, family) ⟷ Family(name, people), in
/// `Family.sqlite` in the app's data folder, holding "Ted" when it is first made.
struct FamilyStore {
    /// Keeps the store open while its objects are read.
    let container: NSPersistentContainer
    let context: NSManagedObjectContext
    let url: URL

    static func model() -> NSManagedObjectModel {
        let person = ModelKit.entity(
            "Person", Person.self,
            [
                ModelKit.attribute("name", .stringAttributeType, optional: false),
                ModelKit.attribute("gender", .stringAttributeType),
                ModelKit.attribute("age", .integer64AttributeType, optional: false, defaultValue: 0),
            ])
        let family = ModelKit.entity(
            "Family", Family.self, [ModelKit.attribute("name", .stringAttributeType, optional: false)])
        ModelKit.relate(family, "people", person, inverse: "family")
        return ModelKit.model(person, family)
    }

    init(folder: String?) throws {
        url = try ExampleData.directory(for: "Family", in: folder).appendingPathComponent("Family.sqlite")
        // Ted and the store's mark that he was added are one save, so a first launch killed
        // before it leaves the next launch to add him.
        container = try ExampleData.container("Family", model: Self.model(), storeURL: url) { context in
            Person(context: context).name = "Ted"
        }
        context = container.viewContext
    }

    func save() throws {
        guard context.hasChanges else { return }
        try context.save()
    }

    /// Everyone, by name; or those whose name contains `text`.
    func people(containing text: String? = nil) throws -> [Person] {
        let request = Person.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        if let text { request.predicate = NSPredicate(format: "name CONTAINS %@", text) }
        return try context.fetch(request)
    }

    /// The person named `name`, or a failure naming them.
    func person(named name: String) throws -> Person {
        let request = Person.fetchRequest()
        request.predicate = NSPredicate(format: "name == %@", name)
        guard let person = try context.fetch(request).first else { throw ExampleFailure("nobody is named \(name)") }
        return person
    }

    /// The family named `name`, made when there is none.
    func family(named name: String) throws -> Family {
        try context.findOrCreate("Family", where: "name", is: name).object
    }

    func families() throws -> [Family] {
        let request = Family.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request)
    }
}
