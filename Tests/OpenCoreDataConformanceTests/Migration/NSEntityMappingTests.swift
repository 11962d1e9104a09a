import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// The two model versions and stores the mapping suites migrate between: version 2 gives
/// books an optional `isbn`.
enum MappingFixture {
    static func version2() -> NSManagedObjectModel {
        let model = ConformanceModel.make()
        model.entitiesByName["Book"]?.properties.append(ConformanceModel.attribute("isbn", .stringAttributeType))
        return model
    }

    /// Writes a version 1 store at `url` holding Austen's Emma (474 pages) and Persuasion (249).
    static func writeVersion1(at url: URL) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try ConformanceModel.shelve([("Austen", ["Emma", "Persuasion"])], in: context)
        for book in try context.fetch(NSFetchRequest<Book>(entityName: "Book")) {
            book.pages = book.title == "Emma" ? 474 : 249
        }
        try context.save()
        try coordinator.remove(store)
    }

    /// Migrates a version 1 store written in `folder` with `mapping`, returning a context on
    /// the migrated store.
    static func migrate(
        in folder: URL, with mapping: NSMappingModel, manager: NSMigrationManager? = nil
    ) throws -> NSManagedObjectContext {
        let source = folder.appendingPathComponent("Library.sqlite")
        let destination = folder.appendingPathComponent("Library-2.sqlite")
        try writeVersion1(at: source)
        let v2 = version2()
        let manager = manager ?? NSMigrationManager(sourceModel: ConformanceModel.make(), destinationModel: v2)
        try manager.migrateStore(
            from: source, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
            toDestinationURL: destination, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v2)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: destination, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The books of `context` by title, sorted.
    static func books(in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        let fetch = NSFetchRequest<NSManagedObject>(entityName: "Book")
        fetch.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return try context.fetch(fetch)
    }

    static func inferred() throws -> NSMappingModel {
        try NSMappingModel.inferredMappingModel(forSourceModel: ConformanceModel.make(), destinationModel: version2())
    }
}

/// `NSEntityMapping`: how the instances of one entity become instances of the new model.
final class NSEntityMappingTests: XCTestCase {
    private func mapping(to entity: String, in model: NSMappingModel) throws -> NSEntityMapping {
        try XCTUnwrap(model.entityMappings.first { $0.destinationEntityName == entity })
    }

    func testTheMappingTypesHaveTheirCValues() {
        XCTAssertEqual(NSEntityMappingType.undefinedEntityMappingType.rawValue, 0)
        XCTAssertEqual(NSEntityMappingType.customEntityMappingType.rawValue, 1)
        XCTAssertEqual(NSEntityMappingType.addEntityMappingType.rawValue, 2)
        XCTAssertEqual(NSEntityMappingType.removeEntityMappingType.rawValue, 3)
        XCTAssertEqual(NSEntityMappingType.copyEntityMappingType.rawValue, 4)
        XCTAssertEqual(NSEntityMappingType.transformEntityMappingType.rawValue, 5)
    }

    func testAnInferredMappingCopiesUnchangedEntitiesAndTransformsChangedOnes() throws {
        let model = try MappingFixture.inferred()
        let author = try mapping(to: "Author", in: model)
        let book = try mapping(to: "Book", in: model)
        XCTAssertEqual(author.sourceEntityName, "Author")
        XCTAssertEqual(author.mappingType, .copyEntityMappingType)
        XCTAssertEqual(book.sourceEntityName, "Book")
        XCTAssertEqual(book.mappingType, .transformEntityMappingType)
    }

    func testTheVersionHashesAreThoseOfTheTwoEntities() throws {
        let (v1, v2) = (ConformanceModel.make(), MappingFixture.version2())
        let model = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let book = try mapping(to: "Book", in: model)
        XCTAssertEqual(book.sourceEntityVersionHash, v1.entitiesByName["Book"]?.versionHash)
        XCTAssertEqual(book.destinationEntityVersionHash, v2.entitiesByName["Book"]?.versionHash)
        XCTAssertNotEqual(book.sourceEntityVersionHash, book.destinationEntityVersionHash)
    }

    func testAttributeAndRelationshipMappingsNameTheDestinationProperties() throws {
        let model = try MappingFixture.inferred()
        let book = try mapping(to: "Book", in: model)
        XCTAssertEqual(Set(book.attributeMappings?.compactMap(\.name) ?? []), ["title", "pages", "isbn"])
        XCTAssertEqual(book.relationshipMappings?.compactMap(\.name), ["author"])
        let author = try mapping(to: "Author", in: model)
        XCTAssertEqual(author.relationshipMappings?.compactMap(\.name), ["books"])
    }

    func testANewMappingKeepsWhatIsSetOnIt() {
        let mapping = NSEntityMapping()
        XCTAssertEqual(mapping.mappingType, .undefinedEntityMappingType)
        XCTAssertNil(mapping.attributeMappings)
        mapping.name = "BookToBook"
        mapping.mappingType = .customEntityMappingType
        mapping.sourceEntityName = "Book"
        mapping.destinationEntityName = "Book"
        mapping.entityMigrationPolicyClassName = "ShelvingPolicy"
        mapping.userInfo = ["note": "kept"]
        XCTAssertEqual(mapping.name, "BookToBook")
        XCTAssertEqual(mapping.mappingType, .customEntityMappingType)
        XCTAssertEqual(mapping.entityMigrationPolicyClassName, "ShelvingPolicy")
        XCTAssertEqual(mapping.userInfo?["note"] as? String, "kept")
    }

    func testAMigrationThroughTheMappingKeepsEveryInstance() throws {
        let context = try MappingFixture.migrate(in: try temporaryDirectory(), with: try MappingFixture.inferred())
        let books = try MappingFixture.books(in: context)
        XCTAssertEqual(books.compactMap { $0.value(forKey: "title") as? String }, ["Emma", "Persuasion"])
        XCTAssertEqual(books.compactMap { ($0.value(forKey: "pages") as? NSNumber)?.intValue }, [474, 249])
        XCTAssertTrue(books.allSatisfy { $0.value(forKey: "isbn") == nil })
        XCTAssertEqual(
            Set(
                books.compactMap { ($0.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String }),
            ["Austen"])
    }
}
