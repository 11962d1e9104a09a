import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSMergeConflict`: an optimistic-locking conflict, as the default (error) merge policy
/// reports it under `conflictList`.
final class NSMergeConflictTests: XCTestCase {
    /// Two contexts read Austen's Emma; the first sets `pages` and saves (or deletes the book
    /// and saves), then the second retitles its copy and saves under the error policy.
    private func conflict(deletingFirst: Bool = false) throws -> (conflict: NSMergeConflict, book: Book, author: Author)
    {
        let first = try ConformanceModel.context()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: first)
        let second = try ConformanceModel.context(sharing: first)
        let mine = try XCTUnwrap(try first.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        let theirs = try XCTUnwrap(try second.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        XCTAssertEqual(theirs.title, "Emma")
        let author = try XCTUnwrap(theirs.author)
        XCTAssertEqual(author.name, "Austen")

        if deletingFirst {
            first.delete(mine)
        } else {
            mine.pages = 474
        }
        try first.save()
        theirs.title = "Emma, a novel"
        do {
            try second.save()
            XCTFail("the save should meet a conflict")
        } catch let error as NSError {
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSManagedObjectMergeError)
            let conflicts = try XCTUnwrap(error.userInfo["conflictList"] as? [NSMergeConflict])
            XCTAssertEqual(conflicts.count, 1)
            return (try XCTUnwrap(conflicts.first), theirs, author)
        }
        throw XCTSkip("no conflict")
    }

    func testTheConflictNamesTheObjectAndBothVersions() throws {
        let (conflict, book, _) = try conflict()
        XCTAssertTrue(conflict.sourceObject === book)
        XCTAssertGreaterThan(conflict.oldVersionNumber, 0)
        XCTAssertGreaterThan(conflict.newVersionNumber, conflict.oldVersionNumber, "the other save made a new version")
    }

    func testThePersistedSnapshotHoldsTheStoredValues() throws {
        let (conflict, _, author) = try conflict()
        let persisted = try XCTUnwrap(conflict.persistedSnapshot)
        XCTAssertEqual(persisted["title"] as? String, "Emma")
        XCTAssertEqual((persisted["pages"] as? NSNumber)?.intValue, 474)
        XCTAssertEqual(persisted["author"] as? NSManagedObjectID, author.objectID, "to-ones are object IDs")
        XCTAssertNil(persisted["books"], "snapshots leave to-many relationships out")
    }

    func testTheObjectSnapshotHoldsTheObjectsValues() throws {
        let (conflict, _, author) = try conflict()
        let object = try XCTUnwrap(conflict.objectSnapshot)
        XCTAssertEqual(object["title"] as? String, "Emma, a novel")
        XCTAssertEqual(object["author"] as? NSManagedObjectID, author.objectID)
    }

    func testADeletedRowHasVersionZeroAndNoPersistedSnapshot() throws {
        let (conflict, book, _) = try conflict(deletingFirst: true)
        XCTAssertTrue(conflict.sourceObject === book)
        XCTAssertEqual(conflict.newVersionNumber, 0)
        XCTAssertNil(conflict.persistedSnapshot)
    }

    func testTheInitializerKeepsWhatItIsGiven() throws {
        let context = try ConformanceModel.context()
        let book = Book(context: context)
        book.title = "Emma"
        let conflict = NSMergeConflict(
            source: book, newVersion: 3, oldVersion: 2, cachedSnapshot: ["title": "Emma"],
            persistedSnapshot: ["title": "Emma, a novel"])
        XCTAssertTrue(conflict.sourceObject === book)
        XCTAssertEqual(conflict.newVersionNumber, 3)
        XCTAssertEqual(conflict.oldVersionNumber, 2)
        XCTAssertEqual(conflict.cachedSnapshot?["title"] as? String, "Emma")
        XCTAssertEqual(conflict.persistedSnapshot?["title"] as? String, "Emma, a novel")
    }
}
