import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// A subclass as apps write one: it moves the stores and inherits every initializer.
final class LibraryContainer: NSPersistentContainer, @unchecked Sendable {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "LibraryContainer-\(UUID().uuidString)")
    override class func defaultDirectoryURL() -> URL { directory }
}

/// A subclass that overrides the designated initializer, and so keeps `init(name:)`.
final class TaggedContainer: NSPersistentContainer, @unchecked Sendable {
    private(set) var tag = ""
    override init(name: String, managedObjectModel model: NSManagedObjectModel) {
        super.init(name: name, managedObjectModel: model)
        tag = "made by the override"
    }
}

/// `NSPersistentContainer`, as Apple documents it.
final class NSPersistentContainerTests: XCTestCase {
    func testSubclassInheritsTheInitializersAndItsDirectory() throws {
        let container = LibraryContainer(name: "Library", managedObjectModel: ConformanceModel.make())
        XCTAssertEqual(
            container.persistentStoreDescriptions.first?.url,
            LibraryContainer.directory.appendingPathComponent("Library.sqlite"),
            "the default store sits in the subclass's defaultDirectoryURL()")
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        XCTAssertNil(loadError)
        Author(context: container.viewContext).name = "Saved in the subclass's directory"
        try container.viewContext.save()
        XCTAssertTrue(
            FileManager.default.fileExists(
                atPath: LibraryContainer.directory.appendingPathComponent("Library.sqlite").path))
        try? FileManager.default.removeItem(at: LibraryContainer.directory)
    }

    func testInitByNameIsInheritedAndReportsAMissingModel() {
        let container = LibraryContainer(name: "NoModelOfThisName")
        XCTAssertTrue(type(of: container) == LibraryContainer.self)
        var loadError: NSError?
        container.loadPersistentStores { _, error in loadError = error as NSError? }
        XCTAssertNotNil(loadError)
        XCTAssertTrue(
            loadError?.localizedDescription.contains("NoModelOfThisName") ?? false, "\(String(describing: loadError))")
    }

    func testInitByNameRunsTheOverriddenDesignatedInitializer() {
        XCTAssertEqual(TaggedContainer(name: "NoModelOfThisName").tag, "made by the override")
    }
}
