import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif
#if canImport(UIKit) && OPENCOREDATA_COMPATIBILITY_TEST
import UIKit
#endif

#if !OPENCOREDATA_COMPATIBILITY_TEST || canImport(UIKit)
/// A managed document of the shared library model.
final class LibraryDocument: UIManagedDocument {
    static let model = ConformanceModel.make()

    override var managedObjectModel: NSManagedObjectModel { Self.model }

    func titles() throws -> [String] {
        let fetch = NSFetchRequest<NSManagedObject>(entityName: "Book")
        fetch.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return try managedObjectContext.fetch(fetch).compactMap { $0.value(forKey: "title") as? String }
    }

    func insertBook(_ title: String) {
        let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: managedObjectContext)
        book.setValue(title, forKey: "title")
    }
}

/// `UIManagedDocument`: a document package holding a Core Data store.
final class UIManagedDocumentConformanceTests: XCTestCase {
    @MainActor
    private func packageURL() throws -> URL {
        try temporaryDirectory().appendingPathComponent("Library.document", isDirectory: true)
    }

    @MainActor
    func testTheContextIsOnTheMainQueueWithAPrivateParent() throws {
        let document = LibraryDocument(fileURL: try packageURL())
        XCTAssertEqual(document.managedObjectContext.concurrencyType, .mainQueueConcurrencyType)
        XCTAssertEqual(document.managedObjectContext.parent?.concurrencyType, .privateQueueConcurrencyType)
        XCTAssertEqual(UIManagedDocument.persistentStoreName, "persistentStore")
        XCTAssertEqual(document.documentState, .closed)
    }

    @MainActor
    func testCreatingWritesAPackageWithTheStore() async throws {
        let url = try packageURL()
        let document = LibraryDocument(fileURL: url)
        let created = await document.save(to: url, for: .forCreating)
        XCTAssertTrue(created)
        XCTAssertEqual(document.documentState, .normal)
        let store = url.appendingPathComponent("StoreContent").appendingPathComponent("persistentStore")
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.path))
        XCTAssertEqual(document.managedObjectContext.persistentStoreCoordinator?.persistentStores.count, 1)
        _ = await document.close()
    }

    @MainActor
    func testChangesInTheContextAreSavedByClosing() async throws {
        let url = try packageURL()
        let document = LibraryDocument(fileURL: url)
        _ = await document.save(to: url, for: .forCreating)
        document.insertBook("Emma")
        document.insertBook("Persuasion")
        XCTAssertTrue(document.hasUnsavedChanges)
        let closed = await document.close()
        XCTAssertTrue(closed)

        let reopened = LibraryDocument(fileURL: url)
        let opened = await reopened.open()
        XCTAssertTrue(opened)
        XCTAssertEqual(try reopened.titles(), ["Emma", "Persuasion"])
        XCTAssertFalse(reopened.hasUnsavedChanges)
        _ = await reopened.close()
    }

    @MainActor
    func testOpeningAMissingPackageFails() async throws {
        let document = LibraryDocument(fileURL: try packageURL())
        let opened = await document.open()
        XCTAssertFalse(opened)
        XCTAssertTrue(document.documentState.contains(.closed))
    }
}
#endif
