import OpenCoreData
import Testing
import OpenCoreDataStoreTestSupport

final class Person: NSManagedObject {
    @Managed var name: String?
    @Managed var gender: String?
    @Managed var age: Int64
    @Managed var family: Family?
}

final class Family: NSManagedObject {
    @Managed var name: String?
    @Managed var people: NSSet?
}

/// The Family/Person model of the seed series, built in code.
func makeFamilyModel() -> NSManagedObjectModel {
    let person = ModelBuilder.entity("Person")
    let family = ModelBuilder.entity("Family")
    let (personFamily, familyPeople) = ModelBuilder.pair(
        "family", from: person, toMany: false, "people", to: family, toMany: true)
    person.properties = [
        ModelBuilder.attribute("name", .stringAttributeType), ModelBuilder.attribute("gender", .stringAttributeType),
        ModelBuilder.attribute("age", .integer64AttributeType), personFamily,
    ]
    family.properties = [ModelBuilder.attribute("name", .stringAttributeType), familyPeople]
    let model = NSManagedObjectModel()
    model.entities = [family, person]
    return model
}

@Suite struct FamilyPersonScenario {
    let model = makeFamilyModel()

    @Test func addDeleteRenameSurviveRestarts() throws {
        let url = temporaryStoreURL()
        do {
            let context = try openContainer(at: url, model: model).newBackgroundContext()
            try context.performAndWait {
                let ted = Person(context: context)
                ted.name = "Ted"
                try context.save()
                let joe = Person(context: context)
                joe.name = "Joe"
                try context.save()
                context.delete(joe)
                try context.save()
            }
        }
        do {
            let context = try openContainer(at: url, model: model).newBackgroundContext()
            try context.performAndWait {
                let request = Person.fetchRequest()
                let names = try context.fetch(request).map(\.name)
                #expect(names == ["Ted"])
                let sammy = Person(context: context)
                sammy.name = "Sammy"
                try context.save()
                sammy.name = "Joe"
                try context.save()
            }
        }
        let context = try openContainer(at: url, model: model).newBackgroundContext()
        try context.performAndWait {
            let request = NSFetchRequest<Person>(entityName: "Person")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let names = try context.fetch(request).compactMap(\.name)
            #expect(names == ["Joe", "Ted"])
        }
    }

    @Test func sortingAndContainsPredicates() throws {
        let context = try openContainer(at: temporaryStoreURL(), model: model).newBackgroundContext()
        try context.performAndWait {
            for name in ["Joe", "Ted", "Mike", "Abby"] { Person(context: context).name = name }
            try context.save()
            let request = Person.fetchRequest()
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            #expect(try context.fetch(request).compactMap(\.name) == ["Abby", "Joe", "Mike", "Ted"])
            request.predicate = NSPredicate(format: "name CONTAINS 'Ted'")
            #expect(try context.fetch(request).compactMap(\.name) == ["Ted"])
            request.predicate = NSPredicate(format: "name CONTAINS %@", "Ted")
            #expect(try context.fetch(request).compactMap(\.name) == ["Ted"])
        }
    }

    @Test func inverseMaintainedBothWaysAndAfterRefetch() throws {
        let url = temporaryStoreURL()
        do {
            let context = try openContainer(at: url, model: model).newBackgroundContext()
            try context.performAndWait {
                let abc = Family(context: context)
                abc.name = "ABC"
                let maggie = Person(context: context)
                maggie.name = "Maggie"
                maggie.family = abc
                #expect(abc.people?.contains(maggie) == true)
                let bart = Person(context: context)
                bart.name = "Bart"
                abc.addToPeople(bart)
                #expect(bart.family === abc)
                abc.removeFromPeople(bart)
                #expect(bart.family == nil)
                abc.addToPeople(bart)
                try context.save()
            }
        }
        let context = try openContainer(at: url, model: model).newBackgroundContext()
        try context.performAndWait {
            let families = try context.fetch(Family.fetchRequest())
            #expect(families.count == 1)
            let names =
                (families[0].people as? Set<AnyHashable>)?.compactMap { ($0 as? Person)?.name }.sorted()
                ?? (families[0].people?.allObjects.compactMap { ($0 as? Person)?.name }.sorted() ?? [])
            #expect(names == ["Bart", "Maggie"])
            let request = Person.fetchRequest()
            request.predicate = NSPredicate(format: "family.name == %@", "ABC")
            #expect(try context.count(for: request) == 2)
        }
    }
}
