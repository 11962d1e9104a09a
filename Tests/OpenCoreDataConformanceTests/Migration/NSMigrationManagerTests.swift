import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// Migration: a store written with one model version, refused by the next unless migrated,
/// here through `NSMigrationManager` and an inferred `NSMappingModel`. (Migration on opening
/// finds the source model in bundles: OpenCoreDataTests covers it with model files.)
final class NSMigrationManagerTests: XCTestCase {
    /// Version 2 of the conformance model: books gain an optional `isbn`.
    private func version2() -> NSManagedObjectModel {
        let model = ConformanceModel.make()
        let book = model.entitiesByName["Book"]!
        let isbn = ConformanceModel.attribute("isbn", .stringAttributeType)
        isbn.isOptional = true
        book.properties.append(isbn)
        return model
    }

    private func storeURL() throws -> URL {
        try temporaryDirectory().appendingPathComponent("Library.sqlite")
    }

    /// Writes a version 1 store with one book at `url`.
    private func writeVersion1(at url: URL) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: context)
        try coordinator.remove(store)
    }

    private func titles(at url: URL, model: NSManagedObjectModel) throws -> [String] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book")).compactMap {
            $0.value(forKey: "title") as? String
        }
    }

    func testAStoreOfTheOldVersionIsIncompatibleWithoutMigration() throws {
        let url = try storeURL()
        try writeVersion1(at: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2())
        XCTAssertThrowsError(
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        ) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreIncompatibleVersionHashError)
        }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: url, options: nil)
        XCTAssertTrue(ConformanceModel.make().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        XCTAssertFalse(version2().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    func testAMigrationManagerCopiesTheStoreThroughAnInferredMapping() throws {
        let source = try storeURL()
        try writeVersion1(at: source)
        let destination = source.deletingLastPathComponent().appendingPathComponent("Library-2.sqlite")
        let (v1, v2) = (ConformanceModel.make(), version2())
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        XCTAssertEqual(Set(mapping.entityMappings.compactMap(\.destinationEntityName)), ["Author", "Book"])

        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        try manager.migrateStore(
            from: source, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
            toDestinationURL: destination, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        XCTAssertEqual(try titles(at: destination, model: v2), ["Emma"])
        XCTAssertEqual(try titles(at: source, model: v1), ["Emma"])
    }
}
