import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSMergePolicy`: what a save does when another context saved the same object first.
final class NSMergePolicyTests: XCTestCase {
    /// Two contexts on one store holding the same book; the first changes `pages` and
    /// saves, then the second changes `title` and saves under `policy`.
    private func conflictingSave(_ policy: NSMergePolicy?) throws -> (error: NSError?, title: String?, pages: Int32) {
        let first = try ConformanceModel.context()
        try ConformanceModel.shelve([("Austen", ["Emma"])], in: first)
        let second = try ConformanceModel.context(sharing: first)
        let mine = try XCTUnwrap(try first.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        let theirs = try XCTUnwrap(try second.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        // Both read the book (as a list on screen would), so each context holds the row as it was.
        XCTAssertEqual(mine.title, "Emma")
        XCTAssertEqual(theirs.title, "Emma")

        mine.pages = 474
        try first.save()
        theirs.title = "Emma, a novel"
        if let policy { second.mergePolicy = policy }
        var error: NSError?
        do { try second.save() } catch let failure as NSError { error = failure }

        let reader = try ConformanceModel.context(sharing: first)
        let stored = try XCTUnwrap(try reader.fetch(NSFetchRequest<Book>(entityName: "Book")).first)
        return (error, stored.title, stored.pages)
    }

    func testTheDefaultPolicyFailsWithTheConflicts() throws {
        let outcome = try conflictingSave(nil)
        let error = try XCTUnwrap(outcome.error)
        XCTAssertEqual(error.domain, NSCocoaErrorDomain)
        XCTAssertEqual(error.code, NSManagedObjectMergeError)
        let conflicts = try XCTUnwrap(error.userInfo["conflictList"] as? [NSMergeConflict])
        XCTAssertEqual(conflicts.count, 1)
        XCTAssertEqual(outcome.title, "Emma")
        XCTAssertEqual(outcome.pages, 474)
    }

    func testPropertyObjectTrumpKeepsBothChanges() throws {
        let outcome = try conflictingSave(NSMergePolicy.mergeByPropertyObjectTrump)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.title, "Emma, a novel")
        XCTAssertEqual(outcome.pages, 474)
    }

    func testPropertyStoreTrumpKeepsBothChangesWhenTheyDoNotOverlap() throws {
        let outcome = try conflictingSave(NSMergePolicy.mergeByPropertyStoreTrump)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.title, "Emma, a novel")
        XCTAssertEqual(outcome.pages, 474)
    }

    func testOverwriteWritesTheWholeObject() throws {
        let outcome = try conflictingSave(NSMergePolicy.overwrite)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.title, "Emma, a novel")
        XCTAssertEqual(outcome.pages, 0)
    }

    func testRollbackDiscardsTheContextsChanges() throws {
        let outcome = try conflictingSave(NSMergePolicy.rollback)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.title, "Emma")
        XCTAssertEqual(outcome.pages, 474)
    }

    func testEachSharedPolicyHasItsType() {
        XCTAssertEqual(NSMergePolicy.error.mergeType, .errorMergePolicyType)
        XCTAssertEqual(NSMergePolicy.mergeByPropertyStoreTrump.mergeType, .mergeByPropertyStoreTrumpMergePolicyType)
        XCTAssertEqual(NSMergePolicy.mergeByPropertyObjectTrump.mergeType, .mergeByPropertyObjectTrumpMergePolicyType)
        XCTAssertEqual(NSMergePolicy.overwrite.mergeType, .overwriteMergePolicyType)
        XCTAssertEqual(NSMergePolicy.rollback.mergeType, .rollbackMergePolicyType)
        XCTAssertEqual(NSMergePolicy(merge: .overwriteMergePolicyType).mergeType, .overwriteMergePolicyType)
        XCTAssertEqual(NSMergePolicyType.rollbackMergePolicyType.rawValue, 4)
    }
}
