import ExampleSupport
import Foundation
import OpenCoreData

/// Version 2 of the app: the favorites in Core Data, `FavoriteActors.sqlite` in the app's
/// data folder. A new store takes in what version 1 archived.
struct FavoritesStore {
    let container: NSPersistentContainer
    var context: NSManagedObjectContext { container.viewContext }
    /// How many actors were taken from the version 1 archive when the store was made.
    private(set) var imported = 0

    static func model() -> NSManagedObjectModel {
        let person = ModelKit.entity(
            "Person", Person.self,
            [
                ModelKit.attribute("id", .integer64AttributeType, optional: false, defaultValue: 0),
                ModelKit.attribute("name", .stringAttributeType, optional: false),
                ModelKit.attribute("imagePath", .stringAttributeType),
            ])
        let movie = ModelKit.entity(
            "Movie", Movie.self,
            [
                ModelKit.attribute("id", .integer64AttributeType, optional: false, defaultValue: 0),
                ModelKit.attribute("title", .stringAttributeType, optional: false),
                ModelKit.attribute("posterPath", .stringAttributeType),
                ModelKit.attribute("releaseDate", .dateAttributeType),
            ])
        ModelKit.relate(person, "movies", deleteRule: .cascadeDeleteRule, movie, inverse: "actor")
        return ModelKit.model(person, movie)
    }

    init(folder: String?) throws {
        let url = try ExampleData.directory(for: "FavoriteActors", in: folder).appendingPathComponent(
            "FavoriteActors.sqlite")
        var imported = 0
        // The archive's actors and the store's mark that they were taken in are one save: a
        // first launch killed or failing before it leaves the next launch to take them in.
        container = try ExampleData.container("FavoriteActors", model: Self.model(), storeURL: url) { context in
            imported = try Self.importArchive(into: context)
        }
        self.imported = imported
    }

    /// Copies the version 1 archive's actors and movies into `context`, unsaved.
    private static func importArchive(into context: NSManagedObjectContext) throws -> Int {
        let records = try FavoritesArchive.load()
        for record in records {
            let person = Person(context: context)
            person.id = record.id
            person.name = record.name
            person.imagePath = record.imagePath
            for item in record.movies {
                addMovie(
                    id: item.id, title: item.title, posterPath: item.posterPath, releaseDate: item.releaseDate,
                    to: person)
            }
        }
        return records.count
    }

    /// A new movie of `actor`, in the actor's context.
    private static func addMovie(id: Int64, title: String, posterPath: String?, releaseDate: Date?, to actor: Person) {
        let movie = Movie(context: actor.managedObjectContext!)
        movie.id = id
        movie.title = title
        movie.posterPath = posterPath
        movie.releaseDate = releaseDate
        movie.actor = actor
    }

    /// The favorite named `name` (ignoring case), or a failure naming it.
    func favorite(named name: String) throws -> Person {
        let request = Person.fetchRequest()
        request.predicate = NSPredicate(format: "name ==[c] %@", name)
        guard let person = try context.fetch(request).first else { throw ExampleFailure("\(name) is not a favorite") }
        return person
    }

    /// The actor picker: the catalog's matches as Person objects in a scratch context, a
    /// child of the view context that is thrown away unless `keep` picks one of them (which
    /// is then saved into the view context with its movies).
    func pick(_ text: String, keep: ((Person) -> Bool)? = nil) throws -> [String] {
        let scratch = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        scratch.parent = context
        var shown: [String] = []
        for actor in Catalog.search(text) {
            let person = Person(context: scratch)
            person.id = actor.id
            person.name = actor.name
            person.imagePath = actor.imagePath
            shown.append(actor.name)
            guard let keep else { continue }
            if keep(person) {
                for item in actor.movies {
                    Self.addMovie(
                        id: item.id, title: item.title, posterPath: item.posterPath,
                        releaseDate: Catalog.date(item.released), to: person)
                }
            } else {
                scratch.delete(person)
            }
        }
        if keep != nil, scratch.hasChanges {
            try scratch.save()
            try context.save()
        }
        return shown
    }
}
