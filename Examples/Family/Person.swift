import OpenCoreData

// The classes as Xcode generates them for the Family model ("Class Definition" codegen),
// with `@Managed` for `@NSManaged`.

public class Person: NSManagedObject {}

extension Person {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Person> {
        NSFetchRequest<Person>(entityName: "Person")
    }

    @Managed public var name: String?
    @Managed public var gender: String?
    @Managed public var age: Int64
    @Managed public var family: Family?
}

public class Family: NSManagedObject {}

extension Family {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Family> {
        NSFetchRequest<Family>(entityName: "Family")
    }

    @Managed public var name: String?
    @Managed public var people: NSSet?
}
