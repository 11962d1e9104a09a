import Foundation
import OpenCoreData
import XCTest

/// `NSPersistentStoreCoordinator`, as Apple documents it.
final class NSPersistentStoreCoordinatorTests: XCTestCase {
    private let devNull = URL(fileURLWithPath: "/dev/null")

    func testDevNullIsAnEmptyInMemorySQLiteStore() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: devNull, options: nil)
        XCTAssertEqual(store.type, NSSQLiteStoreType)
        XCTAssertEqual(store.url, devNull)
        XCTAssertEqual(coordinator.persistentStores.count, 1)

        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        XCTAssertEqual(try context.count(for: NSFetchRequest<Author>(entityName: "Author")), 0, "a new store is empty")
        let author = Author(context: context)
        author.name = "Le Guin"
        try context.save()
        context.reset()
        XCTAssertEqual(try context.fetch(Author.fetchRequest()).map(\.name), ["Le Guin"], "saved rows read back")
    }

    func testEveryDevNullStoreIsItsOwnDatabase() throws {
        let first = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        first.persistentStoreCoordinator = try ConformanceModel.coordinator()
        Author(context: first).name = "Only in the first"
        try first.save()

        let second = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        second.persistentStoreCoordinator = try ConformanceModel.coordinator()
        XCTAssertEqual(try second.count(for: NSFetchRequest<Author>(entityName: "Author")), 0)
    }

    func testDestroyingADevNullStoreLeavesTheDeviceAlone() throws {
        let coordinator = try ConformanceModel.coordinator()
        try coordinator.destroyPersistentStore(at: devNull, ofType: NSSQLiteStoreType, options: nil)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/dev/null"))
        let type = try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
        XCTAssertEqual(type, .typeCharacterSpecial, "still the device, not a file")
    }

    func testContainerLoadsADevNullDescription() throws {
        let container = NSPersistentContainer(name: "Library", managedObjectModel: ConformanceModel.make())
        let description = NSPersistentStoreDescription()
        description.url = devNull
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        XCTAssertNil(loadError)
        Book(context: container.viewContext).title = "Earthsea"
        try container.viewContext.save()
        XCTAssertEqual(try container.viewContext.count(for: NSFetchRequest<Book>(entityName: "Book")), 1)
    }
}
