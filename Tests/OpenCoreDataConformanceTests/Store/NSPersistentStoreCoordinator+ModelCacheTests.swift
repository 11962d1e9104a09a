import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// The model Core Data caches in every SQLite store file it creates or migrates
/// (`Z_MODELCACHE`), which lets a store made with a model built in code be migrated once
/// that code changes: nothing else knows the model the store was made with.
final class NSPersistentStoreCoordinatorModelCacheTests: XCTestCase {
    func testAStoreMadeWithAModelBuiltInCodeMigratesLightweight() throws {
        let url = try temporaryDirectory().appendingPathComponent("Library.sqlite")
        let first = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try first.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = first
        let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
        book.setValue("Dune", forKey: "title")
        try context.save()
        try first.remove(store)

        let next = ConformanceModel.make()
        next.entitiesByName["Book"]!.properties.append(ConformanceModel.attribute("isbn", .stringAttributeType))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: next)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [
                NSMigratePersistentStoresAutomaticallyOption: true,
                NSInferMappingModelAutomaticallyOption: true,
            ])
        let reader = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        let books = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
        XCTAssertEqual(books.map { $0.value(forKey: "title") as? String }, ["Dune"])
        XCTAssertNil(books.first?.value(forKey: "isbn"))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: url, options: nil)
        XCTAssertTrue(next.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }
}
