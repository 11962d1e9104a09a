import OpenCoreData

// The classes as Xcode generates them, with `@Managed` for `@NSManaged`.

public class Person: NSManagedObject {}

extension Person {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Person> {
        NSFetchRequest<Person>(entityName: "Person")
    }

    @Managed public var id: Int64
    @Managed public var name: String?
    @Managed public var imagePath: String?
    @Managed public var movies: NSSet?
}

public class Movie: NSManagedObject {}

extension Movie {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Movie> {
        NSFetchRequest<Movie>(entityName: "Movie")
    }

    @Managed public var id: Int64
    @Managed public var title: String?
    @Managed public var posterPath: String?
    @Managed public var releaseDate: Date?
    @Managed public var actor: Person?
}
