import Foundation
import XCTest
#if canImport(CoreData) && OPENCOREDATA_COMPATIBILITY_TEST
import CoreData
#else
import OpenCoreData
#endif

/// `NSAsynchronousFetchResult`: what `execute(_:)` returns for an asynchronous fetch and what
/// its completion block receives.
final class NSAsynchronousFetchResultTests: XCTestCase {
    /// Runs `fetch` asynchronously in `context` and waits for its completion block.
    private func run<T>(
        _ fetch: NSFetchRequest<T>, in context: NSManagedObjectContext
    ) throws -> (returned: NSAsynchronousFetchResult<T>, completed: NSAsynchronousFetchResult<T>) {
        let done = expectation(description: "completion")
        let box = AsynchronousFetchRecord<NSAsynchronousFetchResult<T>>()
        let request = NSAsynchronousFetchRequest(fetchRequest: fetch) { result in
            box.record([result])
            done.fulfill()
        }
        let returned = try context.performAndWait {
            try XCTUnwrap(context.execute(request) as? NSAsynchronousFetchResult<T>)
        }
        wait(for: [done], timeout: 10)
        XCTAssertTrue(returned.fetchRequest === request)
        return (returned, try XCTUnwrap(box.values?.first))
    }

    func testTheResultNamesItsRequestAndContext() throws {
        let context = try NSAsynchronousFetchRequestTests.libraryContext()
        let (returned, completed) = try run(NSFetchRequest<Author>(entityName: "Author"), in: context)
        XCTAssertTrue(returned.managedObjectContext === context)
        XCTAssertTrue(completed.managedObjectContext === context)
        XCTAssertTrue(completed.fetchRequest === returned.fetchRequest)
        XCTAssertNil(completed.operationError)
    }

    func testTheFinalResultHoldsObjectsOfTheContext() throws {
        let context = try NSAsynchronousFetchRequestTests.libraryContext()
        let fetch = NSFetchRequest<Author>(entityName: "Author")
        fetch.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let (_, completed) = try run(fetch, in: context)
        let authors = try XCTUnwrap(completed.finalResult)
        context.performAndWait {
            XCTAssertEqual(authors.map(\.name), ["Austen", "Eliot"])
            XCTAssertTrue(authors.allSatisfy { $0.managedObjectContext === context })
            XCTAssertEqual(authors.first?.books?.count, 2)
        }
    }

    func testObjectIDResultsAreTheStoredObjectsIDs() throws {
        let context = try NSAsynchronousFetchRequestTests.libraryContext()
        let expected = try context.performAndWait {
            Set(try context.fetch(NSFetchRequest<Book>(entityName: "Book")).map(\.objectID))
        }
        let fetch = NSFetchRequest<NSManagedObjectID>(entityName: "Book")
        fetch.resultType = .managedObjectIDResultType
        let (_, completed) = try run(fetch, in: context)
        XCTAssertEqual(completed.finalResult.map(Set.init), expected)
    }

    func testCancellingCancelsTheProgress() throws {
        let context = try NSAsynchronousFetchRequestTests.libraryContext()
        let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<Book>(entityName: "Book"))
        let result = try context.performAndWait {
            let result = try XCTUnwrap(context.execute(request) as? NSAsynchronousFetchResult<Book>)
            XCTAssertEqual(result.progress?.isCancelled, false)
            result.cancel()
            return result
        }
        XCTAssertEqual(result.progress?.isCancelled, true)
        context.performAndWait {}
    }
}
