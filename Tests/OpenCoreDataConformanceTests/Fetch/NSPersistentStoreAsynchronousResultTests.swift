import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSPersistentStoreAsynchronousResult`: the context, progress and error of work that ends later.
final class NSPersistentStoreAsynchronousResultTests: XCTestCase {
    /// Starts an asynchronous fetch of every book in `context`, returning its result as the base class.
    private func start(
        in context: NSManagedObjectContext, completion: @escaping (NSAsynchronousFetchResult<Book>) -> Void = { _ in }
    ) throws -> NSPersistentStoreAsynchronousResult {
        let request = NSAsynchronousFetchRequest(
            fetchRequest: NSFetchRequest<Book>(entityName: "Book"), completionBlock: completion)
        return try context.performAndWait {
            try XCTUnwrap(context.execute(request) as? NSPersistentStoreAsynchronousResult)
        }
    }

    func testTheResultNamesTheContextThatRunsTheWork() throws {
        let context = try NSAsynchronousFetchRequestTests.libraryContext()
        let done = expectation(description: "completion")
        let result = try start(in: context) { _ in done.fulfill() }
        wait(for: [done], timeout: 10)
        XCTAssertTrue(result.managedObjectContext === context)
    }

    func testAFinishedOperationHasNoErrorAndCompleteProgress() throws {
        let context = try NSAsynchronousFetchRequestTests.libraryContext()
        let done = expectation(description: "completion")
        let result = try start(in: context) { _ in done.fulfill() }
        wait(for: [done], timeout: 10)
        XCTAssertNil(result.operationError)
        let progress = try XCTUnwrap(result.progress)
        XCTAssertFalse(progress.isCancelled)
        XCTAssertEqual(progress.completedUnitCount, progress.totalUnitCount)
    }

    func testCancelCancelsTheProgress() throws {
        let context = try NSAsynchronousFetchRequestTests.libraryContext()
        let result = try context.performAndWait {
            let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<Book>(entityName: "Book"))
            let result = try XCTUnwrap(context.execute(request) as? NSPersistentStoreAsynchronousResult)
            result.cancel()
            return result
        }
        XCTAssertEqual(result.progress?.isCancelled, true)
        context.performAndWait {}
    }
}
