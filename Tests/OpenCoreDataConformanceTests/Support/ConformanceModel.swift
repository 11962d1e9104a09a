import Foundation
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

// The model the conformance suites share, built in code as an app without a model file
// would build it, and its classes written as Xcode writes them (a class and an extension of
// its properties). Against Core Data (the compatibility run) they say `@objc(Name)` and
// `@NSManaged`, the only lines a port changes.

#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
@objc(Author)
#endif
public class Author: NSManagedObject {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Author> {
        NSFetchRequest<Author>(entityName: "Author")
    }
}

#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
@objc(Book)
#endif
public class Book: NSManagedObject {}

#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
extension Author {
    @NSManaged public var name: String?
    @NSManaged public var born: Date?
    @NSManaged public var books: NSSet?
}

extension Book {
    @NSManaged public var title: String?
    @NSManaged public var pages: Int32
    @NSManaged public var author: Author?
}
#else
extension Author {
    @Managed public var name: String?
    @Managed public var born: Date?
    @Managed public var books: NSSet?
}

extension Book {
    @Managed public var title: String?
    @Managed public var pages: Int32
    @Managed public var author: Author?
}
#endif

enum ConformanceModel {
    /// Author ⟷ Book (one author, many books).
    static func make() -> NSManagedObjectModel {
        let author = NSEntityDescription()
        author.name = "Author"
        author.managedObjectClassName = NSStringFromClass(Author.self)
        let book = NSEntityDescription()
        book.name = "Book"
        book.managedObjectClassName = NSStringFromClass(Book.self)

        let books = NSRelationshipDescription()
        books.name = "books"
        books.destinationEntity = book
        books.maxCount = 0
        books.deleteRule = .cascadeDeleteRule
        let bookAuthor = NSRelationshipDescription()
        bookAuthor.name = "author"
        bookAuthor.destinationEntity = author
        bookAuthor.maxCount = 1
        books.inverseRelationship = bookAuthor
        bookAuthor.inverseRelationship = books

        author.properties = [attribute("name", .stringAttributeType), attribute("born", .dateAttributeType), books]
        book.properties = [
            attribute("title", .stringAttributeType), attribute("pages", .integer32AttributeType, defaultValue: 0),
            bookAuthor,
        ]
        let model = NSManagedObjectModel()
        model.entities = [author, book]
        return model
    }

    static func attribute(_ name: String, _ type: NSAttributeType, defaultValue: Any? = nil) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.defaultValue = defaultValue
        return attribute
    }

    /// A context on a fresh /dev/null store of a model made of `entities`.
    static func context(entities: [NSEntityDescription]) throws -> NSManagedObjectContext {
        let model = NSManagedObjectModel()
        model.entities = entities
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = try coordinator(model: model)
        return context
    }

    /// A coordinator with one SQLite store at /dev/null, the in-memory idiom of test suites.
    static func coordinator(model: NSManagedObjectModel = make()) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil,
            at: URL(fileURLWithPath: "/dev/null"), options: nil)
        return coordinator
    }

    /// Another main-queue context on the coordinator `context` saves through.
    static func context(sharing context: NSManagedObjectContext) throws -> NSManagedObjectContext {
        let other = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        return other
    }

    /// Inserts authors with their books into `context` and saves.
    static func shelve(_ shelves: [(author: String, titles: [String])], in context: NSManagedObjectContext) throws {
        for (name, titles) in shelves {
            let author = Author(context: context)
            author.name = name
            for title in titles {
                let book = Book(context: context)
                book.title = title
                book.author = author
            }
        }
        try context.save()
    }

    /// A context whose store holds Austen's Emma and Persuasion and Eliot's Middlemarch.
    static func library() throws -> NSManagedObjectContext {
        let context = try context()
        try shelve([("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"])], in: context)
        return context
    }

    /// A main-queue context on a fresh /dev/null store.
    static func context() throws -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = try coordinator()
        return context
    }
}
